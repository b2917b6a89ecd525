/* eslint-disable @n8n/community-nodes/no-restricted-globals */
/**
 * Bad numbers and huge timers: the engine never polls in a busy loop, never runs without a worker, never
 * fires a timer early, and never gives up on a paid run because of a number (issue 13, section 2).
 */
import { sleep } from 'n8n-workflow';

import { MAX_TIMER_MS, MIN_INTERVAL_MS, realClock, resolveOptions, sleepFor, waitForAll, type Clock } from '../../../nodes/shared/wait';
import { Limiter, mapPool, normaliseLimit } from '../../../nodes/shared/pool';
import { diffs, fakeJob, makeEnv, opts, running } from './helpers';

describe('timers longer than setTimeout can hold', () => {
	it('sleepFor splits a long sleep into pieces a timer can hold', async () => {
		let t = 0;
		const pieces: number[] = [];
		const clock: Clock = { now: () => t, sleep: async (ms) => void (pieces.push(ms), (t += ms)) };
		await sleepFor(clock, 3 * MAX_TIMER_MS + 5);
		expect(pieces).toEqual([MAX_TIMER_MS, MAX_TIMER_MS, MAX_TIMER_MS, 5]);
		expect(t).toBe(3 * MAX_TIMER_MS + 5);
	});

	it('sleepFor ends even on a clock that does not advance, and sleeps not at all for NaN or negative values', async () => {
		const pieces: number[] = [];
		const frozen: Clock = { now: () => 0, sleep: async (ms) => void pieces.push(ms) };
		await sleepFor(frozen, 2 * MAX_TIMER_MS);
		expect(pieces).toEqual([MAX_TIMER_MS, MAX_TIMER_MS]);
		await sleepFor(frozen, NaN);
		await sleepFor(frozen, -5);
		expect(pieces).toHaveLength(2);
	});

	it('an interval beyond 2^31 − 1 ms is slept in full, never fired at once', async () => {
		const env = makeEnv();
		const interval = MAX_TIMER_MS + 60_000;
		const job = fakeJob(env, 'r1', ['running', 'succeeded']);
		const [o] = await env.clock.run(
			waitForAll([job], opts({ initialIntervalMs: interval, maxIntervalMs: interval, maxWaitMs: 10 * interval }), undefined, env.clock),
		);
		expect(o.kind).toBe('done');
		expect(diffs(job.pollTimes)).toEqual([interval]);
		expect(Math.max(...env.clock.sleeps)).toBeLessThanOrEqual(MAX_TIMER_MS);
	});

	it('a deadline beyond 2^31 − 1 ms keeps waiting until it is reached', async () => {
		const env = makeEnv();
		const job = fakeJob(env, 'r1', ['running']);
		const maxWaitMs = 3 * MAX_TIMER_MS;
		const [o] = await env.clock.run(
			waitForAll([job], opts({ initialIntervalMs: MAX_TIMER_MS, maxIntervalMs: 2 * MAX_TIMER_MS, maxWaitMs }), undefined, env.clock),
		);
		expect(o.kind).toBe('timeout');
		expect(env.clock.now()).toBe(maxWaitMs);
		expect(Math.max(...env.clock.sleeps)).toBeLessThanOrEqual(MAX_TIMER_MS);
	});

	describe('the real clock (fake timers)', () => {
		beforeEach(() => jest.useFakeTimers());
		afterEach(() => {
			jest.useRealTimers();
			jest.restoreAllMocks();
		});

		it('does not fire a 2^31 ms sleep early', async () => {
			let fired = false;
			const done = realClock.sleep(MAX_TIMER_MS + 1000).then(() => {
				fired = true;
			});
			await jest.advanceTimersByTimeAsync(MAX_TIMER_MS - 1);
			expect(fired).toBe(false);
			await jest.advanceTimersByTimeAsync(1000);
			expect(fired).toBe(false);
			await jest.advanceTimersByTimeAsync(10);
			await done;
			expect(fired).toBe(true);
		});

		it('sleep from n8n-workflow alone would fire such a sleep at once (why the split exists)', async () => {
			jest.spyOn(process, 'emitWarning').mockImplementation(() => {});
			let fired = false;
			void sleep(MAX_TIMER_MS + 1000).then(() => {
				fired = true;
			});
			await jest.advanceTimersByTimeAsync(10);
			expect(fired).toBe(true);
		});
	});
});

