/**
 * CONTRACT STUB (wait-engine work implements): the one wait engine every node uses.
 * All jobs are polled together with a concurrency limit, each with its own backoff (fast start, capped),
 * a deadline per job, 429/Retry-After honoured, the execution cancel signal checked after every sleep.
 */
import type { IDataObject } from 'n8n-workflow';

import type { RunState } from '../types';

export type TimeoutBehaviour = 'fail' | 'returnRunning' | 'cancel';

export interface PollResult {
	state: RunState;
	/** The raw status record, passed through to the output. */
	record: IDataObject;
}

export interface WaitJob {
	/** Index of the input item this job belongs to (for pairedItem and errors). */
	itemIndex: number;
	/** The id to show the user (request id, job id, dataset id). */
	id: string;
	/** One status request. May throw a NodeApiError; transient errors are retried by the engine. */
	poll: () => Promise<PollResult>;
	/** Cancel on the service, if the job kind supports it. */
	cancel?: () => Promise<IDataObject>;
}

export interface WaitOptions {
	/** First interval between polls of one job. */
	initialIntervalMs: number;
	/** Backoff cap. */
	maxIntervalMs: number;
	/** Maximum wait per job, measured from when waiting starts. */
	maxWaitMs: number;
	/** How many status requests may be in flight at once. */
	concurrency: number;
	onTimeout: TimeoutBehaviour;
	/** When the execution is stopped: cancel remote jobs (model/deployment runs) or only stop watching (training, datasets). */
	cancelOnStop: boolean;
	/** Keep polling a job that reports `cancelling` until it reaches a terminal state. Default true. */
	followCancellation?: boolean;
}

export type WaitOutcome =
	| { kind: 'done'; job: WaitJob; state: RunState; record: IDataObject; polls: number }
	| { kind: 'timeout'; job: WaitJob; state: RunState; record: IDataObject; polls: number; cancel?: IDataObject }
	| { kind: 'stopped'; job: WaitJob; state: RunState; record: IDataObject; polls: number; cancel?: IDataObject }
	| { kind: 'error'; job: WaitJob; error: Error; polls: number };

/** Clock seam: real time in nodes, a fake one in unit tests of the engine. */
export interface Clock {
	now(): number;
	sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** Waits for every job; resolves with one outcome per job in input order. Never throws for a single job. */
export async function waitForAll(
	_jobs: WaitJob[],
	_options: WaitOptions,
	_signal?: AbortSignal,
	_clock?: Clock,
): Promise<WaitOutcome[]> {
	throw new Error('not implemented yet');
}
