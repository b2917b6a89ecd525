/**
 * The one "submit all, then wait for all" flow of a paid run over a batch of items (Model → Run,
 * Inference → Run): check every item (nothing is paid before all were checked), read the options that could
 * still be wrong, check the balance once, submit every valid item through a small pool (never retried here:
 * the transport decides what is provably safe to retry), wait for every run together, fetch each result once
 * and turn every outcome into one output item in input order — timeouts per "On Timeout", Stop, failed runs
 * with their request ids, Continue on Fail.
 *
 * What is node-specific comes in as a `RunBatchSpec`: what to check and submit, how to poll, cancel and fetch,
 * how the output JSON looks (result JSON, AI-agent form), how a successful item is finished (downloads, ...)
 * and the wording of the errors.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, NodeApiError } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { assertMinimumBalance } from './balanceGuard';
import { readWaitOptions } from './descriptions';
import type { WaitDefaults } from './descriptions';
import { DownloadHosts } from './outputs';
import { mapPool } from './pool';
import { failedItem, toNodeError } from './router';
import { isTerminal, normaliseStatus } from './status';
import type { RequestHandle, ResultRecord } from './types';
import { waitForAll } from './wait';
import type { PollResult, WaitJob, WaitOutcome } from './wait';

/** How long a cancellation that the service only accepted ("cancellation_requested") is followed. */
export const CANCEL_FOLLOW_MS = 60_000;

/** The end of a timeout error's description: what to change so the next run waits long enough. */
export const RAISE_MAX_WAIT =
	'or raise "Max Wait (Seconds)" in Wait Options (or set "On Timeout" to "Return as Still Running").';

/** The outcome of a cancel request: `outcome` (Model API) or `status` (deployments: cancellation_requested / not_cancellable). */
export const cancelOutcomeOf = (cancel: IDataObject): IDataObject[string] => cancel.outcome ?? cancel.status;

/** One checked item, ready to be submitted. */
export interface BatchItem {
	itemIndex: number;
}

/** A submitted item: what was prepared plus the service's answer (its request id). */
export type Submitted<P extends BatchItem> = P & { handle: RequestHandle };

/** A user-facing error text: the message and the description that says how to fix it. */
export interface ErrorText {
	message: string;
	description: string;
}

/** The wording of the flow's errors (node-specific: "run" or "request", which Get Result to use, ...). */
export interface RunBatchTexts<P extends BatchItem> {
	/** Description of the one error that lists several refused items (nothing was submitted). */
	invalidMany(count: number, total: number, first: NodeApiError | NodeOperationError): string;
	/** Added to a submit error when other items were already submitted; `list` is "item 0: <id>, item 1: <id>". */
	alreadySubmitted(list: string): string;
	/** A run still going at Max Wait with On Timeout "Fail". */
	timedOut(requestId: string, seconds: number, status: string): ErrorText;
	/** Several runs still going at Max Wait with On Timeout "Fail", reported together; `ids` is comma-separated. */
	timedOutMany(count: number, seconds: number, ids: string): ErrorText;
	/** A finished run whose result could not be fetched. */
	notFetched(requestId: string): string;
	/** A run that the service reports failed (`failed` true) or cancelled; `text` is the service's reason. */
	failed(s: Submitted<P>, failed: boolean, text: string): ErrorText;
}

/** Given to `finishItem`: the download hosts of this execution and the options read before paying. */
export interface FinishContext<O> {
	hosts: DownloadHosts;
	options: O | undefined;
}

