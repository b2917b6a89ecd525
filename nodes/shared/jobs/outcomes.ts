/** How a job ended becomes its item's output, in one place. */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { formatDuration } from '../format';
import { addToDescription, failedItemOrThrow, isToolCall, toNodeError } from '../items';
import { Limiter, mapPool } from '../pool';
import { isTerminal, normaliseStatus } from '../status';
import { asList, firstOfEach, groupsOf, optionsOf } from './batch';
import type { Batch, Outputs } from './batch';
import type { JobItem, PresentContext, Tracked } from './kind';
import { PICKED_UP } from './memory';
import type { ReadWaitOptions } from './options';
import type { JobEnd } from './waiting';
import { cancelOutcomeOf } from './waiting';

export type Plan<P extends JobItem> =
	| { kind: 'item'; t: Tracked<P>; json: IDataObject; succeeded: boolean; record?: IDataObject }
	| { kind: 'error'; t: Tracked<P>; error: Error; extra: IDataObject; timeout?: boolean; ended?: boolean };

/** How each item's job ended, judged: what its output will be, and what the flow must do first. */
export interface Judged<P extends JobItem> {
	plans: Array<Plan<P>>;
	/** Submitted now and definitively failed or cancelled on the service: a retry of the node may submit them again. */
	ended: Array<Tracked<P>>;
	/** Without Continue on Fail: the error that fails the node (timeouts under "Fail" reported together). */
	failure?: Error;
}

/** Judges every item's ended job (the kind's verdict on a finished one). */
export function judge<P extends JobItem, O>(
	batch: Batch<P, O>,
	tracked: Array<Tracked<P>>,
	ends: Map<string, JobEnd>,
	wait: ReadWaitOptions,
): Judged<P> {
	const { ctx } = batch;
	const plans = tracked.map((t) => planOf(batch, t, ends.get(t.id) as JobEnd, wait));
	const ended = plans.filter((p) => p.kind === 'error' && p.ended).map((p) => p.t);
	if (batch.continueOnFail) return { plans, ended };
	const first = plans.find((p) => p.kind === 'error');
	if (!first || first.kind !== 'error') return { plans, ended };
	const timeouts = plans.filter((p) => p.kind === 'error' && p.timeout);
	if (first.timeout && timeouts.length > 1) {
		const ids = [...new Set(timeouts.map((p) => p.t.id))].join(', ');
		const text = batch.texts.timedOutMany(timeouts.length, formatDuration(wait.maxWaitMs), ids);
		return {
			plans,
			ended,
			failure: new NodeOperationError(ctx.getNode(), text.message, { itemIndex: first.t.itemIndex, description: text.description }),
		};
	}
	return { plans, ended, failure: toNodeError(ctx, first.error, first.t.itemIndex) };
}

/** The output of every judged item (downloads of good results happen here, or began early: `Presenter`). */
export async function presentJudged<P extends JobItem, O>(
	batch: Batch<P, O>,
	tracked: Array<Tracked<P>>,
	judged: Judged<P>,
	wait: ReadWaitOptions,
	presenter: Presenter<P, O> = new Presenter(batch, tracked, wait),
): Promise<Outputs> {
	const outputs: Outputs = new Map();
	// Every presentation ends before the first error (in item order) fails the node: none goes on after it.
	const settled = await Promise.allSettled(
		judged.plans.map(async (plan) => {
			const i = plan.t.itemIndex;
			if (plan.kind === 'error') {
				outputs.set(i, [failedItemOrThrow(batch.ctx, plan.error, i, batch.shape(batch.publish(plan.extra)))]);
				return;
			}
			outputs.set(i, await presenter.output(plan));
		}),
	);
	const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
	if (failed) throw failed.reason;
	return outputs;
}

/** At most this many items are presented (their files downloaded) at once. */
const PRESENT_CONCURRENCY = 4;

type Settled = { items: INodeExecutionData[] } | { error: unknown };

/** Presents a batch's good items, a few at a time. */
export class Presenter<P extends JobItem, O> {
	private readonly limiter: Limiter;

	private readonly started = new Map<number, Promise<Settled>>();

	private closed = false;

	private readonly optionsOf: (p: P) => O;

	private readonly groups: Map<string, Array<Tracked<P>>>;

	constructor(
		private readonly batch: Batch<P, O>,
		tracked: Array<Tracked<P>>,
		private readonly wait: ReadWaitOptions,
	) {
		this.limiter = new Limiter(Math.min(wait.concurrency, PRESENT_CONCURRENCY));
		this.optionsOf = optionsOf(batch);
		this.groups = groupsOf(tracked);
	}

