/** Step 3 of the job flow: submissions through one bounded pool. */
import type { IDataObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { addToDescription, failedItemOrThrow, toNodeError } from '../items';
import { mapPool } from '../pool';
import { realClock } from '../wait';
import type { Batch, Outputs } from './batch';
import { STOP_GRACE_MS } from './defaults';
import type { Accepted, JobItem, Tracked } from './kind';
import { PICKED_UP } from './memory';
import type { Remembered } from './memory';
import { recordMaybePaid, recordPaid } from './paidRecord';
import { choose } from './retried';
import { cancelOutcomeOf } from './waiting';

/** What the submit step did; the flow writes the outputs and the memory, then throws `failure`. */
export interface Submitted<P extends JobItem> {
	tracked: Array<Tracked<P>>;
	/** The execution was stopped while submitting. */
	stoppedDuring: boolean;
	/** Items that end here: refused, stopped before or while submitting. */
	outputs: Outputs;
	/** What a retry of the node must know of each item submitted now (Retry On Fail never pays twice). */
	remember: Map<number, Remembered>;
	/** Without Continue on Fail: the refusal that fails the node (it names what was already paid). */
	failure?: unknown;
}

/** True for an error after which the service may have taken the submission (no answer was seen). */
export const mayHaveBeenAccepted = (error: unknown): boolean =>
	typeof error === 'object' &&
	error !== null &&
	((error as { context?: IDataObject }).context?.mayHaveBeenAccepted === true || (error as IDataObject).mayHaveBeenAccepted === true);

type Answer = { accepted: Accepted; at: number; answeredAt: number } | { error: unknown } | { noAnswer: true };

export async function submitAll<P extends JobItem, O>(batch: Batch<P, O>): Promise<Submitted<P>> {
	const { ctx, kind, signal } = batch;
	const tracked: Array<Tracked<P>> = [];
	const outputs: Outputs = new Map();
	const remember = new Map<number, Remembered>();
	let failure: { itemIndex: number; p: P; error: unknown } | undefined;
	let stoppedDuring = false;
	const track = (p: P, accepted: Accepted, submittedAt?: number, answeredAt?: number) =>
		tracked.push({ ...p, id: accepted.id, accepted: accepted.json, submittedAt, answeredAt });

	const toSubmit: P[] = [];
	const retried: Array<{ p: P; entry: { id?: string; unlisted?: boolean } }> = [];
	/** An item that may already be paid: never submitted; it fails the node, or (Continue on Fail) its item. */
	const refuse = (p: P, text: { message: string; description: string }) => {
		const error = new NodeOperationError(ctx.getNode(), text.message, { itemIndex: p.itemIndex, description: text.description });
		if (!batch.continueOnFail) failure ??= { itemIndex: p.itemIndex, p, error };
		else outputs.set(p.itemIndex, [failedItemOrThrow(ctx, error, p.itemIndex, kind.ids(p))]);
	};
	for (const { p } of batch.checked) {
		if (!kind.submit) {
			const id = (kind.jobId as (p: P) => string)(p);
			track(p, { id, json: { [kind.noun.idField]: id } });
			continue;
		}
		const earlier = batch.earlier(p.itemIndex);
		if (earlier?.state === 'accepted') {
			ctx.logger.info(`RunComfy: item ${p.itemIndex} was submitted by an earlier try of this node; following it, not paying again`, {
				node: ctx.getNode().name,
				itemIndex: p.itemIndex,
				[kind.noun.idField]: earlier.accepted.id,
			});
			track(p, { id: earlier.accepted.id, json: { ...earlier.accepted.json, [PICKED_UP]: true } });
		} else if (earlier?.state === 'maybe') {
			refuse(p, {
				message: `Item ${p.itemIndex} is not submitted again: on an earlier try of this node its ${kind.noun.one} may have been accepted`,
				description: `Retry On Fail never sends a submission twice when the first one may have reached RunComfy. Check your RunComfy dashboard. Earlier error: ${(earlier.error as Error).message}`,
			});
		} else if (earlier?.state === 'retried') {
			retried.push({ p, entry: earlier });
		} else {
			toSubmit.push(p);
		}
	}
	// n8n's Retry of a failed execution: what it submitted is checked once, then followed, submitted or refused.
	await mapPool(retried, kind.submitConcurrency, async ({ p, entry }) => {
		const choice = await choose(batch, p, entry);
		if ('submit' in choice) toSubmit.push(p);
		else if ('refuse' in choice) refuse(p, choice.refuse);
		else {
			remember.set(p.itemIndex, { state: 'accepted', accepted: choice.follow, prepared: p });
			track(p, { id: choice.follow.id, json: { ...choice.follow.json, submitted_by_earlier_try: true } });
		}
	});
	toSubmit.sort((a, b) => a.itemIndex - b.itemIndex);

	// Submissions with the same serial key run one after the other, in item order.
	const chains = new Map<string, P[]>();
	for (const p of toSubmit) {
		const key = kind.serialKey?.(p) ?? `\u0000${p.itemIndex}`;
		const chain = chains.get(key);
		if (chain) chain.push(p);
		else chains.set(key, [p]);
	}

	const submitOne = async (p: P): Promise<void> => {
		const answer = await answerOf(batch, p);
		if ('accepted' in answer) {
			remember.set(p.itemIndex, { state: 'accepted', accepted: answer.accepted, prepared: p });
			if (kind.paid) recordPaid(batch, p, answer.accepted);
			track(p, answer.accepted, answer.at, answer.answeredAt);
			return;
		}
		if ('noAnswer' in answer) {
			stoppedDuring = true;
			const text = batch.texts.noAnswerAfterStop();
			remember.set(p.itemIndex, { state: 'maybe', error: new Error(text.message), prepared: p });
			recordMaybePaid(batch, p);
			outputs.set(p.itemIndex, [
				{
					json: batch.shape({ ...kind.ids(p), stopped: true, may_have_been_accepted: true, note: `${text.message}. ${text.description}` }),
					pairedItem: { item: p.itemIndex },
				},
			]);
			return;
		}
		const { error } = answer;
		if (mayHaveBeenAccepted(error)) {
			remember.set(p.itemIndex, { state: 'maybe', error: error as Error, prepared: p });
			recordMaybePaid(batch, p);
		}
		if (batch.continueOnFail) outputs.set(p.itemIndex, [failedItemOrThrow(ctx, error, p.itemIndex, kind.ids(p))]);
		else if (signal?.aborted) outputs.set(p.itemIndex, [stoppedWithError(p, error)]);
		else failure ??= { itemIndex: p.itemIndex, p, error };
	};

	/** After Stop the node returns what it has: an item's submit error is reported on its item, not dropped. */
	const stoppedWithError = (p: P, error: unknown) => {
		const nodeError = toNodeError(ctx, error, p.itemIndex);
		const maybe = mayHaveBeenAccepted(error) ? { may_have_been_accepted: true } : {};
		return {
			json: batch.shape({
				...kind.ids(p),
				stopped: true,
				...maybe,
				error: nodeError.message,
				errorDescription: nodeError.description ?? '',
			}),
			pairedItem: { item: p.itemIndex },
		};
	};

	try {
		await mapPool([...chains.values()], kind.submitConcurrency, async (chain) => {
			for (const p of chain) {
				if (signal?.aborted) {
					stoppedDuring = true;
					const text = batch.texts.stoppedBeforeSubmit();
					outputs.set(p.itemIndex, [
						{
							json: batch.shape({ ...kind.ids(p), stopped: true, submitted: false, note: `${text.message}. ${text.description}` }),
							pairedItem: { item: p.itemIndex },
						},
					]);
					continue;
				}
				if (failure) return;
				await submitOne(p);
			}
		});
	} catch (error) {
		// Whatever went wrong, what was accepted so far must reach the memory before the node fails.
		return { tracked, stoppedDuring, outputs, remember, failure: error };
	}
	tracked.sort((a, b) => a.itemIndex - b.itemIndex);

	// After Stop a failed submission is reported on its item: go on, so the accepted ones get cancelled.
	const done = { tracked, stoppedDuring: stoppedDuring || signal?.aborted === true, outputs, remember };
	if (failure && signal?.aborted) {
		if (!outputs.has(failure.itemIndex)) outputs.set(failure.itemIndex, [stoppedWithError(failure.p, failure.error)]);
	} else if (failure) {
		const nodeError = toNodeError(ctx, failure.error, failure.itemIndex);
		if (kind.submit && tracked.length) {
			addToDescription(nodeError, batch.texts.alreadySubmitted(tracked.map((t) => `item ${t.itemIndex}: ${t.id}`).join(', ')));
		}
		return { ...done, failure: nodeError };
	}
	return done;
}

/** One submission. */
async function answerOf<P extends JobItem, O>(batch: Batch<P, O>, p: P): Promise<Answer> {
	const sentAt = Date.now();
	const how = batch.park ? { callbackUrl: batch.park.callbackUrl(p.itemIndex) } : undefined;
	const submission = (batch.kind.submit as NonNullable<typeof batch.kind.submit>)(p, how).then(
		(accepted): Answer => ({ accepted, at: sentAt, answeredAt: Date.now() }),
		(error: unknown): Answer => ({ error }),
	);
	const signal = batch.signal;
	if (!signal) return await submission;
	let onAbort: (() => void) | undefined;
	const stopped = new Promise<'stopped'>((resolve) => {
		onAbort = () => resolve('stopped');
		if (signal.aborted) resolve('stopped');
		else signal.addEventListener('abort', onAbort, { once: true });
	});
	const first = await Promise.race([submission, stopped]);
	if (onAbort) signal.removeEventListener('abort', onAbort);
	if (first !== 'stopped') return first;
	const timer = new AbortController();
	const grace = realClock.sleep(STOP_GRACE_MS, timer.signal).then(
		(): Answer => ({ noAnswer: true }),
		(): Answer => ({ noAnswer: true }),
	);
	try {
		const answer = await Promise.race([submission, grace]);
		if ('noAnswer' in answer) {
			void submission
				.then(async (late) => await lateAnswer(batch, p, late))
				.catch((error: Error) =>
					batch.ctx.logger.warn(`RunComfy: a submission answered after Stop could not be handled: ${error.message}`),
				);
		}
		return answer;
	} finally {
		timer.abort();
	}
}

/** A submission whose answer came after Stop's grace: the node has reported it as "may have been accepted". */
async function lateAnswer<P extends JobItem, O>(batch: Batch<P, O>, p: P, answer: Answer): Promise<void> {
	if (!('accepted' in answer)) return;
	const { ctx, kind } = batch;
	const node = ctx.getNode().name;
	const { id } = answer.accepted;
	const meta = { node, itemIndex: p.itemIndex, ...kind.ids(p), [kind.noun.idField]: id };
	const cancel = kind.wait.cancelOnStop ? kind.cancel : undefined;
	ctx.logger.warn(
		`RunComfy: a ${kind.noun.one} submitted before Stop was accepted after the execution stopped (node "${node}", item ${p.itemIndex}, ${kind.noun.idField} ${id}); ${cancel ? 'cancelling it' : 'it keeps running'}`,
		meta,
	);
	if (kind.paid) recordPaid(batch, p, answer.accepted);
	if (!cancel) return;
	try {
		const outcome = cancelOutcomeOf(await cancel({ ...p, id, accepted: answer.accepted.json }));
		const said = `RunComfy: cancel of the ${kind.noun.one} accepted after Stop (${kind.noun.idField} ${id}): ${String(outcome)}`;
		if (outcome === 'cancelled') ctx.logger.info(said, { ...meta, cancel_outcome: outcome });
		else ctx.logger.warn(said, { ...meta, cancel_outcome: outcome });
	} catch (error) {
		ctx.logger.warn(
			`RunComfy: could not cancel the ${kind.noun.one} accepted after Stop (${kind.noun.idField} ${id}): ${(error as Error).message}`,
			meta,
		);
	}
}