describe('options that are not usable numbers', () => {
	const base = opts();

	it('resolves every bad value to a safe one', () => {
		const r = resolveOptions({
			...base,
			initialIntervalMs: NaN,
			maxIntervalMs: NaN,
			maxWaitMs: NaN,
			concurrency: NaN,
			backoffFactor: NaN,
			jitter: NaN,
			maxTransientErrors: NaN,
			firstPollDelayMs: NaN,
			targetDelayMs: NaN,
		});
		expect(r).toMatchObject({
			initialIntervalMs: 1000,
			maxIntervalMs: 10_000,
			maxWaitMs: Infinity,
			concurrency: 1,
			backoffFactor: 1.5,
			jitter: 0.1,
			maxTransientErrors: 3,
			firstPollDelayMs: 0,
		});
		expect(r.targetDelayMs).toBeGreaterThan(0);
		expect(resolveOptions({ ...base, initialIntervalMs: 0 }).initialIntervalMs).toBe(MIN_INTERVAL_MS);
		expect(resolveOptions({ ...base, initialIntervalMs: -5, concurrency: 0 })).toMatchObject({ initialIntervalMs: 1000, concurrency: 1 });
		expect(resolveOptions({ ...base, maxIntervalMs: 500 }).maxIntervalMs).toBe(1000); // never below the first interval
		expect(resolveOptions({ ...base, maxWaitMs: -1 }).maxWaitMs).toBe(Infinity);
		expect(resolveOptions({ ...base, backoffFactor: 0.5, jitter: 7 })).toMatchObject({ backoffFactor: 1.5, jitter: 0.5 });
		expect(resolveOptions({ ...base, concurrency: 2.9 }).concurrency).toBe(2);
	});

	it('a NaN max interval ("10s" from an expression) backs off as usual instead of polling back to back', async () => {
		const env = makeEnv();
		const job = fakeJob(env, 'r1', [...running(8), 'succeeded']);
		const [o] = await env.clock.run(waitForAll([job], opts({ maxIntervalMs: NaN }), undefined, env.clock));
		expect(o.kind).toBe('done');
		expect(diffs(job.pollTimes)).toEqual([1000, 1500, 2250, 3375, 5062.5, 7593.75, 10_000, 10_000]);
	});

	it('NaN or zero intervals never poll back to back', async () => {
		for (const initialIntervalMs of [NaN, 0]) {
			const env = makeEnv();
			const job = fakeJob(env, 'r1', [...running(20), 'succeeded']);
			await env.clock.run(waitForAll([job], opts({ initialIntervalMs, maxIntervalMs: initialIntervalMs }), undefined, env.clock));
			expect(Math.min(...diffs(job.pollTimes))).toBeGreaterThanOrEqual(MIN_INTERVAL_MS);
		}
	});

	it('NaN concurrency ("auto") still polls every job, one at a time', async () => {
		const env = makeEnv(10);
		const jobs = Array.from({ length: 5 }, (_, k) => fakeJob(env, `j${k}`, ['running', 'succeeded']));
		const out = await env.clock.run(waitForAll(jobs, opts({ concurrency: NaN }), undefined, env.clock));
		expect(out.map((o) => o.kind)).toEqual(['done', 'done', 'done', 'done', 'done']);
		expect(env.maxInFlight).toBe(1);
	});

	it('a NaN max wait never gives up on (or cancels) a paid run: it waits until the run ends', async () => {
		const env = makeEnv();
		const job = fakeJob(env, 'r1', [...running(1000), 'succeeded'], { outcome: 'cancelled' });
		const [o] = await env.clock.run(waitForAll([job], opts({ maxWaitMs: NaN, onTimeout: 'cancel' }), undefined, env.clock));
		expect(o.kind).toBe('done');
		expect(job.cancelCalls).toBe(0);
		expect(env.clock.now()).toBeGreaterThan(600_000); // longer than any default deadline
	});
});

describe('the one limiter', () => {
	it('normaliseLimit: NaN, 0 and negative become 1, fractions are floored, Infinity stays', () => {
		expect([NaN, 0, -3, 1, 2.7, Infinity].map(normaliseLimit)).toEqual([1, 1, 1, 1, 2, Infinity]);
	});

	it('Limiter keeps at most N tasks in flight and starts them in order', async () => {
		const limiter = new Limiter(2);
		const started: number[] = [];
		let inFlight = 0;
		let max = 0;
		const gates: Array<() => void> = [];
		const tasks = [0, 1, 2, 3, 4].map((k) =>
			limiter.run(async () => {
				started.push(k);
				inFlight++;
				max = Math.max(max, inFlight);
				await new Promise<void>((resolve) => gates.push(resolve));
				inFlight--;
				return k;
			}),
		);
		while (started.length < 5) {
			await Promise.resolve();
			gates.shift()?.();
			await new Promise((r) => setImmediate(r));
		}
		gates.forEach((open) => open());
		expect(await Promise.all(tasks)).toEqual([0, 1, 2, 3, 4]);
		expect(started).toEqual([0, 1, 2, 3, 4]);
		expect(max).toBe(2);
	});

	it.each([NaN, 0, -1, 1, 3, Infinity])('mapPool with limit %p processes every item, in order', async (limit) => {
		const items = Array.from({ length: 12 }, (_, k) => k);
		let inFlight = 0;
		let max = 0;
		const seen: number[] = [];
		const out = await mapPool(items, limit, async (item) => {
			inFlight++;
			max = Math.max(max, inFlight);
			seen.push(item);
			await new Promise((r) => setImmediate(r));
			inFlight--;
			return item * 2;
		});
		expect(out).toEqual(items.map((k) => k * 2));
		expect(seen).toEqual(items);
		expect(max).toBe(Math.min(items.length, normaliseLimit(limit)));
	});
});
