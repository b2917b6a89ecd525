/**
 * The one wait engine every node uses: one outcome per job in input order, never a busy loop or a sleep past the
 * deadline, and learning only moves polls. Design and why: docs/dev/wait-engine.md.
 */
export { narrowRunTime, waitForAll } from './engine';
export type { Clock } from './clock';
export { MAX_TIMER_MS, realClock, sleepFor } from './clock';
export { httpStatusOf, isTransientError, parseRetryAfter, retryAfterMsOf } from './errors';
export {
	DEFAULT_BACKOFF_FACTOR,
	DEFAULT_JITTER,
	DEFAULT_MAX_TRANSIENT_ERRORS,
	learningOn,
	MIN_INTERVAL_MS,
	resolveOptions,
} from './options';
export type { DurationSample, EndDistribution } from './distribution';
export { endDistribution } from './distribution';
export type { DurationSource, DurationStoreOptions, LivePlan, LiveRun, PlanSource } from './learning';
export { DurationStore, sharedDurations, timingKey } from './learning';
export { DEFAULT_TARGET_DELAY_MS, FEW_REQUESTS, FEW_REQUESTS_SHARE, planPolls, POLLING_GOALS } from './planner';
export type { PlanSettings, PollingGoal } from './planner';
export type { EndForecast, StepProgress } from './steps';
export { StepForecast, stepProgressOf } from './steps';
export type { PollResult, TimeoutBehaviour, WaitJob, WaitOptions, WaitOutcome } from './types';
