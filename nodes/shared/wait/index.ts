/**
 * The one wait engine every node uses.
 *
 * All jobs are polled together: each job runs its own small loop (poll, then sleep its own interval), and a
 * shared limiter keeps at most `concurrency` status requests in flight. Per job: the first poll is immediate
 * (or after `firstPollDelayMs`),
 * then the interval starts at `initialIntervalMs` and grows ×1.5 (with a little jitter) up to
 * `maxIntervalMs`; a deadline of `maxWaitMs` from the start; HTTP 429 waits at least Retry-After; transient
 * errors (5xx, dropped connections) are retried a few times; any other 4xx ends that job only. The execution
 * cancel signal is checked after every sleep and every request. Every job yields exactly one outcome.
 *
 * Waiting costs nothing but the sleeps: no busy loop, no timers other than `sleep(ms, signal)`.
 */
import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { isTerminal } from '../status';
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
	/** Growth factor of the interval after each poll. Default 1.5. */
	backoffFactor?: number;
	/** Random spread of each interval, as a fraction (0.1 = ±10 %). Default 0.1; 0 makes intervals exact. */
	jitter?: number;
	/** Consecutive transient poll errors (5xx, 408, dropped connection) tolerated per job before it ends as
	 * 'error'. Default 3. The transport retries too, so keep this modest. */
	maxTransientErrors?: number;
	/** Wait this long before a job's first poll. Default 0 (poll at once). Runs that were just submitted
	 * are never finished yet, so callers that submit and then wait save one request per run with a delay. */
	firstPollDelayMs?: number;
	/** Called after every successful poll (e.g. to log progress). Must not throw. */
	onPoll?: (job: WaitJob, result: PollResult) => void;
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
	/** A number in [0, 1) for jitter; defaults to Math.random. */
	random?(): number;
}

export const realClock: Clock = {
	now: () => Date.now(),
	sleep: async (ms, signal) => await sleep(ms, signal),
	random: () => Math.random(),
};

const HOUR = 60 * 60 * 1000;

/** Defaults for model runs and deployment requests. */
export const DEFAULT_WAIT: Omit<WaitOptions, 'onTimeout' | 'cancelOnStop'> = {
	initialIntervalMs: 1000,
	maxIntervalMs: 10_000,
	maxWaitMs: 10 * 60 * 1000,
	concurrency: 10,
};

/** Defaults for training jobs (hours long): slower polling, 8 h deadline, never cancel on Stop. */
export const TRAINING_WAIT: Omit<WaitOptions, 'onTimeout' | 'cancelOnStop'> = {
	initialIntervalMs: 10_000,
	maxIntervalMs: 60_000,
	maxWaitMs: 8 * HOUR,
	concurrency: 10,
};

/** Defaults for dataset processing (minutes). */
export const DATASET_WAIT: Omit<WaitOptions, 'onTimeout' | 'cancelOnStop'> = {
	initialIntervalMs: 2000,
	maxIntervalMs: 15_000,
	maxWaitMs: 30 * 60 * 1000,
	concurrency: 10,
};

export const DEFAULT_BACKOFF_FACTOR = 1.5;
export const DEFAULT_JITTER = 0.1;
export const DEFAULT_MAX_TRANSIENT_ERRORS = 3;

// ---------------------------------------------------------------------------------------------------------
// Error classification
// ---------------------------------------------------------------------------------------------------------

const TRANSIENT_CODES = new Set([
	'ECONNRESET',
	'ECONNREFUSED',
	'ECONNABORTED',
	'ETIMEDOUT',
	'ESOCKETTIMEDOUT',
	'EPIPE',
	'EAI_AGAIN',
	'ENOTFOUND',
	'ENETUNREACH',
	'EHOSTUNREACH',
	'UND_ERR_SOCKET',
	'UND_ERR_CONNECT_TIMEOUT',
	'ERR_SOCKET_CONNECTION_TIMEOUT',
]);

type ErrorLike = Record<string, unknown>;

const asObject = (v: unknown): ErrorLike | undefined =>
	typeof v === 'object' && v !== null ? (v as ErrorLike) : undefined;

/** The HTTP status of an error thrown by the transport (NodeApiError.httpCode) or by a raw request. */
export function httpStatusOf(error: unknown): number | undefined {
	const e = asObject(error);
	if (!e) return undefined;
	const candidates: unknown[] = [
		e.httpCode,
		e.statusCode,
		e.status,
		asObject(e.response)?.status,
		asObject(e.response)?.statusCode,
		asObject(e.cause)?.httpCode,
		asObject(e.cause)?.statusCode,
		asObject(e.cause)?.status,
		asObject(asObject(e.cause)?.response)?.status,
		asObject(e.context)?.httpCode,
		asObject(e.context)?.statusCode,
	];
	for (const c of candidates) {
		const n = typeof c === 'string' ? Number(c) : c;
		if (typeof n === 'number' && Number.isInteger(n) && n >= 100 && n <= 599) return n;
	}
	return undefined;
}