/** What one node adds to the shared flow. `P` is a prepared item, `O` the options read before paying. */
export interface RunBatchSpec<P extends BatchItem, O = undefined> {
	/** Wait defaults of this kind of run (e.g. INFERENCE_WAIT). */
	waitDefaults: WaitDefaults;
	/** Paid submissions in flight at once. */
	submitConcurrency: number;
	/**
	 * Checks one item and builds what will be submitted; throws to refuse it. Ids found on the way may be put
	 * in `extra`: they go into the item's error output under Continue on Fail.
	 */
	prepare(itemIndex: number, extra: IDataObject): Promise<P>;
	/** Further options that could still be wrong, read once before the balance check and the first paid call. */
	readOptions?(firstIndex: number): O;
	/** The ids that lead every output of an item, e.g. `{ model_id }` (also on its error output). */
	ids(p: P): IDataObject;
	/** The paid submission. Thrown errors are per item. */
	submit(p: P): Promise<RequestHandle>;
	/** Fields added to the output of a submitted item when Wait for Completion is off (e.g. `{ status: 'in_queue' }`). */
	queued?: IDataObject;
	/** One status request; `status` is normalised by the flow. */
	poll(s: Submitted<P>): Promise<IDataObject>;
	/** Cancel on the service (On Timeout "Cancel", Stop). The transport sends it even after Stop. */
	cancel(s: Submitted<P>): Promise<IDataObject>;
	/** The one result fetch of a finished run. */
	fetchResult(s: Submitted<P>): Promise<ResultRecord>;
	/** The output JSON of a fetched result. */
	resultJson(s: Submitted<P>, result: ResultRecord): IDataObject;
	/** The service's reason of a failed or cancelled result. */
	errorText(result: ResultRecord): string | undefined;
	/** The AI-agent form of an output JSON (used for every item when the node runs as a tool). */
	toolJson(json: IDataObject): IDataObject;
	/**
	 * The output item of a run that is not an error (finished, still running, cancelled by a timeout):
	 * `succeeded` says whether its outputs may be downloaded. May return an error item (`failedItem`).
	 */
	finishItem(s: Submitted<P>, json: IDataObject, succeeded: boolean, context: FinishContext<O>): Promise<INodeExecutionData>;
	texts: RunBatchTexts<P>;
}

type Plan<P extends BatchItem> =
	| { kind: 'item'; s: Submitted<P>; json: IDataObject; succeeded: boolean }
	| { kind: 'error'; s: Submitted<P>; error: Error; extra: IDataObject };

