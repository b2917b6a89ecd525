/**
 * Step 4 of the job flow: wait for every job together with the one engine (../wait), then follow cancellations
 * the service only accepted, and fetch each finished job's result once (step 5).
 */
import type { IDataObject } from 'n8n-workflow';

import { normaliseStatus } from '../status';
import { narrowRunTime, waitForAll } from '../wait';
import type { PollResult, WaitJob, WaitOutcome } from '../wait';
import { mapPool } from '../pool';
import type { RetryChoice } from '../transport';
import { CANCEL_FOLLOW_MS } from './defaults';
import type { Batch } from './flow';
import type { JobItem, Tracked } from './kind';
import type { ReadWaitOptions } from './options';
import { runTimeWindow } from './runTime';

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

/** Waits for the distinct jobs of the tracked items (one poll loop per id); returns how each id ended. */
export async function waitForJobs<P extends JobItem, O>(
	batch: Batch<P, O>,
	tracked: Array<Tracked<P>>,
	wait: ReadWaitOptions,
): Promise<Map<string, JobEnd>> {
	const { kind, signal } = batch;
	const firstOf = new Map<string, Tracked<P>>();
	for (const t of tracked) if (!firstOf.has(t.id)) firstOf.set(t.id, t);
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
	const outcomes = jobs.length
		? // Jobs just submitted are not finished yet: the first status request waits one interval.
			await waitForAll(jobs, { ...wait, followCancellation: true, ...(submittedNow ? { firstPollDelayMs: wait.initialIntervalMs } : {}) }, signal)
		: [];
	const ends = new Map<string, JobEnd>(outcomes.map((outcome) => [outcome.job.id, { outcome }]));

	// A timeout cancelled on the live service may be only "cancellation_requested": follow it until it has ended.
	const toFollow = outcomes.filter(
		(o) => o.kind === 'timeout' && o.cancel && normaliseStatus(cancelOutcomeOf(o.cancel)) === 'cancelling',
	);
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
	if (signal?.aborted) return ends;

	await fetchResults(batch, firstOf, ends, wait.concurrency);
	return ends;
}

/**
 * 5. One result fetch per finished job (`firstOf`: the first item of each id). Also used when a parked
 * execution resumes (./resume.ts). A failed fetch becomes the job's result as an Error.
 */
export async function fetchResults<P extends JobItem, O>(
	batch: Batch<P, O>,
	firstOf: Map<string, Tracked<P>>,
	ends: Map<string, JobEnd>,
	concurrency: number,
): Promise<void> {
	const { kind } = batch;
	const done = [...ends.values()].filter((e) => e.outcome.kind === 'done');
	await mapPool(done, concurrency, async (end) => {
		const t = firstOf.get(end.outcome.job.id) as Tracked<P>;
		const record = end.outcome.kind === 'done' ? end.outcome.record : {};
		const fetched = end.outcome.kind === 'done' ? end.outcome.result : undefined;
		if (!kind.fetch && !fetched) {
			end.result = record;
			return;
		}
		try {
			// The poll that saw the end may have been the result request itself (WaitJob.pollResult).
			end.result = fetched ?? (await (kind.fetch as NonNullable<typeof kind.fetch>)(t, record));
			// The service's timestamps of the run teach its run time better than the polls around its end did.
			const window = runTimeWindow(end.result, t.submittedAt, t.answeredAt);
			if (window) narrowRunTime(end.outcome.job, window);
		} catch (error) {
			end.result = error instanceof Error ? error : new Error(String(error));
		}
	});
}