function headerValue(headers: unknown, name: string): unknown {
	const h = asObject(headers);
	if (!h) return undefined;
	if (typeof h.get === 'function') {
		try {
			return (h.get as (n: string) => unknown).call(h, name);
		} catch {
			return undefined;
		}
	}
	const key = Object.keys(h).find((k) => k.toLowerCase() === name);
	return key === undefined ? undefined : h[key];
}

/** Parses a Retry-After value: seconds, or an HTTP date relative to `now`. */
export function parseRetryAfter(value: unknown, now: number): number | undefined {
	if (Array.isArray(value)) value = value[0];
	if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value * 1000;
	if (typeof value !== 'string' || value.trim() === '') return undefined;
	const t = value.trim();
	if (/^\d+(\.\d+)?$/.test(t)) return Number(t) * 1000;
	const date = Date.parse(t);
	if (!Number.isNaN(date)) return Math.max(0, date - now);
	return undefined;
}

/**
 * How long a 429 asks us to wait, in ms, if the error says. Looks at (in order) `retryAfterMs` on the error
 * or its `context` (the transport's preferred place), `retryAfter` (seconds), then a `retry-after` header on
 * the error's response / cause / errorResponse.
 */
export function retryAfterMsOf(error: unknown, now: number): number | undefined {
	const e = asObject(error);
	if (!e) return undefined;
	const ctx = asObject(e.context);
	for (const v of [e.retryAfterMs, ctx?.retryAfterMs]) {
		if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return v;
	}
	for (const v of [e.retryAfter, ctx?.retryAfter]) {
		const ms = parseRetryAfter(v, now);
		if (ms !== undefined) return ms;
	}
	const holders = [e, e.response, e.cause, asObject(e.cause)?.response, e.errorResponse, asObject(e.errorResponse)?.response];
	for (const holder of holders) {
		const ms = parseRetryAfter(headerValue(asObject(holder)?.headers, 'retry-after'), now);
		if (ms !== undefined) return ms;
	}
	return undefined;
}

/** 5xx, 408 and network failures are worth another poll; other 4xx are not. */
export function isTransientError(error: unknown): boolean {
	const status = httpStatusOf(error);
	if (status !== undefined) return status >= 500 || status === 408;
	const e = asObject(error);
	const codes = [e?.code, asObject(e?.cause)?.code, asObject(e?.context)?.code];
	if (codes.some((c) => typeof c === 'string' && TRANSIENT_CODES.has(c))) return true;
	const message = `${String(e?.message ?? '')} ${String(asObject(e?.cause)?.message ?? '')}`;
	return /socket hang up|network|could not reach|connection (was )?refused|connection failed|ECONNRESET|ETIMEDOUT|ECONNREFUSED|EAI_AGAIN|timeout|timed out/i.test(message);
}

const toError = (e: unknown): Error => (e instanceof Error ? e : new Error(typeof e === 'string' ? e : JSON.stringify(e)));

// ---------------------------------------------------------------------------------------------------------
// The limiter: at most N requests in flight, FIFO, no timers
// ---------------------------------------------------------------------------------------------------------

class Limiter {
	private active = 0;

	private readonly queue: Array<() => void> = [];

	constructor(private readonly limit: number) {}

	async run<T>(task: () => Promise<T>): Promise<T> {
		if (this.active >= this.limit) {
			await new Promise<void>((resolve) => this.queue.push(resolve));
		} else {
			this.active++;
		}
		try {
			return await task();
		} finally {
			const next = this.queue.shift();
			if (next) next();
			else this.active--;
		}
	}
}

// ---------------------------------------------------------------------------------------------------------
// The engine
// ---------------------------------------------------------------------------------------------------------

interface JobProgress {
	state: RunState;
	record: IDataObject;
	polls: number;
}

type LoopEnd = { outcome: WaitOutcome } | { aborted: JobProgress };

async function cancelSafely(job: WaitJob): Promise<IDataObject> {
	if (!job.cancel) return { outcome: 'not_supported', message: 'This kind of job cannot be cancelled on the service.' };
	try {
		return await job.cancel();
	} catch (error) {
		const e = toError(error);
		const status = httpStatusOf(error);
		return { outcome: 'cancel_failed', error: e.message, ...(status ? { httpCode: status } : {}) };
	}
}

