/** The public types of the wait engine. */
import type { IDataObject } from 'n8n-workflow';

import type { RunState } from '../types';
import type { DurationStore } from './learning';
import type { PollingGoal } from './planner';
import type { StepProgress } from './steps';

export type TimeoutBehaviour = 'fail' | 'returnRunning' | 'cancel';

export interface PollResult {
	state: RunState;
	/** The raw status record, passed through to the output. Its `queue_position`, if any, is read while queued. */
	record: IDataObject;
	/** The job's result, when the poll was a result request (`pollResult`) that found the job finished. */
	result?: IDataObject;
	/** Step progress, for jobs that report it (training): a running job is polled where its last step ends (./steps). */
	steps?: StepProgress;
}

export interface WaitJob {
	/** Index of the input item this job belongs to (for pairedItem and errors). */
	itemIndex: number;
	/** The id to show the user (request id, job id, dataset id). */
	id: string;
	/**
	 * One status request, sent once (transport `retry: 'never'`): the engine retries a failed poll (429 after its
	 * Retry-After, 5xx and dropped connections up to `maxTransientErrors` in a row) on its own schedule.
	 */
	poll: () => Promise<PollResult>;
	/**
	 * One result request that also tells the state (the Model API's result record says `in_queue` or
	 * `in_progress` until the run has ended): asked instead of `poll` when the learned plan expects the run to
	 * have ended by then, so the poll that sees the end also brings the result. A 4xx answer (the live service may
	 * say 400 `400005` "not completed yet") counts as "not finished" and the job polls its status from then on.
	 */
	pollResult?: () => Promise<PollResult>;
	/** Cancel on the service, if the job kind supports it. */
	cancel?: () => Promise<IDataObject>;
	/**
	 * Jobs with the same key are expected to take about as long: build it with `timingKey(kind, id, shape?)`,
	 * e.g. the model id or deployment id, plus an input shape where it changes the run time. With a key the
	 * engine learns how long runs take and polls around the expected end (see ./schedule); without one it
	 * uses the plain backoff.
	 */
	timingKey?: string;
	/** When the job was submitted, on the clock's time line (Date.now() in nodes). Default: when waiting started. */
	submittedAt?: number;
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
	/** Growth factor of the interval after each poll. Default 1.5. */
	backoffFactor?: number;
	/** Random spread of each interval, as a fraction (0.1 = ±10 %). Default 0.1; 0 makes intervals exact. */
	jitter?: number;
	/** Consecutive transient poll errors (5xx, 408, dropped connection) tolerated per job before it ends as
	 * 'error', each followed by a backoff wait. Default: the transport policy's retries (`maxAttempts` − 1, i.e. 3).
	 * The engine is the one to retry a poll: `poll` must send its request once (transport `retry: 'never'`). */
	maxTransientErrors?: number;
	/** Wait this long before a job's first poll. Default 0 (poll at once). Runs that were just submitted
	 * are never finished yet, so callers that submit and then wait save one request per run with a delay. */
	firstPollDelayMs?: number;
	/** Called after every successful poll (e.g. to log progress). Must not throw. */
	onPoll?: (job: WaitJob, result: PollResult) => void;
	/** For jobs with a timing key: the median delay from a run's end to its detection that the learned
	 * schedule aims at. Default 300 ms. */
	targetDelayMs?: number;
	/** For jobs with a timing key: what the learned schedule optimises (./planner). Default `lowestDelay`: the
	 * target delay; `fewestRequests`: about three requests per run, seen later. */
	pollingGoal?: PollingGoal;
	/**
	 * Called once per job seen ended (`done`), before the wait goes on for the others, within the request limit
	 * (e.g. to fetch its result at once). Errors are ignored. A cold batch (./coldBatch) wakes its other runs only
	 * after it, so a fetch that narrows the run time from the result's timestamps (`narrowRunTime`) shapes their plans.
	 */
	onDone?: (outcome: Extract<WaitOutcome, { kind: 'done' }>) => Promise<void>;
	/** Where learned run times live. Default: `sharedDurations`, shared by every execution in the process. */
	durations?: DurationStore;
	/**
	 * Whether polls follow what was learned (run times per timing key, a training job's step pace). Default true.
	 * false: the plain backoff for every job, and nothing is read from or recorded in `durations` (the user's
	 * fallback when learned polling misbehaves). Test it with `learningOn`.
	 */
	learning?: boolean;
}

export type WaitOutcome =
	| { kind: 'done'; job: WaitJob; state: RunState; record: IDataObject; polls: number; result?: IDataObject }
	| { kind: 'timeout'; job: WaitJob; state: RunState; record: IDataObject; polls: number; cancel?: IDataObject }
	| { kind: 'stopped'; job: WaitJob; state: RunState; record: IDataObject; polls: number; cancel?: IDataObject }
	| { kind: 'error'; job: WaitJob; error: Error; polls: number };
