/** Finishing the ended jobs, one way for the in-execution wait, jobs ended before parking, and a callback. */
import { mapPool } from '../pool';
import { normaliseStatus } from '../status';
import { narrowRunTime } from '../wait';
import type { PollResult } from '../wait';
import { firstOfEach } from './batch';
import type { Batch, Outputs } from './batch';
import type { JobItem, Tracked } from './kind';
import type { ReadWaitOptions } from './options';
import { judge, presentJudged } from './outcomes';
import type { Presenter } from './outcomes';
import { runTimeWindow } from './runTime';
import type { JobEnd } from './waiting';

/** How each result reached the node (the `delivered_by` output field of a parked batch). */
export type DeliveredBy = 'callback' | 'poll' | 'none';

export type Finished<P extends JobItem> =
	| {
			outcome: 'finished';
			outputs: Outputs;
			/** Submitted now and definitively failed or cancelled: a retry of the node may submit them again. */
			ended: Array<Tracked<P>>;
			/** The error that fails the node (without Continue on Fail), thrown by the flow after the memory is written. */
			failure?: unknown;
	  }
	/** Stopped while fetching (`stopAfterFetch`): the flow outputs the jobs as stopped. */
	| { outcome: 'stopped' }
	/** A fetched result says its job has not ended after all (`onlyEnded`): nothing is output. */
	| { outcome: 'notEnded'; id: string };

export interface FinishHow<P extends JobItem, O> {
	/** Parked batches: `delivered_by` of each item. */
	deliveredBy?: (t: Tracked<P>) => DeliveredBy;
	/** The in-execution wait: Stop during the fetches outputs the jobs as stopped. */
	stopAfterFetch?: boolean;
	/** A resumed batch: a result whose status is still running keeps the execution parked. */
	onlyEnded?: boolean;
	/** The in-execution wait's presenter, which began the downloads of the jobs it saw ended. */
	presenter?: Presenter<P, O>;
}

/** The ended jobs of `tracked` (`ends`: how each job id ended) to their items' output. */
export async function finishJobs<P extends JobItem, O>(
	batch: Batch<P, O>,
	tracked: Array<Tracked<P>>,
	ends: Map<string, JobEnd>,
	wait: ReadWaitOptions,
	how: FinishHow<P, O> = {},
): Promise<Finished<P>> {
	await fetchResults(batch, firstOfEach(tracked), ends, wait.concurrency);
	if (how.stopAfterFetch && batch.signal?.aborted) return { outcome: 'stopped' };
	if (how.onlyEnded) {
		for (const end of ends.values()) {
			const result = end.result;
			if (result && !(result instanceof Error) && ['queued', 'running', 'cancelling'].includes(normaliseStatus(result.status))) {
				return { outcome: 'notEnded', id: end.outcome.job.id };
			}
		}
	}
	const judged = judge(batch, tracked, ends, wait);
	if (judged.failure) return { outcome: 'finished', outputs: new Map(), ended: judged.ended, failure: judged.failure };
	let outputs: Outputs;
	try {
		outputs = await presentJudged(batch, tracked, judged, wait, how.presenter);
	} catch (error) {
		// Without Continue on Fail a presentation that failed fails the node, after the memory is written.
		return { outcome: 'finished', outputs: new Map(), ended: judged.ended, failure: error };
	}
	if (how.deliveredBy) markDelivered(outputs, tracked, how.deliveredBy);
	return { outcome: 'finished', outputs, ended: judged.ended };
}

/** Jobs whose end a status check (or a callback) saw, as the wait engine's "done" outcomes, one per job id. */
export function endsFromPolls<P extends JobItem, O>(
	batch: Batch<P, O>,
	tracked: Array<Tracked<P>>,
	polled: Map<string, PollResult | undefined>,
): Map<string, JobEnd> {
	const { kind } = batch;
	const ends = new Map<string, JobEnd>();
	for (const [id, t] of firstOfEach(tracked)) {
		const r = polled.get(id);
		const job = { itemIndex: t.itemIndex, id, poll: async () => await kind.poll(t) };
		ends.set(id, { outcome: { kind: 'done', job, state: r?.state ?? 'unknown', record: r?.record ?? {}, polls: 1 } });
	}
	return ends;
}

/** One result fetch per finished job (`firstOf`: the first item of each id). */
async function fetchResults<P extends JobItem, O>(
	batch: Batch<P, O>,
	firstOf: Map<string, Tracked<P>>,
	ends: Map<string, JobEnd>,
	concurrency: number,
): Promise<void> {
	const done = [...ends.values()].filter((e) => e.outcome.kind === 'done' && e.result === undefined);
	await mapPool(done, concurrency, async (end) => await fetchEnded(batch, firstOf.get(end.outcome.job.id) as Tracked<P>, end));
}

/** The one result fetch of a finished job into `end.result`; a failed fetch becomes its result as an Error. */
export async function fetchEnded<P extends JobItem, O>(batch: Batch<P, O>, t: Tracked<P>, end: JobEnd): Promise<void> {
	if (end.outcome.kind !== 'done' || end.result !== undefined) return;
	const { kind } = batch;
	const { record } = end.outcome;
	// The poll that saw the end may have been the result request itself (WaitJob.pollResult).
	const fetched = end.outcome.result;
	if (!kind.fetch && !fetched) {
		end.result = record;
		return;
	}
	try {
		end.result = fetched ?? (await (kind.fetch as NonNullable<typeof kind.fetch>)(t, record));
		// The service's timestamps of the run teach its run time better than the polls around its end did.
		const window = runTimeWindow(end.result, t.submittedAt, t.answeredAt);
		if (window) narrowRunTime(end.outcome.job, window);
	} catch (error) {
		end.result = error instanceof Error ? error : new Error(String(error));
	}
}

/** Adds `delivered_by` to the output items of the tracked jobs. */
function markDelivered<P extends JobItem>(outputs: Outputs, tracked: Array<Tracked<P>>, by: (t: Tracked<P>) => DeliveredBy): void {
	for (const t of tracked) {
		for (const item of outputs.get(t.itemIndex) ?? []) item.json = { ...item.json, delivered_by: by(t) };
	}
}
