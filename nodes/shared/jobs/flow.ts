/**
 * The one job flow of every paid or long-running operation (Model Run, Inference Run, Training Submit and Resume,
 * Dataset uploads, Wait Until Ready), in eight steps, top to bottom in `run`:
 */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { newBatch } from './batch';
import type { Batch, Outputs } from './batch';
import { checkItems, refusedByGuards } from './check';
import { fetchEnded, finishJobs } from './finish';
import type { Finished } from './finish';
import type { JobItem, JobKind, Tracked } from './kind';
import { beginTry, firstItemFailed } from './memory';
import type { Remembered, SubmissionMemory } from './memory';
import { rememberRetried } from './retried';
import { Presenter, presentStopped, presentUnwaited } from './outcomes';
import type { ParkedJob } from './park/park';
import { parkOrFinish } from './park/park';
import { planParking } from './park/plan';
import type { Resumed } from './park/finish';
import { submitAll } from './submit';
import { waitForJobs } from './waiting';

/** Runs the whole flow and returns the output items in input order. */
export async function runJobs<P extends JobItem, O = undefined>(
	ctx: IExecuteFunctions,
	items: INodeExecutionData[],
	kind: JobKind<P, O>,
): Promise<INodeExecutionData[]> {
	const memory = beginTry(ctx);
	rememberRetried(ctx, kind, memory);
	const batch = newBatch(ctx, kind, items, { earlier: (i) => memory.get(i) });
	let mayRunAgain = true;
	try {
		const out = await run(batch, new Output(items.length, memory));
		const rerun = memory.mayRerun(firstItemFailed(out));
		mayRunAgain = rerun !== undefined;
		// What cannot be undone waits for an output n8n keeps: not one it may throw away to run the node again.
		await batch.lastSteps.finish(rerun, batch.signal);
		return out;
	} finally {
		memory.settle(mayRunAgain);
	}
}

async function run<P extends JobItem, O>(batch: Batch<P, O>, output: Output): Promise<INodeExecutionData[]> {
	// 1. park plan: a batch that cannot park is refused before any call.
	batch.park = await planParking(batch);
	// 2. check, 3. guards
	output.write(await checkItems(batch));
	if (batch.checked.length) {
		const refused = await refusedByGuards(batch);
		if (refused) return output.write(refused).items();
	}
	// 4. submit
	const submitted = await submitAll(batch);
	output.remember(submitted.remember).write(submitted.outputs);
	if (submitted.failure !== undefined) throw submitted.failure;

	// 5. output at once: stopped; delivered elsewhere (Deliver Results To, with their ids); not waited for
	if (submitted.stoppedDuring || batch.signal?.aborted) return output.write(await presentStopped(batch, submitted.tracked)).items();
	const elsewhere = submitted.tracked.filter((t) => batch.kind.deliveredElsewhere?.(t) === true);
	if (elsewhere.length) output.write(await presentUnwaited(batch, elsewhere));
	const elsewhereSet = new Set(elsewhere);
	const tracked = submitted.tracked.filter((t) => !elsewhereSet.has(t));
	if (!tracked.length) return output.items();
	const wait = batch.checked[0]?.wait;
	if (!wait?.enabled) return output.write(await presentUnwaited(batch, tracked)).items();

	// 6. park (one status check first: when every job has already ended, it finishes here), or wait
	if (batch.park) {
		const parked = await parkOrFinish(batch, tracked, wait, (i) => output.of(i));
		if ('parked' in parked) return output.write(parked.parked).items();
		return output.finished(parked.finished).items();
	}
	// Each result is fetched as soon as its job is seen ended (step 7's fetch, which then skips it), and a good one's
	// files start downloading then (step 7's presentation, which then takes them).
	const presenter = new Presenter(batch, tracked, wait);
	try {
		const ends = await waitForJobs(batch, tracked, wait, {
			onEnded: async (t, end) => {
				await fetchEnded(batch, t, end);
				presenter.early(t, end);
			},
		});
		if (batch.signal?.aborted) return output.write(await presentStopped(batch, tracked, ends)).items();

		// 7. finish: fetch each result once, judge, present; Stop during the fetches outputs the jobs as stopped
		const finished = await finishJobs(batch, tracked, ends, wait, { stopAfterFetch: true, presenter });
		if (finished.outcome === 'stopped') return output.write(await presentStopped(batch, tracked, ends)).items();
		// 8. output
		return output.finished(finished).items();
	} finally {
		// No download outlives the node, and after a failure or Stop none begins (a good run's files were only needed
		// for an output that will not be written).
		presenter.close();
		await presenter.settled();
	}
}

/**
 * Step 4 of a callback (./park/callback.ts): every parked job has ended; the one finish step fetches, judges and
 * presents each, exactly as in-process.
 */
export async function finishParked<P extends JobItem, O>(
	entries: INodeExecutionData[],
	resumed: Resumed<P, O>,
	caller: ParkedJob,
): Promise<INodeExecutionData[] | undefined> {
	const { batch, tracked, ends, wait } = resumed;
	const finished = await finishJobs(batch, tracked, ends, wait, {
		onlyEnded: true,
		deliveredBy: (t) => (t.id === caller.id ? 'callback' : 'poll'),
	});
	if (finished.outcome === 'notEnded') {
		batch.ctx.logger.warn(`RunComfy: request ${finished.id} has not ended after all; the execution stays parked`, {
			node: batch.ctx.getNode().name,
		});
		return undefined;
	}
	const output = new Output(entries.length);
	output.finished(finished);
	// A resumed node is never run again: its output is final.
	await batch.lastSteps.run();
	return entries.flatMap((entry, i) => output.of(i) ?? [entry]);
}

/** The node's output items by input index, and the Retry On Fail memory: written here only. */
class Output {
	private readonly byItem: Array<INodeExecutionData[] | undefined>;

	constructor(
		size: number,
		private readonly memory?: SubmissionMemory,
	) {
		this.byItem = new Array(size);
	}

	write(outputs: Outputs): this {
		for (const [i, items] of outputs) this.byItem[i] = items;
		return this;
	}

	remember(entries: Map<number, Remembered>): this {
		for (const [i, entry] of entries) this.memory?.set(i, entry);
		return this;
	}

	/** The finish step's items. */
	finished<P extends JobItem>(finished: Finished<P>): this {
		if (finished.outcome !== 'finished') return this;
		for (const t of finished.ended) this.memory?.set(t.itemIndex, endedOf(t));
		if (finished.failure !== undefined) throw finished.failure;
		return this.write(finished.outputs);
	}

	of(itemIndex: number): INodeExecutionData[] | undefined {
		return this.byItem[itemIndex];
	}

	items(): INodeExecutionData[] {
		return this.byItem.flatMap((items) => items ?? []);
	}
}

const endedOf = <P extends JobItem>(t: Tracked<P>): Remembered => ({ state: 'ended', accepted: { id: t.id, json: t.accepted } });
