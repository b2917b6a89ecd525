/** The public types of the wait engine. */
import type { IDataObject } from 'n8n-workflow';

import type { RunState } from '../types';
import type { DurationStore } from './learning';
import type { PollingGoal } from './planner';
import type { StepProgress } from './steps';

export type TimeoutBehaviour = 'fail' | 'returnRunning' | 'cancel';

export interface PollResult {
	state: RunState;
	/** The raw status record, passed through to the output. */
	record: IDataObject;
	/** The job's result, when the poll was a result request (`pollResult`) that found the job finished. */
	result?: IDataObject;
	/** Step progress, for jobs that report it: a running job is polled where its last step ends. */
	steps?: StepProgress;
}

export interface WaitJob {
	/** Index of the input item this job belongs to. */
	itemIndex: number;
	/** The id to show the user. */
	id: string;
	/**
	 * One status request, sent once (transport `retry: 'never'`): the engine retries a failed poll (429 after its
	 * Retry-After, 5xx and dropped connections up to `maxTransientErrors` in a row) on its own schedule.
	 */
	poll: () => Promise<PollResult>;
	/**
	 * One result request that also tells the state (the Model API's result record says `in_queue` or `in_progress`
	 * until the run has ended): asked instead of `poll` when the learned plan expects the run to have ended by then,
	 * so the poll that sees the end also brings the result.
	 */
	pollResult?: () => Promise<PollResult>;
	/** Cancel on the service, if the job kind supports it. */
	cancel?: () => Promise<IDataObject>;
	/**
	 * Jobs with the same key are expected to take about as long: build it with `timingKey(kind, id, shape?)`, e.g.
	 * the model id or deployment id, plus an input shape where it changes the run time.
	 */
	timingKey?: string;
	/** When the job was submitted, on the clock's time line. */
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
	/** When the execution is stopped: cancel remote jobs or only stop watching. */
	cancelOnStop: boolean;
	/** Keep polling a job that reports `cancelling` until it reaches a terminal state. */
	followCancellation?: boolean;
	/** Growth factor of the interval after each poll. */
	backoffFactor?: number;
	/** Random spread of each interval, as a fraction. */
	jitter?: number;
	/** Consecutive transient poll errors tolerated per job before it ends as 'error', each followed by a backoff wait. */
	maxTransientErrors?: number;
	/** Wait this long before a job's first poll. */
	firstPollDelayMs?: number;
	/** Called after every successful poll. */
	onPoll?: (job: WaitJob, result: PollResult) => void;
	/**
	 * For jobs with a timing key: the median delay from a run's end to its detection that the learned schedule aims
	 * at.
	 */
	targetDelayMs?: number;
	/** For jobs with a timing key: what the learned schedule optimises. */
	pollingGoal?: PollingGoal;
	/** Called once per job seen ended (`done`), before the wait goes on for the others, within the request limit. */
	onDone?: (outcome: Extract<WaitOutcome, { kind: 'done' }>) => Promise<void>;
	/** Where learned run times live. */
	durations?: DurationStore;
	/** Whether polls follow what was learned. */
	learning?: boolean;
}

export type WaitOutcome =
	| { kind: 'done'; job: WaitJob; state: RunState; record: IDataObject; polls: number; result?: IDataObject }
	| { kind: 'timeout'; job: WaitJob; state: RunState; record: IDataObject; polls: number; cancel?: IDataObject }
	| { kind: 'stopped'; job: WaitJob; state: RunState; record: IDataObject; polls: number; cancel?: IDataObject }
	| { kind: 'error'; job: WaitJob; error: Error; polls: number };
