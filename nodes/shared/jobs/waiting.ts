/**
 * The in-execution wait of the job flow: wait for every job together with the one engine (../wait), then follow
 * cancellations the service only accepted.
 */
import type { IDataObject } from 'n8n-workflow';

import { normaliseStatus } from '../status';
import { waitForAll } from '../wait';
import type { PollResult, WaitJob, WaitOutcome } from '../wait';
import { firstOfEach } from './batch';
import type { Batch } from './batch';
import type { RetryChoice } from '../transport';
import { CANCEL_FOLLOW_MS } from './defaults';
import type { JobItem, Tracked } from './kind';
import type { ReadWaitOptions } from './options';

/** The engine owns the retries of its status requests (../wait/engine.ts): the transport sends each one once. */
const SENT_ONCE: RetryChoice = { retry: 'never' };

/** How one job ended, with what was learnt after the wait. */
export interface JobEnd {
	outcome: WaitOutcome;
	/** The end of a cancellation that was only accepted at the timeout. */
	followed?: PollResult;
	/** The result of a finished job (or the error of its one fetch). */
	result?: IDataObject | Error;
}

/** The outcome of a cancel request: `outcome` (Model API) or `status` (deployments). */
export const cancelOutcomeOf = (cancel: IDataObject): IDataObject[string] => cancel.outcome ?? cancel.status;

export interface WaitHow<P extends JobItem> {
	/**
	 * Called once for each job seen finished, with the end it will have in the returned map (the finish step's
	 * fetch).
	 */
	onEnded?: (t: Tracked<P>, end: JobEnd) => Promise<void>;
}

/** Waits for the distinct jobs of the tracked items (one poll loop per id); returns how each id ended. */
export async function waitForJobs<P extends JobItem, O>(
	batch: Batch<P, O>,
	tracked: Array<Tracked<P>>,
	wait: ReadWaitOptions,
	how: WaitHow<P> = {},
): Promise<Map<string, JobEnd>> {
	const { kind, signal } = batch;
	const firstOf = firstOfEach(tracked);
	const submittedNow = Boolean(kind.submit);
	const jobs: WaitJob[] = [...firstOf.values()].map((t) => ({
		itemIndex: t.itemIndex,
		id: t.id,
		timingKey: kind.timingKey?.(t),
		submittedAt: t.submittedAt,
		poll: async () => await kind.poll(t, SENT_ONCE),
		...(kind.pollResult ? { pollResult: async () => await (kind.pollResult as NonNullable<typeof kind.pollResult>)(t, SENT_ONCE) } : {}),
		// The transport sends this cancel even after Stop (it is not bound to the aborted cancel signal).
		...(kind.cancel ? { cancel: async () => await (kind.cancel as (t: Tracked<P>) => Promise<IDataObject>)(t) } : {}),
	}));
	const early = new Map<string, JobEnd>();
	const { onEnded } = how;
	const onDone = onEnded
		? async (outcome: WaitOutcome): Promise<void> => {
				const end: JobEnd = { outcome };
				early.set(outcome.job.id, end);
				await onEnded(firstOf.get(outcome.job.id) as Tracked<P>, end);
			}
		: undefined;
	const outcomes = jobs.length
		? // Jobs just submitted are not finished yet: the first status request waits one interval.
			await waitForAll(
				jobs,
				{
					...wait,
					followCancellation: true,
					...(onDone ? { onDone } : {}),
					...(submittedNow ? { firstPollDelayMs: wait.initialIntervalMs } : {}),
				},
				signal,
			)
		: [];
	const ends = new Map<string, JobEnd>(outcomes.map((outcome) => [outcome.job.id, early.get(outcome.job.id) ?? { outcome }]));

	// A timeout cancelled on the live service may be only "cancellation_requested": follow it until it has ended.
	const toFollow = outcomes.filter((o) => o.kind === 'timeout' && o.cancel && normaliseStatus(cancelOutcomeOf(o.cancel)) === 'cancelling');
	if (toFollow.length && !signal?.aborted) {
		const followed = await waitForAll(
			toFollow.map((o) => ({ itemIndex: o.job.itemIndex, id: o.job.id, poll: o.job.poll })),
			{ ...wait, maxWaitMs: CANCEL_FOLLOW_MS, onTimeout: 'returnRunning', cancelOnStop: false, followCancellation: true },
			signal,
		);
		for (const end of followed) {
			if (end.kind !== 'error') (ends.get(end.job.id) as JobEnd).followed = { state: end.state, record: end.record };
		}
	}
	return ends;
}
