import type { IDataObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { WaitJob, WaitOutcome } from '../../../nodes/shared/wait';
import { httpStatusOf, isTransientError, parseRetryAfter, realClock, retryAfterMsOf, waitForAll } from '../../../nodes/shared/wait';

import { VirtualClock, apiError, diffs, fakeJob, makeEnv, opts, running, type Env } from './helpers';

describe('waitForAll', () => {
	it('polls a batch of 100 jobs together, never more than `concurrency` in flight, in about the time of the slowest', async () => {
		const env = makeEnv(50);
		const jobs = Array.from({ length: 100 }, (_, k) => fakeJob(env, `job${k}`, [...running(k % 5), 'succeeded']));
		const outcomes = await env.clock.run(waitForAll(jobs, opts({ concurrency: 10 }), undefined, env.clock));

		expect(outcomes).toHaveLength(100);
		expect(outcomes.every((o) => o.kind === 'done' && o.state === 'succeeded')).toBe(true);
		expect(outcomes.map((o) => o.job.id)).toEqual(jobs.map((j) => j.id));
		expect(outcomes.map((o) => o.polls)).toEqual(jobs.map((_, k) => (k % 5) + 1));
		expect(env.maxInFlight).toBeLessThanOrEqual(10);
		expect(env.maxInFlight).toBe(10); // the limit is actually used
		// Parallel progress: every job had its first poll before the slowest jobs made their third.
		const firstPolls = Math.max(...jobs.map((j) => j.pollTimes[0]));
		const thirdPolls = Math.min(...jobs.filter((j) => j.pollTimes.length >= 3).map((j) => j.pollTimes[2]));
		expect(firstPolls).toBeLessThan(thirdPolls);
		// The slowest job alone: 5 polls of 50 ms + sleeps 1000 + 1500 + 2250 + 3375 = 8375 ms.
		// All 100 together take about that (plus some queueing), not the sum (> 100 × 1 s).
		expect(env.clock.now()).toBeGreaterThanOrEqual(8375);
		expect(env.clock.now()).toBeLessThan(8375 + 2000);
	});

	it('backs off ×1.5 from the initial interval and caps at the maximum', async () => {
		const env = makeEnv();
		const job = fakeJob(env, 'r1', [...running(10), 'succeeded']);
		const [outcome] = await env.clock.run(
			waitForAll([job], opts({ initialIntervalMs: 1000, maxIntervalMs: 6000, maxWaitMs: 3_600_000 }), undefined, env.clock),
		);
		expect(outcome.kind).toBe('done');
		expect(job.pollTimes[0]).toBe(0); // first poll immediately
		expect(diffs(job.pollTimes)).toEqual([1000, 1500, 2250, 3375, 5062.5, 6000, 6000, 6000, 6000, 6000]);
		expect(env.clock.sleeps.every((ms) => ms <= 6000)).toBe(true);
	});

	it('firstPollDelayMs: the first poll waits that long, then the usual backoff follows', async () => {
		const env = makeEnv();
		const job = fakeJob(env, 'r1', [...running(2), 'succeeded']);
		const [outcome] = await env.clock.run(
			waitForAll([job], opts({ initialIntervalMs: 1000, maxIntervalMs: 6000, firstPollDelayMs: 1000 }), undefined, env.clock),
		);
		expect(outcome.kind).toBe('done');
		expect(job.pollTimes[0]).toBe(1000);
		expect(diffs(job.pollTimes)).toEqual([1000, 1500]);
	});

	it('applies a small jitter but never exceeds the cap', async () => {
		const env = makeEnv();
		const clock = Object.assign(env.clock, { random: () => 0.999 });
		const job = fakeJob(env, 'r1', [...running(6), 'succeeded']);
		await clock.run(waitForAll([job], opts({ maxIntervalMs: 3000, jitter: 0.1 }), undefined, clock));
		const d = diffs(job.pollTimes);
		expect(d[0]).toBeCloseTo(1000 * 1.0998, 3);
		expect(d[1]).toBeCloseTo(1500 * 1.0998, 3);
		expect(d.slice(3)).toEqual([3000, 3000, 3000]);
	});

	describe('deadline', () => {
		const neverEnds = (env: Env, cancel?: IDataObject | Error) => fakeJob(env, 'r7', ['queued', 'running'], cancel);

		it("'fail' → timeout outcome with the last record, last poll at the deadline, no cancel", async () => {
			const env = makeEnv();
			const job = neverEnds(env, { outcome: 'cancelled' });
			const [o] = await env.clock.run(waitForAll([job], opts({ maxWaitMs: 5000, onTimeout: 'fail' }), undefined, env.clock));
			expect(o).toMatchObject({ kind: 'timeout', state: 'running', record: { id: 'r7', status: 'running' } });
			expect(o.kind === 'timeout' && o.cancel).toBeUndefined();
			expect(job.cancelCalls).toBe(0);
			expect(job.pollTimes).toEqual([0, 1000, 2500, 4750, 5000]);
			expect(env.clock.now()).toBe(5000);
		});

		it("'returnRunning' → timeout outcome without cancelling", async () => {
			const env = makeEnv();
			const job = neverEnds(env, { outcome: 'cancelled' });
			const [o] = await env.clock.run(waitForAll([job], opts({ maxWaitMs: 2000, onTimeout: 'returnRunning' }), undefined, env.clock));
			expect(o).toMatchObject({ kind: 'timeout', state: 'running', polls: 3 });
			expect(job.cancelCalls).toBe(0);
		});

		it("'cancel' → calls cancel once and records its answer", async () => {
			const env = makeEnv();
			const job = neverEnds(env, { request_id: 'r7', outcome: 'not_cancellable' });
			const [o] = await env.clock.run(waitForAll([job], opts({ maxWaitMs: 2000, onTimeout: 'cancel' }), undefined, env.clock));
			expect(o).toMatchObject({ kind: 'timeout', cancel: { outcome: 'not_cancellable' } });
			expect(job.cancelCalls).toBe(1);
		});

		it("'cancel' with a failing cancel call still yields the timeout (with the failure recorded)", async () => {
			const env = makeEnv();
			const job = neverEnds(env, apiError(500));
			const [o] = await env.clock.run(waitForAll([job], opts({ maxWaitMs: 2000, onTimeout: 'cancel' }), undefined, env.clock));
			expect(o).toMatchObject({ kind: 'timeout', cancel: { outcome: 'cancel_failed', httpCode: 500 } });
		});

		it('each job has its own deadline result; finished jobs are not affected', async () => {
			const env = makeEnv();
			const fast = fakeJob(env, 'a1', ['running', 'succeeded']);
			const slow = neverEnds(env);
			const out = await env.clock.run(waitForAll([slow, fast], opts({ maxWaitMs: 3000 }), undefined, env.clock));
			expect(out.map((o) => o.kind)).toEqual(['timeout', 'done']);
		});
	});

	describe('errors while polling', () => {
		it('honours Retry-After on 429 (seconds from a response header)', async () => {
			const env = makeEnv();
			const limited = Object.assign(apiError(429), { response: { headers: { 'Retry-After': '7' } } });
			const job = fakeJob(env, 'r1', ['running', limited, 'succeeded']);
			const [o] = await env.clock.run(waitForAll([job], opts(), undefined, env.clock));
			expect(o.kind).toBe('done');
			expect(job.pollTimes).toEqual([0, 1000, 8000]);
		});

		it('honours retryAfterMs put on the error context by the transport, and 429 does not count as a failure', async () => {
			const env = makeEnv();
			const limited = () => {
				const e = apiError(429);
				e.context.retryAfterMs = 4000;
				return e;
			};
			const job = fakeJob(env, 'r1', [limited, limited, limited, limited, limited, 'succeeded']);
			const [o] = await env.clock.run(waitForAll([job], opts({ maxTransientErrors: 1 }), undefined, env.clock));
			expect(o.kind).toBe('done');
			expect(diffs(job.pollTimes)).toEqual([4000, 4000, 4000, 4000, 4000]);
		});

		it('429 without Retry-After waits the normal interval', async () => {
			const env = makeEnv();
			const job = fakeJob(env, 'r1', [apiError(429), 'succeeded']);
			await env.clock.run(waitForAll([job], opts(), undefined, env.clock));
			expect(job.pollTimes).toEqual([0, 1000]);
		});

		it('a Retry-After beyond the deadline ends the wait at once as a timeout', async () => {
			const env = makeEnv();
			const limited = Object.assign(apiError(429), { response: { headers: { 'retry-after': '120' } } });
			const job = fakeJob(env, 'r1', [limited]);
			const [o] = await env.clock.run(waitForAll([job], opts({ maxWaitMs: 60_000 }), undefined, env.clock));
			expect(o.kind).toBe('timeout');
			expect(job.pollTimes).toEqual([0]);
			expect(env.clock.now()).toBe(0);
		});

		it('retries transient errors (5xx, dropped connection) a bounded number of times in a row', async () => {
			const env = makeEnv();
			const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
			const recovers = fakeJob(env, 'a1', [apiError(503), reset, apiError(502), 'running', apiError(500), 'succeeded']);
			const broken = fakeJob(env, 'b2', [apiError(503)]);
			const out = await env.clock.run(waitForAll([recovers, broken], opts({ maxTransientErrors: 3 }), undefined, env.clock));
			expect(out[0]).toMatchObject({ kind: 'done', state: 'succeeded', polls: 6 });
			expect(out[1].kind).toBe('error');
			expect(out[1].polls).toBe(4); // 1 + 3 retries
			const err = out[1].kind === 'error' ? out[1].error : undefined;
			expect(err).toBeInstanceOf(NodeApiError);
			expect((err as NodeApiError).httpCode).toBe('503'); // the transport's error is passed on as it is
		});

		it('a 4xx other than 429 ends only that job, at once', async () => {
			const env = makeEnv();
			const a = fakeJob(env, 'a0', ['running', 'succeeded']);
			const b = fakeJob(env, 'b1', [apiError(404)]);
			const c = fakeJob(env, 'c2', ['running', 'running', 'failed']);
			const out = await env.clock.run(waitForAll([a, b, c], opts(), undefined, env.clock));
			expect(out.map((o) => o.kind)).toEqual(['done', 'error', 'done']);
			expect(out[1]).toMatchObject({ polls: 1, job: { id: 'b1' } });
			expect(b.pollTimes).toEqual([0]);
			expect(out[2]).toMatchObject({ state: 'failed' });
		});

		it('an unknown programming error is not retried', async () => {
			const env = makeEnv();
			const job = fakeJob(env, 'r1', [new TypeError('x is not a function')]);
			const [o] = await env.clock.run(waitForAll([job], opts(), undefined, env.clock));
			expect(o.kind).toBe('error');
			expect(o.polls).toBe(1);
		});
	});

	describe('Stop (execution cancel signal)', () => {
		function scenario(env: Env) {
			return [
				fakeJob(env, 'done0', ['running', 'succeeded'], { outcome: 'cancelled' }),
				fakeJob(env, 'queued1', ['queued'], { request_id: 'queued1', outcome: 'cancelled' }),
				fakeJob(env, 'running2', ['running'], { request_id: 'running2', outcome: 'not_cancellable' }),
				fakeJob(env, 'nocancel3', ['running']),
			];
		}

		it('with cancelOnStop: cancels every job not yet terminal, reports them stopped with the answer', async () => {
			const env = makeEnv();
			const jobs = scenario(env);
			const ac = new AbortController();
			env.clock.at(3000, () => ac.abort());
			const out = await env.clock.run(waitForAll(jobs, opts({ cancelOnStop: true }), ac.signal, env.clock));
			expect(out.map((o) => o.kind)).toEqual(['done', 'stopped', 'stopped', 'stopped']);
			expect(jobs.map((j) => j.cancelCalls)).toEqual([0, 1, 1, 0]);
			expect(out[1]).toMatchObject({ state: 'queued', cancel: { outcome: 'cancelled' } });
			expect(out[2]).toMatchObject({ state: 'running', cancel: { outcome: 'not_cancellable' } });
			expect(out[3]).toMatchObject({ state: 'running', cancel: { outcome: 'not_supported' } });
			expect(env.clock.now()).toBe(3000); // stopped at once, no further sleeping
			expect(env.clock.pendingTimers()).toBe(0);
		});

		it('without cancelOnStop (training, datasets): only stops watching', async () => {
			const env = makeEnv();
			const jobs = scenario(env);
			const ac = new AbortController();
			env.clock.at(3000, () => ac.abort());
			const out = await env.clock.run(waitForAll(jobs, opts({ cancelOnStop: false }), ac.signal, env.clock));
			expect(out.map((o) => o.kind)).toEqual(['done', 'stopped', 'stopped', 'stopped']);
			expect(jobs.map((j) => j.cancelCalls)).toEqual([0, 0, 0, 0]);
			expect(out.every((o) => !('cancel' in o) || o.cancel === undefined)).toBe(true);
		});

		it('a poll in flight when Stop is pressed that fails with the abort still yields stopped (not error)', async () => {
			const env = makeEnv();
			const ac = new AbortController();
			const job: WaitJob = {
				itemIndex: 0,
				id: 'r1',
				poll: async () => {
					await env.clock.sleep(500, ac.signal);
					return { state: 'running', record: {} };
				},
				cancel: async () => ({ outcome: 'cancelled' }),
			};
			env.clock.at(200, () => ac.abort());
			const [o] = await env.clock.run(waitForAll([job], opts(), ac.signal, env.clock));
			expect(o).toMatchObject({ kind: 'stopped', cancel: { outcome: 'cancelled' } });
		});

		it('an already aborted signal polls nothing and still returns one outcome per job', async () => {
			const env = makeEnv();
			const jobs = scenario(env);
			const ac = new AbortController();
			ac.abort();
			const out = await env.clock.run(waitForAll(jobs, opts({ cancelOnStop: false }), ac.signal, env.clock));
			expect(out.map((o) => o.kind)).toEqual(['stopped', 'stopped', 'stopped', 'stopped']);
			expect(jobs.every((j) => j.pollTimes.length === 0)).toBe(true);
		});
	});

	describe('cancellation requested on the service', () => {
		it("keeps polling a 'cancelling' job until it is terminal", async () => {
			const env = makeEnv();
			const job = fakeJob(env, 'd1', ['running', 'cancelling', 'cancelling', 'cancelled']);
			const [o] = await env.clock.run(waitForAll([job], opts(), undefined, env.clock));
			expect(o).toMatchObject({ kind: 'done', state: 'cancelled', polls: 4 });
		});

		it("stops at 'cancelling' when followCancellation is false", async () => {
			const env = makeEnv();
			const job = fakeJob(env, 'd1', ['running', 'cancelling', 'cancelled']);
			const [o] = await env.clock.run(waitForAll([job], opts({ followCancellation: false }), undefined, env.clock));
			expect(o).toMatchObject({ kind: 'done', state: 'cancelling', polls: 2 });
		});
	});

	it('returns one outcome per job in input order, whatever order they finish in', async () => {
		const env = makeEnv(10);
		const jobs = [5, 1, 4, 2, 3].map((n, k) => fakeJob(env, `j${k}`, [...running(n), 'succeeded']));
		const out = await env.clock.run(waitForAll(jobs, opts({ concurrency: 2 }), undefined, env.clock));
		expect(out.map((o: WaitOutcome) => o.job)).toEqual(jobs);
		expect(out.map((o) => o.polls)).toEqual([6, 2, 5, 3, 4]);
	});

	it('handles an empty batch', async () => {
		await expect(waitForAll([], opts(), undefined, new VirtualClock())).resolves.toEqual([]);
	});

	it('works with the real clock (n8n-workflow sleep) for tiny intervals', async () => {
		let n = 0;
		const job: WaitJob = {
			itemIndex: 0,
			id: 'r1',
			poll: async () => ({ state: ++n >= 3 ? 'succeeded' : 'running', record: { n } }),
		};
		const [o] = await waitForAll([job], opts({ initialIntervalMs: 1, maxIntervalMs: 2 }), new AbortController().signal, realClock);
		expect(o).toMatchObject({ kind: 'done', polls: 3, record: { n: 3 } });
	});

	it('the real clock stops a sleep when the signal aborts', async () => {
		const ac = new AbortController();
		const job: WaitJob = {
			itemIndex: 0,
			id: 'r1',
			poll: async () => {
				queueMicrotask(() => ac.abort());
				return { state: 'running', record: {} };
			},
		};
		// A 10-minute interval: the test only finishes because the abort ends the sleep.
		const [o] = await waitForAll(
			[job],
			opts({ initialIntervalMs: 600_000, maxIntervalMs: 600_000, cancelOnStop: false }),
			ac.signal,
			realClock,
		);
		expect(o.kind).toBe('stopped');
	});
});

describe('error helpers', () => {
	it('reads the HTTP status from NodeApiError and raw errors', () => {
		expect(httpStatusOf(apiError(429))).toBe(429);
		expect(httpStatusOf({ response: { status: 503 } })).toBe(503);
		expect(httpStatusOf(new Error('x'))).toBeUndefined();
	});

	it('parses Retry-After as seconds or an HTTP date', () => {
		expect(parseRetryAfter('5', 0)).toBe(5000);
		expect(parseRetryAfter(['2'], 0)).toBe(2000);
		const now = Date.parse('2026-01-01T00:00:00Z');
		expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30000);
		expect(parseRetryAfter('soon', 0)).toBeUndefined();
		expect(retryAfterMsOf({ cause: { response: { headers: { 'retry-after': '3' } } } }, 0)).toBe(3000);
		expect(retryAfterMsOf({ retryAfter: 9 }, 0)).toBe(9000);
	});

	it('classifies transient errors', () => {
		expect(isTransientError(apiError(502))).toBe(true);
		expect(isTransientError(apiError(408))).toBe(true);
		expect(isTransientError(apiError(404))).toBe(false);
		expect(isTransientError(Object.assign(new Error('boom'), { code: 'ECONNRESET' }))).toBe(true);
		expect(isTransientError(new TypeError('x is not a function'))).toBe(false);
	});
});
