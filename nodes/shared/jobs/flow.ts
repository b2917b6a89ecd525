/**
 * The one job flow of every paid or long-running operation (Model Run, Inference Run, Training Submit and Resume,
 * Dataset uploads, Wait Until Ready):
 *
 *   1. check every item and read every option that can fail — nothing is paid before all were checked;
 *   2. guards: the minimum balance;
 *   3. submit through one bounded pool (never retried here; the transport decides what is provably safe to
 *      retry), remembering each submission so n8n's Retry On Fail never pays twice, logging every paid one;
 *   4. wait for every job together with the one engine, or park the execution until the service calls back
 *      (./park.ts, ./resume.ts), or return at once;
 *   5. fetch each finished job's result once;
 *   6. turn each outcome into the item's output in one place (./outcomes).
 *
 * A node supplies only its job kind (./kind). One output item per input item, in input order (a kind may
 * present several for one input, e.g. one per file).
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, NodeApiError } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { assertCostCap, assertMinimumBalance } from './guards';
import { failedItem, forCaller, toNodeError } from '../items';
import { DownloadHosts } from '../outputs';
import { withPublicStatus } from '../status';
import type { JobItem, JobKind, Tracked } from './kind';
import { beginTry } from './memory';
import type { SubmissionMemory } from './memory';
import { readCostCap, readMinimumBalance, readWaitOptions } from './options';
import type { ReadWaitOptions } from './options';
import { presentOutcomes, presentStopped } from './outcomes';
import { parkOrFinish, planParking } from './park';
import type { ParkPlan } from './park';
import { submitAll } from './submit';
import { jobTexts } from './texts';
import { waitForJobs } from './waiting';

/** One checked item: what its kind prepared plus every option read for it. */
export interface Checked<P extends JobItem, O> {
	p: P;
	options: O;
	wait: ReadWaitOptions;
	/** "Minimum Balance (USD)" and "Max Estimated Cost (USD)" of the item (0 or absent: off), read once in step 1. */
	minimumBalance?: number;
	costCap?: number;
}

/** The state of one run of the flow, shared by its steps. */
export interface Batch<P extends JobItem, O> {
	ctx: IExecuteFunctions;
	kind: JobKind<P, O>;
	items: INodeExecutionData[];
	output: Array<INodeExecutionData[] | undefined>;
	continueOnFail: boolean;
	signal?: AbortSignal;
	memory: SubmissionMemory;
	checked: Array<Checked<P, O>>;
	texts: ReturnType<typeof jobTexts>;
	hosts: DownloadHosts;
	/** Set when the batch parks (Wait Mode "Park Until RunComfy Calls Back"): where the service calls back. */
	park?: ParkPlan;
	/** The JSON an item gets (the agent form when the node runs as a tool). */
	shape(json: IDataObject): IDataObject;
	/** `status` in the nodes' one vocabulary (unless the kind keeps the service's words). */
	publish(json: IDataObject): IDataObject;
}

/** Runs the whole flow (see the file comment) and returns the output items in input order. */
export async function runJobs<P extends JobItem, O = undefined>(
	ctx: IExecuteFunctions,
	items: INodeExecutionData[],
	kind: JobKind<P, O>,
): Promise<INodeExecutionData[]> {
	const memory = beginTry(ctx);
	const batch: Batch<P, O> = {
		ctx,
		kind,
		items,
		output: new Array(items.length),
		continueOnFail: ctx.continueOnFail(),
		signal: ctx.getExecutionCancelSignal?.(),
		memory,
		checked: [],
		texts: jobTexts(kind.noun),
		hosts: new DownloadHosts(ctx),
		shape: (json) => forCaller(ctx, json, kind.toolJson),
		publish: (json) => (kind.keepServiceStatus ? json : withPublicStatus(json)),
	};
	let mayRunAgain = true;
	try {
		const out = await run(batch);
		mayRunAgain = isErrorValue(out[0]?.json.error);
		return out;
	} finally {
		memory.settle(mayRunAgain);
	}
}