	/** The job of `t` was seen ended and its result fetched: its items with a good result start their downloads. */
	early(t: Tracked<P>, end: JobEnd): void {
		for (const item of this.groups.get(t.id) ?? []) {
			if (this.closed || this.started.has(item.itemIndex)) continue;
			const plan = planOf(this.batch, item, end, this.wait);
			if (plan.kind === 'item' && plan.succeeded) this.start(plan);
		}
	}

	/** The output of a judged item that is not an error: what `early` began, else presented now. */
	async output(plan: Extract<Plan<P>, { kind: 'item' }>): Promise<INodeExecutionData[]> {
		const settled = await (this.started.get(plan.t.itemIndex) ?? this.start(plan));
		if ('error' in settled) throw settled.error;
		return settled.items;
	}

	/** The batch failed or was stopped: presentations that have not begun never will. */
	close(): void {
		this.closed = true;
	}

	/** Resolves once every presentation begun has ended (the flow returns only then, whatever happened). */
	async settled(): Promise<void> {
		await Promise.all(this.started.values());
	}

	private start(plan: Extract<Plan<P>, { kind: 'item' }>): Promise<Settled> {
		const { t } = plan;
		const group = this.groups.get(t.id) as Array<Tracked<P>>;
		const presenting = this.limiter.run(async () => {
			if (this.closed) throw new Error('not presented: the batch failed or was stopped');
			const context = { group, options: this.optionsOf(t), record: plan.record };
			return await presentItem(this.batch, t, this.batch.publish(plan.json), plan.succeeded, context);
		});
		const settled = presenting.then(
			(items): Settled => ({ items }),
			(error: unknown): Settled => ({ error }),
		);
		this.started.set(t.itemIndex, settled);
		return settled;
	}
}

function planOf<P extends JobItem, O>(batch: Batch<P, O>, t: Tracked<P>, end: JobEnd, wait: ReadWaitOptions): Plan<P> {
	const { ctx, kind } = batch;
	const o = end.outcome;
	const base: IDataObject = { ...kind.ids(t), ...t.accepted };
	switch (o.kind) {
		case 'error':
			return { kind: 'error', t, error: o.error, extra: base };
		case 'stopped':
			return { kind: 'item', t, json: stoppedJson(batch, t, o.record, o.cancel), succeeded: false, record: o.record };
		case 'timeout': {
			const current = { ...base, ...kind.current(t, o.record) };
			if (o.cancel) {
				const said = cancelOutcomeOf(o.cancel);
				const json: IDataObject = { ...current, timed_out: true, cancel_outcome: said };
				if (end.followed) {
					Object.assign(json, kind.current(t, end.followed.record));
					json.still_running = !isTerminal(end.followed.state);
				} else {
					const cancelled = normaliseStatus(said) === 'cancelled';
					// The cancel's answer is newer than the last poll: a cancelled run is no longer queued.
					if (cancelled) json.status = typeof o.cancel.status === 'string' ? o.cancel.status : 'cancelled';
					json.still_running = !cancelled;
				}
				return { kind: 'item', t, json, succeeded: false, record: end.followed?.record ?? o.record };
			}
			if (wait.onTimeout === 'returnRunning')
				return { kind: 'item', t, json: { ...current, still_running: true }, succeeded: false, record: o.record };
			const status = String(current.status ?? o.state);
			const text = batch.texts.timedOut(t.id, formatDuration(wait.maxWaitMs), status, kind.progressNote?.(o.record) ?? '');
			const error = new NodeOperationError(ctx.getNode(), text.message, { itemIndex: t.itemIndex, description: text.description });
			return { kind: 'error', t, error, extra: { ...current, still_running: true }, timeout: true };
		}
		case 'done': {
			const result = end.result;
			if (result === undefined || result instanceof Error) {
				const error =
					result ??
					new NodeOperationError(ctx.getNode(), batch.texts.notFetched(t.id), {
						itemIndex: t.itemIndex,
						description: batch.texts.notFetchedHint(t.id),
					});
				return { kind: 'error', t, error, extra: { ...base, ...kind.current(t, o.record) } };
			}
			const verdict = kind.verdict(t, o.record, result);
			// A verdict builds its JSON from the result: keep the mark of a job an earlier try submitted.
			const json = t.accepted[PICKED_UP] === true ? { ...verdict.json, [PICKED_UP]: true } : verdict.json;
			if (verdict.ok) return { kind: 'item', t, json, succeeded: true, record: result };
			// Definitively failed or cancelled on the service: a retry of the node may submit it again.
			const error = new NodeOperationError(ctx.getNode(), verdict.message, { itemIndex: t.itemIndex, description: verdict.description });
			return { kind: 'error', t, error, extra: json, ended: Boolean(kind.submit) };
		}
	}
}

