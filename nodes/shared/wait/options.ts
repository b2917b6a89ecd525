/** Whatever numbers a caller passes, the engine never busy-polls, never runs without a worker, never drops a paid run. */
import { DEFAULT_RETRY_POLICY } from '../transport/retry';
import { getRetryPolicy } from '../transport/request';
import type { DurationStore } from './learning';
import { sharedDurations } from './learning';
import { normaliseLimit } from '../pool';
import type { PollingGoal } from './planner';
import { DEFAULT_TARGET_DELAY_MS } from './planner';
import type { WaitOptions } from './types';

export const DEFAULT_BACKOFF_FACTOR = 1.5;
export const DEFAULT_JITTER = 0.1;
/** Failed status polls in a row a job survives: as many as the transport retries any request. */
export const DEFAULT_MAX_TRANSIENT_ERRORS = DEFAULT_RETRY_POLICY.maxAttempts - 1;
/** The shortest interval between two polls of one job. */
export const MIN_INTERVAL_MS = 10;
/** Used only when an interval is not a number at all: the model-run defaults. */
const FALLBACK_INTERVAL_MS = 1000;
const FALLBACK_MAX_INTERVAL_MS = 10_000;

export interface ResolvedOptions {
	initialIntervalMs: number;
	maxIntervalMs: number;
	/** Infinity: no deadline. */
	maxWaitMs: number;
	concurrency: number;
	backoffFactor: number;
	jitter: number;
	maxTransientErrors: number;
	followCancellation: boolean;
	firstPollDelayMs: number;
	targetDelayMs: number;
	pollingGoal: PollingGoal;
	durations: DurationStore;
	/** See `learningOn`. */
	learning: boolean;
}

/** The one check of the learning switch (`WaitOptions.learning`): off only when set to false. */
export const learningOn = (options: Pick<WaitOptions, 'learning'>): boolean => options.learning !== false;

const isNumber = (v: unknown): v is number => typeof v === 'number' && !Number.isNaN(v);
const finiteAtLeast = (v: unknown, min: number): v is number => isNumber(v) && Number.isFinite(v) && v >= min;

/** Every option made usable: a bad number gets its default, a bad `maxWaitMs` means no deadline. */
export function resolveOptions(options: WaitOptions): ResolvedOptions {
	const initial = finiteAtLeast(options.initialIntervalMs, 0) ? Math.max(MIN_INTERVAL_MS, options.initialIntervalMs) : FALLBACK_INTERVAL_MS;
	const rawMax = options.maxIntervalMs;
	const max = isNumber(rawMax) ? (rawMax === Infinity ? Infinity : Math.max(initial, rawMax)) : Math.max(initial, FALLBACK_MAX_INTERVAL_MS);
	const factor = options.backoffFactor;
	const jitter = options.jitter;
	const transient = options.maxTransientErrors;
	return {
		initialIntervalMs: initial,
		maxIntervalMs: max,
		maxWaitMs: finiteAtLeast(options.maxWaitMs, 0) ? options.maxWaitMs : Infinity,
		concurrency: normaliseLimit(options.concurrency),
		backoffFactor: finiteAtLeast(factor, 1) ? factor : DEFAULT_BACKOFF_FACTOR,
		jitter: isNumber(jitter) && Number.isFinite(jitter) ? Math.min(0.5, Math.max(0, jitter)) : DEFAULT_JITTER,
		maxTransientErrors: isNumber(transient) && transient >= 0 ? Math.floor(transient) : getRetryPolicy().maxAttempts - 1,
		followCancellation: options.followCancellation ?? true,
		firstPollDelayMs: finiteAtLeast(options.firstPollDelayMs, 0) ? options.firstPollDelayMs : 0,
		targetDelayMs: finiteAtLeast(options.targetDelayMs, 1) ? options.targetDelayMs : DEFAULT_TARGET_DELAY_MS,
		pollingGoal: options.pollingGoal === 'fewestRequests' ? 'fewestRequests' : 'lowestDelay',
		durations: options.durations ?? sharedDurations,
		learning: learningOn(options),
	};
}