/** n8n's test (workflow-execute.js checkFailure) for running a node again under Retry On Fail: its first item's `error`. */
const isErrorValue = (v: unknown): boolean => v !== undefined && v !== null && v !== false;

async function run<P extends JobItem, O>(batch: Batch<P, O>): Promise<INodeExecutionData[]> {
	// Before anything else: a batch that cannot park (no public resume URL) is refused before any call.
	batch.park = await planParking(batch);
	await checkItems(batch);
	if (batch.checked.length && !(await guardsAllow(batch))) return flatten(batch.output);

	const submitted = await submitAll(batch);
	if (submitted.stoppedDuring || batch.signal?.aborted) {
		await presentStopped(batch, submitted.tracked);
		return flatten(batch.output);
	}
	// Jobs whose results RunComfy delivers elsewhere (Deliver Results To) are output at once, with their ids.
	const elsewhere = submitted.tracked.filter((t) => batch.kind.deliveredElsewhere?.(t) === true);
	if (elsewhere.length) await presentUnwaited(batch, elsewhere);
	const elsewhereSet = new Set(elsewhere);
	const tracked = submitted.tracked.filter((t) => !elsewhereSet.has(t));
	if (!tracked.length) return flatten(batch.output);
	const wait = batch.checked[0]?.wait;
	if (!wait?.enabled) {
		await presentUnwaited(batch, tracked);
		return flatten(batch.output);
	}
	if (batch.park) {
		await parkOrFinish(batch, tracked, wait);
		return flatten(batch.output);
	}
	const outcomes = await waitForJobs(batch, tracked, wait);
	if (batch.signal?.aborted) {
		await presentStopped(batch, tracked, outcomes);
		return flatten(batch.output);
	}
	await presentOutcomes(batch, tracked, outcomes, wait);
	return flatten(batch.output);
}

/** 1. Every item is checked and every option read before anything is paid; bad items are reported together. */
async function checkItems<P extends JobItem, O>(batch: Batch<P, O>): Promise<void> {
	const { ctx, kind } = batch;
	const invalid: Array<{ itemIndex: number; error: NodeApiError | NodeOperationError; extra: IDataObject }> = [];
	for (let i = 0; i < batch.items.length; i++) {
		const extra: IDataObject = {};
		try {
			// An item an earlier try of the node submitted is not checked again (its job may have changed what the
			// checks see, e.g. a resumed job is running now); it is followed, never submitted again.
			const earlier = batch.memory.get(i);
			const p = earlier && earlier.state !== 'ended' ? (earlier.prepared as P) : await kind.prepare(i, extra);
			const options = kind.readOptions ? kind.readOptions(p) : (undefined as O);
			const wait = readWaitOptions(ctx, i, kind.wait, Boolean(kind.park));
			const minimumBalance = kind.paid ? readMinimumBalance(ctx, i) : 0;
			const costCap = kind.estimate ? readCostCap(ctx, i) : 0;
			batch.checked.push({ p, options, wait, minimumBalance, costCap });
		} catch (error) {
			invalid.push({ itemIndex: i, error: toNodeError(ctx, error, i), extra });
		}
	}
	if (invalid.length && !batch.continueOnFail) {
		if (invalid.length === 1) throw invalid[0].error;
		const first = invalid[0].error;
		throw new NodeOperationError(ctx.getNode(), invalid.map((p) => lineOf(p.itemIndex, p.error.message)).join('. '), {
			itemIndex: invalid[0].itemIndex,
			description: batch.texts.invalidMany(invalid.length, batch.items.length, first.description ?? first.message),
		});
	}
	for (const bad of invalid) batch.output[bad.itemIndex] = [failedItem(ctx, bad.error, bad.itemIndex, bad.extra)];
}

const lineOf = (itemIndex: number, message: string) => (/^Item \d+:/.test(message) ? message : `Item ${itemIndex}: ${message}`);

