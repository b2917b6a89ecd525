/* eslint-disable @n8n/community-nodes/no-restricted-globals */
/** Shared by the wait engine tests: a virtual clock, scripted jobs and the model-run wait options. */
import type { IDataObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { bellFraction, mulberry32 } from '../../../sandbox';
import type { Clock, DurationStore, PollResult, WaitJob, WaitOptions } from '../../../nodes/shared/wait';
import { waitForAll } from '../../../nodes/shared/wait';
import type { RunState } from '../../../nodes/shared/types';
import { testNode } from '../../helpers/testNode';

// ---------------------------------------------------------------------------------------------------------
// A virtual clock: sleeps are timers on a virtual time line; `run` advances time only when every pending
// promise chain has settled, so the result is deterministic and no real time passes.
// ---------------------------------------------------------------------------------------------------------

interface Timer {
	at: number;
	seq: number;
	resolve: () => void;
	reject: (e: unknown) => void;
	cleanup?: () => void;
}

export class VirtualClock implements Clock {
	t = 0;

	/**
	 * The jitter's random numbers, seeded: the same test polls at the same times on every run (Math.random made
	 * statistical comparisons of two schedules pass or fail by the draw).
	 */
	random: () => number = mulberry32(1);

	private seq = 0;

	private timers: Timer[] = [];

	sleeps: number[] = [];

	now(): number {
		return this.t;
	}

	async sleep(ms: number, signal?: AbortSignal): Promise<void> {
		this.sleeps.push(ms);
		await new Promise<void>((resolve, reject) => {
			if (signal?.aborted) {
				reject(signal.reason);
				return;
			}
			const timer: Timer = { at: this.t + Math.max(0, ms), seq: this.seq++, resolve, reject };
			if (signal) {
				const onAbort = () => {
					this.timers = this.timers.filter((x) => x !== timer);
					reject(signal.reason);
				};
				signal.addEventListener('abort', onAbort, { once: true });
				timer.cleanup = () => signal.removeEventListener('abort', onAbort);
			}
			this.timers.push(timer);
		});
	}

	/** Runs a callback at a virtual time (e.g. pressing Stop). */
	at(time: number, fn: () => void): void {
		this.timers.push({ at: time, seq: this.seq++, resolve: fn, reject: () => {} });
	}

	pendingTimers(): number {
		return this.timers.length;
	}

	async run<T>(promise: Promise<T>): Promise<T> {
		let settled = false;
		let value: T | undefined;
		let error: unknown;
		let failed = false;
		promise.then(
			(v) => {
				settled = true;
				value = v;
			},
			(e) => {
				settled = true;
				failed = true;
				error = e;
			},
		);
		for (let guard = 0; guard < 1_000_000; guard++) {
			await new Promise((r) => setImmediate(r)); // drain every pending microtask
			if (settled) break;
			if (this.timers.length === 0) throw new Error('deadlock: nothing scheduled and the wait has not finished');
			this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
			const next = this.timers[0].at;
			this.t = Math.max(this.t, next);
			const due = this.timers.filter((x) => x.at <= this.t);
			this.timers = this.timers.filter((x) => x.at > this.t);
			for (const timer of due) {
				timer.cleanup?.();
				timer.resolve();
			}
		}
		if (failed) throw error;
		return value as T;
	}
}

export const node = testNode();

export const apiError = (httpCode: number, extra: IDataObject = {}) => {
	const e = new NodeApiError(node, { message: `HTTP ${httpCode}`, ...extra }, { httpCode: String(httpCode) });
	return e;
};

export type Step = RunState | Error | (() => PollResult | Error);

export interface FakeJob extends WaitJob {
	pollTimes: number[];
	cancelCalls: number;
}

export interface Env {
	clock: VirtualClock;
	inFlight: number;
	maxInFlight: number;
	latencyMs: number;
}

export function makeEnv(latencyMs = 0): Env {
	return { clock: new VirtualClock(), inFlight: 0, maxInFlight: 0, latencyMs };
}

/** A job that answers its scripted steps in order and repeats the last one forever. */
export function fakeJob(env: Env, id: string, steps: Step[], cancelAnswer?: IDataObject | Error): FakeJob {
	let i = 0;
	const job: FakeJob = {
		itemIndex: Number(id.replace(/\D/g, '')) || 0,
		id,
		pollTimes: [],
		cancelCalls: 0,
		poll: async () => {
			job.pollTimes.push(env.clock.now());
			env.inFlight++;
			env.maxInFlight = Math.max(env.maxInFlight, env.inFlight);
			try {
				if (env.latencyMs > 0) await env.clock.sleep(env.latencyMs);
				const step = steps[Math.min(i, steps.length - 1)];
				i++;
				const value = typeof step === 'function' ? step() : step;
				if (value instanceof Error) throw value;
				if (typeof value === 'string') return { state: value, record: { id, status: value, poll: i } };
				return value;
			} finally {
				env.inFlight--;
			}
		},
	};
	if (cancelAnswer !== undefined) {
		job.cancel = async () => {
			job.cancelCalls++;
			if (cancelAnswer instanceof Error) throw cancelAnswer;
			return cancelAnswer;
		};
	}
	return job;
}

/** The model-run wait settings (1 s growing ×1.5 to 10 s, 10 min, 10 in flight), exact intervals. */
export const opts = (o: Partial<WaitOptions> = {}): WaitOptions => ({
	initialIntervalMs: 1000,
	maxIntervalMs: 10_000,
	maxWaitMs: 600_000,
	concurrency: 10,
	onTimeout: 'fail',
	cancelOnStop: true,
	jitter: 0,
	...o,
});

/** Model → Run's options with a learning store: the first poll one interval after submitting, ±10 % jitter. */
export const modelRun = (durations: DurationStore, o: Partial<WaitOptions> = {}): WaitOptions =>
	opts({ durations, firstPollDelayMs: 1000, jitter: 0.1, maxWaitMs: 3_600_000, ...o });

export const running = (n: number): RunState[] => Array.from({ length: n }, () => 'running' as RunState);
export const diffs = (times: number[]) => times.slice(1).map((t, k) => t - times[k]);

// ---------------------------------------------------------------------------------------------------------
// Runs that follow the clock: queued, then running, then finished at a given time after the submit.
// ---------------------------------------------------------------------------------------------------------

/** `count` run times of `meanMs` with a bell-shaped spread bounded by ±20 %. */
export function spreadRuns(meanMs: number, count: number, seed = 1): number[] {
	const rnd = mulberry32(seed);
	return Array.from({ length: count }, () => meanMs * (1 + 0.2 * bellFraction(rnd)));
}

export interface TimedRun {
	/** Queued (`in_queue`) until this long after the submit. Default 0. */
	queueMs?: number;
	/** Finished this long after the submit. */
	endMs: number;
	/** The queue position shown while queued, from the time since the submit. */
	position?: (elapsedMs: number) => number;
	/** How the run ends. Default 'succeeded'. */
	final?: RunState;
}

export interface RunResult {
	polls: number;
	/** From the run's end to the answer that showed it. */
	delayMs: number;
	pollTimes: number[];
	kind: string;
}

/** A job for a run submitted now that goes as `run` says on the clock; `pollTimes`: its polls, ms after the submit. */
export function timedJob(
	clock: VirtualClock,
	run: TimedRun,
	job: Partial<WaitJob> = {},
): { job: WaitJob; pollTimes: number[]; submittedAt: number } {
	const submittedAt = clock.now();
	const pollTimes: number[] = [];
	const timed: WaitJob = {
		itemIndex: 0,
		id: 'timed',
		submittedAt,
		...job,
		poll: async () => {
			const elapsed = clock.now() - submittedAt;
			pollTimes.push(elapsed);
			if (elapsed < (run.queueMs ?? 0)) {
				const position = run.position?.(elapsed);
				return { state: 'queued', record: { status: 'in_queue', ...(position === undefined ? {} : { queue_position: position }) } };
			}
			if (elapsed < run.endMs) return { state: 'running', record: { status: 'in_progress' } };
			const final = run.final ?? 'succeeded';
			return { state: final, record: { status: final } };
		},
	};
	return { job: timed, pollTimes, submittedAt };
}

/** Submits one run now and waits for it with `options`; afterwards the clock moves a minute on. */
export async function waitForRun(clock: VirtualClock, run: TimedRun, options: WaitOptions, job: Partial<WaitJob> = {}): Promise<RunResult> {
	const { job: timed, pollTimes, submittedAt } = timedJob(clock, run, job);
	const [outcome] = await clock.run(waitForAll([timed], options, undefined, clock));
	const result = { polls: outcome.polls, delayMs: clock.now() - submittedAt - run.endMs, pollTimes, kind: outcome.kind };
	clock.t += 60_000;
	return result;
}

export const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
export const median = (xs: number[]) => {
	const s = [...xs].sort((a, b) => a - b);
	const m = Math.floor(s.length / 2);
	return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