/** Waits for every job; resolves with one outcome per job in input order. Never throws for a single job. */
export async function waitForAll(
	jobs: WaitJob[],
	options: WaitOptions,
	signal?: AbortSignal,
	clock: Clock = realClock,
): Promise<WaitOutcome[]> {
	const concurrency = Math.max(1, Math.floor(options.concurrency) || 1);
	const initial = Math.max(0, options.initialIntervalMs);
	const maxInterval = Math.max(initial, options.maxIntervalMs);
	const factor = options.backoffFactor ?? DEFAULT_BACKOFF_FACTOR;
	const jitter = Math.min(0.5, Math.max(0, options.jitter ?? DEFAULT_JITTER));
	const maxTransient = Math.max(0, options.maxTransientErrors ?? DEFAULT_MAX_TRANSIENT_ERRORS);
	const followCancellation = options.followCancellation ?? true;
	const random = clock.random ? clock.random.bind(clock) : Math.random;
	const limiter = new Limiter(concurrency);
	const start = clock.now();
	const deadline = start + Math.max(0, options.maxWaitMs);
	const aborted = () => signal?.aborted === true;

	const spread = (ms: number) => (jitter > 0 ? ms * (1 + (random() * 2 - 1) * jitter) : ms);

	/** Sleeps; false when the execution was stopped during (or before) the sleep. */
	const pause = async (ms: number): Promise<boolean> => {
		if (aborted()) return false;
		if (ms > 0) {
			try {
				await clock.sleep(ms, signal);
			} catch {
				// sleep only rejects when the signal aborts; the check below decides
			}
		}
		return !aborted();
	};

	const runJob = async (job: WaitJob): Promise<LoopEnd> => {
		const progress: JobProgress = { state: 'unknown', record: {}, polls: 0 };
		let interval = initial;
		let transientErrors = 0;

		const timeout = async (): Promise<LoopEnd> => {
			const base = { kind: 'timeout' as const, job, state: progress.state, record: progress.record, polls: progress.polls };
			if (options.onTimeout === 'cancel') {
				const cancel = await limiter.run(async () => await cancelSafely(job));
				return { outcome: { ...base, cancel } };
			}
			return { outcome: base };
		};

		const firstDelay = Math.min(Math.max(0, options.firstPollDelayMs ?? 0), Math.max(0, deadline - clock.now()));
		if (firstDelay > 0 && !(await pause(firstDelay))) return { aborted: progress };

		for (;;) {
			if (aborted()) return { aborted: progress };
			let result: PollResult | undefined;
			let failure: unknown;
			await limiter.run(async () => {
				if (aborted()) return;
				try {
					result = await job.poll();
				} catch (error) {
					failure = error;
				}
			});
			if (result === undefined && failure === undefined) return { aborted: progress }; // stopped while queued
			progress.polls++;

			let waitMs: number;
			if (result) {
				transientErrors = 0;
				progress.state = result.state;
				progress.record = result.record ?? {};
				try {
					options.onPoll?.(job, result);
				} catch {
					// a progress hook must never break the wait
				}
				if (isTerminal(result.state) || (result.state === 'cancelling' && !followCancellation)) {
					return { outcome: { kind: 'done', job, state: progress.state, record: progress.record, polls: progress.polls } };
				}
				if (aborted()) return { aborted: progress };
				waitMs = Math.min(maxInterval, spread(interval));
				interval = Math.min(maxInterval, interval * factor);
			} else {
				if (aborted()) return { aborted: progress };
				const status = httpStatusOf(failure);
				if (status === 429) {
					const retryAfter = retryAfterMsOf(failure, clock.now());
					waitMs = Math.max(retryAfter ?? 0, Math.min(maxInterval, spread(interval)));
					if (retryAfter !== undefined && clock.now() + retryAfter > deadline) {
						// the service asks us to come back after the deadline: no point waiting for nothing
						return await timeout();
					}
				} else if (isTransientError(failure) && transientErrors < maxTransient) {
					transientErrors++;
					waitMs = Math.min(maxInterval, spread(interval));
					interval = Math.min(maxInterval, interval * factor);
				} else {
					return { outcome: { kind: 'error', job, error: toError(failure), polls: progress.polls } };
				}
			}

			const now = clock.now();
			if (now >= deadline) return await timeout();
			// Never sleep past the deadline; the last poll happens at the deadline itself.
			waitMs = Math.min(waitMs, deadline - now);
			if (!(await pause(waitMs))) return { aborted: progress };
		}
	};

	const ends = await Promise.all(
		jobs.map(async (job) => {
			try {
				return await runJob(job);
			} catch (error) {
				// Only a broken clock could get here; still keep one outcome per job.
				return { outcome: { kind: 'error' as const, job, error: toError(error), polls: 0 } };
			}
		}),
	);

	// Stopped jobs: cancel them on the service (bounded, in parallel) when asked to, else only stop watching.
	const cancelLimiter = new Limiter(concurrency);
	return await Promise.all(
		ends.map(async (end, index): Promise<WaitOutcome> => {
			if ('outcome' in end) return end.outcome;
			const job = jobs[index];
			const p = end.aborted;
			const stopped = { kind: 'stopped' as const, job, state: p.state, record: p.record, polls: p.polls };
			if (!options.cancelOnStop) return stopped;
			const cancel = await cancelLimiter.run(async () => await cancelSafely(job));
			return { ...stopped, cancel };
		}),
	);
}