/** Runs the whole batch (see the file comment) and returns one output item per input item, in input order. */
export async function runBatch<P extends BatchItem, O = undefined>(
	ctx: IExecuteFunctions,
	items: INodeExecutionData[],
	spec: RunBatchSpec<P, O>,
): Promise<INodeExecutionData[]> {
	const node = ctx.getNode();
	const toolCall = ctx.isToolExecution?.() ?? false;
	const continueOnFail = ctx.continueOnFail();
	const signal = ctx.getExecutionCancelSignal?.();
	const output: Array<INodeExecutionData | undefined> = new Array(items.length);
	const shape = (json: IDataObject) => (toolCall ? spec.toolJson(json) : json);
	const handleJson = (s: Submitted<P>): IDataObject => ({ ...spec.ids(s), ...s.handle });

	// 1. Check every item before anything is paid for.
	const prepared: P[] = [];
	const invalid: Array<{ itemIndex: number; error: NodeApiError | NodeOperationError; line: string; extra: IDataObject }> = [];
	for (let i = 0; i < items.length; i++) {
		const extra: IDataObject = {};
		try {
			prepared.push(await spec.prepare(i, extra));
		} catch (error) {
			const nodeError = toNodeError(ctx, error, i);
			const line = /^Item \d+:/.test(nodeError.message) ? nodeError.message : `Item ${i}: ${nodeError.message}`;
			invalid.push({ itemIndex: i, error: nodeError, line, extra });
		}
	}
	if (invalid.length && !continueOnFail) {
		if (invalid.length === 1) throw invalid[0].error;
		throw new NodeOperationError(node, invalid.map((p) => p.line).join('. '), {
			itemIndex: invalid[0].itemIndex,
			description: spec.texts.invalidMany(invalid.length, items.length, invalid[0].error),
		});
	}
	for (const bad of invalid) output[bad.itemIndex] = failedItem(ctx, bad.error, bad.itemIndex, bad.extra);

	// Options that could still be wrong are read now, so nothing fails after money was spent.
	const firstIndex = prepared[0]?.itemIndex ?? 0;
	const wait = readWaitOptions(ctx, firstIndex, spec.waitDefaults);
	const options = spec.readOptions?.(firstIndex);

	// 2. One balance check per execution, before the first paid call.
	if (prepared.length) {
		const nodeOptions = ctx.getNodeParameter('options', prepared[0].itemIndex, {}) as IDataObject;
		try {
			await assertMinimumBalance(ctx, Number(nodeOptions.minimumBalanceUsd ?? 0));
		} catch (error) {
			if (!continueOnFail) throw toNodeError(ctx, error, prepared[0].itemIndex);
			for (const p of prepared) output[p.itemIndex] = failedItem(ctx, error, p.itemIndex, spec.ids(p));
			prepared.length = 0;
		}
	}

	// 3. Submit every valid item. Never retried here (the transport decides what is provably safe to retry).
	const submitted: Array<Submitted<P>> = [];
	let submitFailure: { itemIndex: number; error: Error } | undefined;
	await mapPool(prepared, spec.submitConcurrency, async (p) => {
		if (submitFailure || signal?.aborted) return;
		try {
			const handle = await spec.submit(p);
			submitted.push({ ...p, handle });
		} catch (error) {
			if (!continueOnFail) submitFailure ??= { itemIndex: p.itemIndex, error };
			else output[p.itemIndex] = failedItem(ctx, error, p.itemIndex, spec.ids(p));
		}
	});
	submitted.sort((a, b) => a.itemIndex - b.itemIndex);
	// After Stop a failed submit is just the interrupted one: go on, so the submitted runs get cancelled.
	if (submitFailure && !signal?.aborted) {
		const nodeError = toNodeError(ctx, submitFailure.error, submitFailure.itemIndex);
		if (submitted.length) {
			const list = submitted.map((s) => `item ${s.itemIndex}: ${s.handle.request_id}`).join(', ');
			nodeError.description = `${nodeError.description ? `${nodeError.description} ` : ''}${spec.texts.alreadySubmitted(list)}`;
		}
		throw nodeError;
	}

	if (!wait.enabled && !signal?.aborted) {
		for (const s of submitted) {
			output[s.itemIndex] = { json: shape({ ...handleJson(s), ...spec.queued }), pairedItem: { item: s.itemIndex } };
		}
		return finish(output);
	}

	// 4. Wait for every run together.
	const jobs: WaitJob[] = submitted.map((s) => ({
		itemIndex: s.itemIndex,
		id: s.handle.request_id,
		poll: async () => {
			const record = await spec.poll(s);
			return { state: normaliseStatus(record.status), record };
		},
		// The transport sends this cancel even after Stop (it is not bound to the aborted cancel signal).
		cancel: async () => await spec.cancel(s),
	}));
	// Runs just submitted are not finished yet: the first status request waits one interval.
	const outcomes = jobs.length
		? await waitForAll(jobs, { ...wait, followCancellation: true, firstPollDelayMs: wait.initialIntervalMs }, signal)
		: [];
	const bySubmitted = new Map(submitted.map((s) => [s.itemIndex, s]));
	const submittedOf = (o: WaitOutcome) => bySubmitted.get(o.job.itemIndex) as Submitted<P>;

	// A timeout cancelled on the live service may be only "cancellation_requested": follow it until it has ended.
	const followed = new Map<number, PollResult>();
	const toFollow = outcomes.filter(
		(o) => o.kind === 'timeout' && o.cancel && normaliseStatus(cancelOutcomeOf(o.cancel)) === 'cancelling',
	);
	if (toFollow.length && !signal?.aborted) {
		const ends = await waitForAll(
			toFollow.map((o) => ({ itemIndex: o.job.itemIndex, id: o.job.id, poll: o.job.poll })),
			{ ...wait, maxWaitMs: CANCEL_FOLLOW_MS, onTimeout: 'returnRunning', cancelOnStop: false, followCancellation: true },
			signal,
		);
		for (const end of ends) if (end.kind !== 'error') followed.set(end.job.itemIndex, { state: end.state, record: end.record });
	}

	// Stopped execution: no more calls (the wait engine already asked the service to cancel the runs).
	if (signal?.aborted) {
		for (const o of outcomes) {
			const json: IDataObject = { ...handleJson(submittedOf(o)), stopped: true };
			if (o.kind !== 'error') json.status = o.record.status ?? o.state;
			if ((o.kind === 'stopped' || o.kind === 'timeout') && o.cancel) json.cancel_outcome = cancelOutcomeOf(o.cancel);
			output[o.job.itemIndex] = { json: shape(json), pairedItem: { item: o.job.itemIndex } };
		}
		return finish(output);
	}

	// 5. One result fetch per finished run.
	const results = await mapPool(outcomes, wait.concurrency, async (o): Promise<ResultRecord | Error | undefined> => {
		if (o.kind !== 'done') return undefined;
		try {
			return await spec.fetchResult(submittedOf(o));
		} catch (error) {
			return error as Error;
		}
	});
	const plans = outcomes.map((o, n) =>
		planOutcome(ctx, spec, o, submittedOf(o), results[n], wait, followed.get(o.job.itemIndex)),
	);

	// Without Continue on Fail the first error fails the node; timeouts in "fail" mode are reported together.
	if (!continueOnFail) {
		const firstError = plans.find((p) => p.kind === 'error');
		if (firstError && firstError.kind === 'error') {
			const errorIndex = firstError.s.itemIndex;
			const timeouts = outcomes.filter((o) => o.kind === 'timeout');
			if (timeouts.length > 1 && wait.onTimeout === 'fail' && timeouts.some((o) => o.job.itemIndex === errorIndex)) {
				const ids = timeouts.map((o) => o.job.id).join(', ');
				const text = spec.texts.timedOutMany(timeouts.length, wait.maxWaitMs / 1000, ids);
				throw new NodeOperationError(node, text.message, { itemIndex: errorIndex, description: text.description });
			}
			throw toNodeError(ctx, firstError.error, errorIndex);
		}
	}

	// 6. The items in input order; successful runs are finished by the node (downloads, ...).
	const context: FinishContext<O> = { hosts: new DownloadHosts(ctx), options };
	await mapPool(plans, Math.min(wait.concurrency, 4), async (plan) => {
		const i = plan.s.itemIndex;
		output[i] =
			plan.kind === 'error'
				? failedItem(ctx, plan.error, i, shape(plan.extra))
				: await spec.finishItem(plan.s, plan.json, plan.succeeded, context);
	});
	return finish(output);
}