/** The JSON of a job whose wait was stopped: its last status, and whether it was cancelled or keeps going. */
function stoppedJson<P extends JobItem, O>(batch: Batch<P, O>, t: Tracked<P>, record: IDataObject, cancel?: IDataObject): IDataObject {
	const { kind } = batch;
	const json: IDataObject = { ...kind.ids(t), ...t.accepted, ...kind.current(t, record), stopped: true };
	if (cancel) {
		json.cancel_outcome = cancelOutcomeOf(cancel);
		if (normaliseStatus(json.cancel_outcome) !== 'cancelled') json.still_running = true;
	} else {
		json.still_running = true;
		json.note = `Stopped watching; the ${kind.noun.one} keeps going on RunComfy`;
	}
	return json;
}

/**
 * The execution was stopped: no more calls, except cancelling what was accepted (queued runs can be cancelled) when
 * the kind cancels on Stop.
 */
export async function presentStopped<P extends JobItem, O>(
	batch: Batch<P, O>,
	tracked: Array<Tracked<P>>,
	ends?: Map<string, JobEnd>,
): Promise<Outputs> {
	const { kind } = batch;
	const outputs: Outputs = new Map();
	const cancels = new Map<string, IDataObject>();
	if (!ends && kind.cancel && kind.wait.cancelOnStop) {
		const cancel = kind.cancel;
		await mapPool([...firstOfEach(tracked)], 4, async ([id, t]) => {
			try {
				cancels.set(id, await cancel(t));
			} catch (error) {
				cancels.set(id, { outcome: 'cancel_failed', error: (error as Error).message });
			}
		});
	}
	for (const t of tracked) {
		const end = ends?.get(t.id)?.outcome;
		const record = end && end.kind !== 'error' ? end.record : {};
		const cancel = end && (end.kind === 'stopped' || end.kind === 'timeout') ? end.cancel : cancels.get(t.id);
		outputs.set(t.itemIndex, [
			{ json: batch.shape(batch.publish(stoppedJson(batch, t, record, cancel))), pairedItem: { item: t.itemIndex } },
		]);
	}
	return outputs;
}

/**
 * Not waited for (Wait for Completion off, Deliver Results To): each accepted item at once with its id (one status
 * each when asked).
 */
export async function presentUnwaited<P extends JobItem, O>(batch: Batch<P, O>, tracked: Array<Tracked<P>>): Promise<Outputs> {
	const { kind } = batch;
	const outputs: Outputs = new Map();
	const snapshots = new Map<string, IDataObject>();
	if (kind.snapshotWithoutWait) {
		for (const [id, t] of firstOfEach(tracked)) {
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
		const presented = await batch.lastSteps.collect(
			async (afterBatch) =>
				await kind.present(t, json, { succeeded: false, options: options(t), group, record, hosts: batch.hosts, afterBatch }),
		);
		outputs.set(t.itemIndex, asList(presented));
	}
	return outputs;
}

/** The output of a job that is not an error: the agent form for a tool call, else the kind's items (downloads). */
async function presentItem<P extends JobItem, O>(
	batch: Batch<P, O>,
	t: Tracked<P>,
	json: IDataObject,
	succeeded: boolean,
	context: Pick<PresentContext<P, O>, 'group' | 'options' | 'record'>,
): Promise<INodeExecutionData[]> {
	const { ctx, kind } = batch;
	if (isToolCall(ctx)) return [{ json: batch.shape(json), pairedItem: { item: t.itemIndex } }];
	try {
		return asList(
			await batch.lastSteps.collect(
				async (afterBatch) => await kind.present(t, json, { ...context, succeeded, hosts: batch.hosts, afterBatch }),
			),
		);
	} catch (error) {
		// A finished job (maybe paid for): keep its id and outputs whatever happened to the files.
		const nodeError = toNodeError(ctx, error, t.itemIndex);
		if (succeeded && kind.submit) addToDescription(nodeError, batch.texts.resultKept(t.id));
		return [failedItemOrThrow(ctx, nodeError, t.itemIndex, json)];
	}
}
