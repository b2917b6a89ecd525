/**
 * The wait engine learns how long runs of one timing key take and polls around the expected end
 * (nodes/shared/wait/schedule.ts, learning.ts). Everything runs on the virtual clock: no real time passes.
 */
import { DurationStore, timingKey, type WaitOptions } from '../../../nodes/shared/wait';
import { VirtualClock, mean, median, modelRun, spreadRuns, waitForRun, type RunResult, type TimedRun } from './helpers';

const KEY = timingKey('model', 'acme/video');

/** Waits for the runs one after the other (one clock, one store); a run is `{ endMs }` or a TimedRun. */
async function series(runs: TimedRun[], options: WaitOptions, key: string | undefined, clock = new VirtualClock()) {
	const results: RunResult[] = [];
	for (const run of runs) results.push(await waitForRun(clock, run, options, key ? { timingKey: key } : {}));
	return results;
}

const asRuns = (ends: number[], queueMs = 300): TimedRun[] => ends.map((endMs) => ({ queueMs, endMs }));

describe('learned timing', () => {
	it('a key never seen before polls exactly like the plain backoff, and learns from the run', async () => {
		const store = new DurationStore();
		const [plain] = await series(asRuns([20_000]), modelRun(new DurationStore(), { jitter: 0 }), undefined);
		const [keyed] = await series(asRuns([20_000]), modelRun(store, { jitter: 0 }), KEY);
		expect(keyed.pollTimes).toEqual(plain.pollTimes);
		expect(store.has(KEY)).toBe(true);
		// The learned end lies between the last poll that saw the run going and the one that saw it finished.
		const [sample] = store.samples(KEY, 'total');
		expect(sample.lo).toBe(keyed.pollTimes[keyed.pollTimes.length - 2]);
		expect(sample.hi).toBe(keyed.pollTimes[keyed.pollTimes.length - 1]);
		expect(sample.lo).toBeLessThan(20_000);
		expect(sample.hi).toBeGreaterThanOrEqual(20_000);
	});

	it('jobs without a key never learn and never read the store', async () => {
		const store = new DurationStore();
		await series(asRuns(spreadRuns(20_000, 3)), modelRun(store), undefined);
		expect(store.size).toBe(0);
	});

	it.each([20_000, 60_000, 300_000])(
		'runs of %i ms with ±20 %% spread: from the second run on, a far shorter delay than the backoff',
		async (meanMs) => {
			const ends = spreadRuns(meanMs, 25, meanMs);
			const plain = (await series(asRuns(ends), modelRun(new DurationStore()), undefined)).slice(1);
			const learned = (await series(asRuns(ends), modelRun(new DurationStore()), KEY)).slice(1);
			expect(learned.every((r) => r.kind === 'done')).toBe(true);
			const delay = (rs: RunResult[]) => median(rs.map((r) => r.delayMs));
			const requests = (rs: RunResult[]) => mean(rs.map((r) => r.polls));
			expect(delay(learned)).toBeLessThan(delay(plain) / 2);
			// A sub-second delay around a wide window of end times takes many polls: short runs need fewer requests
			// than the backoff, long ones about as many (see bench/lib/detection.js for the trade-off).
			if (meanMs <= 20_000) expect(requests(learned)).toBeLessThan(requests(plain));
			else expect(requests(learned)).toBeLessThan(requests(plain) * 1.5);
			// Never sees a run before it ended (a poll that finds it finished is after the end).
			expect(learned.every((r) => r.delayMs >= 0)).toBe(true);
		},
	);

	it('a learned key sends fewer requests than the backoff for the same delay (backoff with a shorter cap)', async () => {
		// The backoff reaches the learned schedule's delay only with a much shorter interval cap, at many more requests.
		const ends = spreadRuns(20_000, 25, 7);
		const learned = (await series(asRuns(ends), modelRun(new DurationStore()), KEY)).slice(1);
		const fast = (await series(asRuns(ends), modelRun(new DurationStore(), { maxIntervalMs: 1000 }), undefined)).slice(1);
		expect(median(learned.map((r) => r.delayMs))).toBeLessThan(median(fast.map((r) => r.delayMs)));
		expect(mean(learned.map((r) => r.polls))).toBeLessThan(mean(fast.map((r) => r.polls)) / 2);
	});

	it('the learned schedule waits quietly until the expected end: no poll in the first half of a run', async () => {
		const ends = spreadRuns(60_000, 12, 3);
		const results = await series(asRuns(ends), modelRun(new DurationStore()), KEY);
		for (const r of results.slice(3)) expect(Math.min(...r.pollTimes)).toBeGreaterThan(30_000);
	});

	it('learns when a run ended, not when it was seen: each sample brackets the true end, tighter than the backoff sees it', async () => {
		const store = new DurationStore();
		const ends = spreadRuns(20_000, 15, 11);
		const results = await series(asRuns(ends, 0), modelRun(store), KEY);
		const samples = store.samples(KEY, 'total');
		expect(samples).toHaveLength(15);
		samples.forEach((s, k) => {
			expect(s.lo).toBeLessThanOrEqual(ends[k]);
			expect(s.hi).toBeGreaterThanOrEqual(ends[k]);
			expect(s.hi).toBeCloseTo(ends[k] + results[k].delayMs, 6); // the poll that saw it finished
		});
		// From the second run on the learned schedule brackets the end far more tightly than the backoff did.
		const width = (s: { lo: number; hi: number }) => s.hi - s.lo;
		expect(median(samples.slice(1).map(width))).toBeLessThan(width(samples[0]) / 4);
	});

	it('only successful runs are learned', async () => {
		const store = new DurationStore();
		await series(
			[
				{ endMs: 3000, final: 'failed' },
				{ endMs: 3000, final: 'cancelled' },
			],
			modelRun(store),
			KEY,
		);
		expect(store.has(KEY)).toBe(false);
	});

	it('uses the submit time the caller gives: a run submitted before the wait started is polled on its own plan', async () => {
		const store = new DurationStore();
		const clock = new VirtualClock();
		for (const endMs of spreadRuns(20_000, 8, 5)) await waitForRun(clock, { endMs }, modelRun(store), { timingKey: KEY });
		const plan = store.plan(KEY, 'total', 300) as readonly number[];
		// Submitted 5 s before waiting starts: the first poll is at the plan's first time after the submit.
		const start = clock.now();
		const result = await waitForRun(clock, { endMs: 20_000 }, modelRun(store), { timingKey: KEY, submittedAt: start - 5000 });
		expect(result.pollTimes[0]).toBeCloseTo(plan[0] - 5000, 6);
	});

	it('runs that got much faster: seen at the first learned poll, the key is forgotten and relearned', async () => {
		const store = new DurationStore();
		const clock = new VirtualClock();
		const options = modelRun(store);
		for (const endMs of spreadRuns(60_000, 6, 2)) await waitForRun(clock, { endMs }, options, { timingKey: KEY });
		const faster = await waitForRun(clock, { endMs: 5000 }, options, { timingKey: KEY });
		expect(faster.polls).toBe(1);
		expect(store.has(KEY)).toBe(false);
		// The next one starts from the backoff again.
		const [plain] = await series(asRuns([5000], 0), modelRun(new DurationStore()), undefined);
		const next = await waitForRun(clock, { endMs: 5000 }, options, { timingKey: KEY });
		expect(next.polls).toBe(plain.polls);
	});

	it('runs that got slower: past the learned upper end the backoff starts again from the first interval', async () => {
		const store = new DurationStore();
		const clock = new VirtualClock();
		const options = modelRun(store, { jitter: 0 });
		for (const endMs of spreadRuns(20_000, 6, 4)) await waitForRun(clock, { endMs }, options, { timingKey: KEY });
		const plan = store.plan(KEY, 'total', 300) as readonly number[];
		const upper = plan[plan.length - 1];
		const slower = await waitForRun(clock, { endMs: upper + 10_000 }, options, { timingKey: KEY });
		const after = slower.pollTimes.filter((t) => t > upper + 1e-6);
		const gaps = after.slice(0, 3).map((t, k) => t - (k === 0 ? upper : after[k - 1]));
		[1000, 1500, 2250].forEach((gap, k) => expect(gaps[k]).toBeCloseTo(gap, 6));
		expect(slower.kind).toBe('done');
	});
});