function planOutcome<P extends BatchItem, O>(
	ctx: IExecuteFunctions,
	spec: RunBatchSpec<P, O>,
	o: WaitOutcome,
	s: Submitted<P>,
	result: ResultRecord | Error | undefined,
	wait: { maxWaitMs: number; onTimeout: string },
	followed?: PollResult,
): Plan<P> {
	const node = ctx.getNode();
	const i = s.itemIndex;
	const requestId = s.handle.request_id;
	const handle: IDataObject = { ...spec.ids(s), ...s.handle };
	switch (o.kind) {
		case 'error':
			return { kind: 'error', s, error: o.error, extra: handle };
		case 'timeout': {
			const current = { ...handle, status: o.record.status ?? o.state };
			if (o.cancel) {
				const outcome = cancelOutcomeOf(o.cancel);
				const json: IDataObject = { ...current, timed_out: true, cancel_outcome: outcome };
				if (followed) {
					json.status = followed.record.status ?? followed.state;
					json.still_running = !isTerminal(followed.state);
				} else {
					json.still_running = normaliseStatus(outcome) !== 'cancelled';
				}
				return { kind: 'item', s, json, succeeded: false };
			}
			if (wait.onTimeout === 'returnRunning') {
				return { kind: 'item', s, json: { ...current, still_running: true }, succeeded: false };
			}
			const text = spec.texts.timedOut(requestId, wait.maxWaitMs / 1000, String(current.status));
			const error = new NodeOperationError(node, text.message, { itemIndex: i, description: text.description });
			return { kind: 'error', s, error, extra: { ...current, still_running: true } };
		}
		case 'stopped': {
			const json: IDataObject = { ...handle, status: o.record.status ?? o.state, stopped: true };
			if (o.cancel) json.cancel_outcome = cancelOutcomeOf(o.cancel);
			return { kind: 'item', s, json, succeeded: false };
		}
		case 'done': {
			if (result instanceof Error || result === undefined) {
				const error = result ?? new NodeOperationError(node, spec.texts.notFetched(requestId));
				return { kind: 'error', s, error, extra: { ...handle, status: o.record.status ?? o.state } };
			}
			const json = spec.resultJson(s, result);
			// The result's own word decides; without one, what the status polls ended with.
			const reported = normaliseStatus(result.status);
			const state = reported === 'unknown' ? o.state : reported;
			if (state === 'failed' || state === 'cancelled') {
				const failed = state === 'failed';
				const reason = spec.errorText(result) ?? (failed ? 'the service reported no reason' : 'it was cancelled');
				const text = spec.texts.failed(s, failed, reason);
				const error = new NodeOperationError(node, text.message, { itemIndex: i, description: text.description });
				return { kind: 'error', s, error, extra: { ...json, service_error: reason } };
			}
			return { kind: 'item', s, json, succeeded: state === 'succeeded' };
		}
	}
}

function finish(output: Array<INodeExecutionData | undefined>): INodeExecutionData[] {
	return output.filter((item): item is INodeExecutionData => item !== undefined);
}
