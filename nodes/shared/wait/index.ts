/**
 * The one wait engine every node uses. Map, from the loop down to the maths:
 *
 *   engine.ts        waitForAll: one loop per job (poll, then sleep), a limiter on status requests in flight
 *                    (../pool), the deadline, Stop, and every failed status request (see Retries); `onDone`
 *                    hands each finished job on as soon as it is seen ended (the result fetch)
 *   coldBatch.ts     ColdGroup: the runs of one timing key with nothing learned, polled as one until one ends
 *   schedule.ts      JobSchedule: when one job is polled next: plain backoff, a learned plan, queue position,
 *                    step pace (steps.ts); what a finished run teaches
 *   learning.ts      DurationStore: learned run times per timing key, shared by the process (sharedDurations);
 *                    plans cached per key, re-planned from the runs still going
 *   distribution.ts  endDistribution: a log-normal fitted to interval-censored samples
 *   planner.ts       planPolls: where to poll a distribution (cost model, budgets, polling goals)
 *   options.ts (resolveOptions, learningOn) · clock.ts · errors.ts · types.ts
 *
 * Invariants (tests in test/shared/wait/):
 * - Every job yields exactly one outcome, in input order; a single job's failure never throws.
 * - No busy loop, no timer but the clock's sleep; no sleep past the deadline; Stop is checked after every sleep
 *   and every request.
 * - Learning only moves polls: the deadline, Stop, concurrency and `firstPollDelayMs` hold whatever it says,
 *   and an error in learning means the plain backoff, never a failed wait.
 * - `learning: false` (Learn Run Times off) or no timing key: the plain backoff, no cold batch, and the store
 *   is neither read nor written. `learningOn` is the one check of that switch.
 * - distribution.ts and planner.ts are pure: the same samples give the same plan, number for number
 *   (plannerFixture.test.ts pins them; CONTRIBUTING.md says how to change wait/).
 *
 * Retries: the engine owns them for status requests. Each poll goes out once (transport `retry: 'never'`); a 429
 * waits at least its Retry-After (until the deadline, not counted), 5xx, 408 and dropped connections are
 * repeated after a backoff wait up to `maxTransientErrors` in a row (by default the transport policy's retries),
 * any other error ends that job only. Everything else (submits, result fetches, cancels) retries in the transport.
 *
 * Why it learns, and what it was measured against: docs/dev/wait-engine.md.
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
