/** The wait defaults of every kind of job, in one place. */
import type { TimeoutBehaviour } from '../wait';

/** Defaults of one kind of wait (inference runs, training jobs, datasets). */
export interface WaitDefaults {
	maxWaitSeconds: number;
	pollIntervalSeconds: number;
	maxPollIntervalSeconds: number;
	concurrency: number;
	onTimeout: TimeoutBehaviour;
	/**
	 * "On Timeout" left unset in a node saved at version 1: n8n stores no value for an option not added, so those
	 * workflows keep the default they were built with.
	 */
	onTimeoutV1?: TimeoutBehaviour;
	/** Stop button: cancel the remote job (inference) or only stop watching (training, datasets). */
	cancelOnStop: boolean;
	/** Timeout choices offered; training/datasets cannot be cancelled by a timeout. */
	timeoutChoices?: TimeoutBehaviour[];
	/** Whether "Wait for Completion" is on by default (training: off, it takes hours). */
	waitByDefault: boolean;
	/** Whether the kind's jobs have a timing key (runs of a model or deployment): "Polling Goal" is offered. */
	learnsRunTimes?: boolean;
	/** Whether the kind's jobs report steps whose pace places a poll (training). */
	learnsStepPace?: boolean;
}

/** "Learn Run Times" / "Learn Step Pace" is offered where polls follow something learned (run times or a step pace). */
export const offersLearningSwitch = (defaults: WaitDefaults): boolean =>
	defaults.learnsRunTimes === true || defaults.learnsStepPace === true;

/** Model runs and deployment requests: seconds to minutes. */
export const INFERENCE_WAIT: WaitDefaults = {
	maxWaitSeconds: 600,
	pollIntervalSeconds: 1,
	maxPollIntervalSeconds: 10,
	concurrency: 10,
	onTimeout: 'returnRunning',
	onTimeoutV1: 'fail',
	cancelOnStop: true,
	waitByDefault: true,
	learnsRunTimes: true,
};

/**
 * Training jobs run for minutes to hours: poll every 10 s (as the CLI does), back off to 60 s, give up watching
 * after 8 h.
 */
export const TRAINING_WAIT: WaitDefaults = {
	maxWaitSeconds: 8 * 60 * 60,
	pollIntervalSeconds: 10,
	maxPollIntervalSeconds: 60,
	concurrency: 5,
	onTimeout: 'returnRunning',
	onTimeoutV1: 'fail',
	cancelOnStop: false,
	timeoutChoices: ['fail', 'returnRunning'],
	waitByDefault: false,
	learnsStepPace: true,
};

/** Datasets: the CLI polls every 5 s; a dataset becomes READY within minutes. */
export const DATASET_WAIT: WaitDefaults = {
	maxWaitSeconds: 600,
	pollIntervalSeconds: 5,
	maxPollIntervalSeconds: 10,
	concurrency: 5,
	onTimeout: 'returnRunning',
	onTimeoutV1: 'fail',
	cancelOnStop: false,
	timeoutChoices: ['fail', 'returnRunning'],
	waitByDefault: true,
};

/** When an AI agent calls a node as a tool, waits are bounded so the agent gets an answer. */
export const TOOL_MAX_WAIT_SECONDS = 120;

/** The largest "Max Wait (Seconds)" a user can set: 30 days. */
export const MAX_WAIT_SECONDS = 30 * 24 * 3600;

/** The largest poll interval a user can set: an hour. */
export const MAX_POLL_INTERVAL_SECONDS = 3600;

/** Paid submissions in flight at once. */
export const SUBMIT_CONCURRENCY = 4;

/** After Stop, how long submissions already on the wire may take to answer (their ids must not be lost). */
export const STOP_GRACE_MS = 10_000;

/** How long a cancellation that the service only accepted ("cancellation_requested") is followed. */
export const CANCEL_FOLLOW_MS = 60_000;

/** Following a cancellation (Inference → Cancel): it usually ends within seconds; never cancel again, never on Stop. */
export const CANCEL_WAIT: WaitDefaults = {
	maxWaitSeconds: 60,
	pollIntervalSeconds: 1,
	maxPollIntervalSeconds: 5,
	concurrency: 1,
	onTimeout: 'returnRunning',
	cancelOnStop: false,
	timeoutChoices: ['returnRunning', 'fail'],
	waitByDefault: true,
};