/**
 * 2. The guards, before the first paid call: the cost cap (the lowest cap set on any item, against what would be
 * submitted now) and the minimum balance (the highest minimum of the checked items).
 */
async function guardsAllow<P extends JobItem, O>(batch: Batch<P, O>): Promise<boolean> {
	const { ctx, kind } = batch;
	if (!kind.paid) return true;
	// A loop rather than Math.max(...list): a spread of a very large batch overflows the call stack.
	let minimum = -Infinity;
	for (const c of batch.checked) minimum = Math.max(minimum, c.minimumBalance ?? 0);
	try {
		if (kind.estimate) {
			const caps = batch.checked.map((c) => c.costCap ?? 0).filter((cap) => cap > 0);
			// Items an earlier try already submitted are not submitted (nor paid) again.
			const fresh = batch.checked.filter((c) => !batch.memory.get(c.p.itemIndex) || batch.memory.get(c.p.itemIndex)?.state === 'ended');
			const estimate = kind.estimate;
			if (caps.length) assertCostCap(ctx, caps.reduce((a, b) => Math.min(a, b)), fresh.map((c) => ({ itemIndex: c.p.itemIndex, estimate: estimate(c.p) })));
		}
		await assertMinimumBalance(ctx, minimum);
		return true;
	} catch (error) {
		if (!batch.continueOnFail) throw toNodeError(ctx, error, batch.checked[0].p.itemIndex);
		for (const c of batch.checked) batch.output[c.p.itemIndex] = [failedItem(ctx, error, c.p.itemIndex, kind.ids(c.p))];
		return false;
	}
}

/** Wait for Completion off: every accepted item is output at once with its id (one status each when asked). */
async function presentUnwaited<P extends JobItem, O>(batch: Batch<P, O>, tracked: Array<Tracked<P>>): Promise<void> {
	const { kind } = batch;
	const snapshots = new Map<string, IDataObject>();
	if (kind.snapshotWithoutWait) {
		for (const [id, [t]] of groupsOf(tracked)) {
			try {
				snapshots.set(id, (await kind.poll(t)).record);
			} catch {
				// a courtesy snapshot: without it the item shows what the submission answered
			}
		}
	}
	const options = optionsOf(batch);
	const groups = groupsOf(tracked);
	for (const t of tracked) {
		const json = batch.publish({ ...kind.ids(t), ...t.accepted, ...kind.queued });
		const record = snapshots.get(t.id);
		const group = groups.get(t.id) as Array<Tracked<P>>;
		const presented = await kind.present(t, json, { succeeded: false, options: options(t), group, record, hosts: batch.hosts });
		batch.output[t.itemIndex] = asList(presented);
	}
}

/** The options read for each item in step 1 (looked up by item index: a batch may hold 10,000 items). */
export function optionsOf<P extends JobItem, O>(batch: Batch<P, O>): (p: P) => O {
	const byIndex = new Map<number, O>();
	for (const c of batch.checked) if (!byIndex.has(c.p.itemIndex)) byIndex.set(c.p.itemIndex, c.options);
	return (p) => byIndex.get(p.itemIndex) as O;
}

/** The tracked items of each job id, in item order (several items may follow one job). */
export function groupsOf<P extends JobItem>(tracked: Array<Tracked<P>>): Map<string, Array<Tracked<P>>> {
	const groups = new Map<string, Array<Tracked<P>>>();
	for (const t of tracked) {
		const group = groups.get(t.id);
		if (group) group.push(t);
		else groups.set(t.id, [t]);
	}
	return groups;
}

export const asList = (x: INodeExecutionData | INodeExecutionData[]): INodeExecutionData[] => (Array.isArray(x) ? x : [x]);

function flatten(output: Array<INodeExecutionData[] | undefined>): INodeExecutionData[] {
	return output.flatMap((items) => items ?? []);
}
