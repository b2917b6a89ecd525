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
	/** The job's result, when a result request (`pollResult`) found it finished. */
	result?: IDataObject;
	/** Step progress, for jobs that report it: a running job is polled where its last step ends. */
	steps?: StepProgress;
}

export interface WaitJob {
	itemIndex: number;
	id: string;
	/** One status request, sent once (transport `retry: 'never'`): the engine retries a failed poll itself. */
	poll: () => Promise<PollResult>;
	/** A result request that also tells the state: asked instead of `poll` when the run has likely ended. */
	pollResult?: () => Promise<PollResult>;
	cancel?: () => Promise<IDataObject>;
	/** Jobs with the same key are expected to take about as long (`timingKey`). */
	timingKey?: string;
	/** When the job was submitted, on the clock's time line. */
	submittedAt?: number;
}

export interface WaitOptions {
	initialIntervalMs: number;
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
	backoffFactor?: number;
	jitter?: number;
	/** Transient poll errors in a row a job survives, each followed by a backoff wait. */
	maxTransientErrors?: number;
	firstPollDelayMs?: number;
	onPoll?: (job: WaitJob, result: PollResult) => void;
	/** The median delay from a run's end to its detection that a learned schedule aims at. */
	targetDelayMs?: number;
	/** For jobs with a timing key: what the learned schedule optimises. */
	pollingGoal?: PollingGoal;
	/** Called once per job seen ended, within the request limit, before the wait goes on for the others. */
	onDone?: (outcome: Extract<WaitOutcome, { kind: 'done' }>) => Promise<void>;
	durations?: DurationStore;
	learning?: boolean;
}

export type WaitOutcome =
	| { kind: 'done'; job: WaitJob; state: RunState; record: IDataObject; polls: number; result?: IDataObject }
	| { kind: 'timeout'; job: WaitJob; state: RunState; record: IDataObject; polls: number; cancel?: IDataObject }
	| { kind: 'stopped'; job: WaitJob; state: RunState; record: IDataObject; polls: number; cancel?: IDataObject }
	| { kind: 'error'; job: WaitJob; error: Error; polls: number };
