/**
 * The service's timestamps of a finished run narrow what the wait engine learned from its polls
 * (narrowRunTime in nodes/shared/wait/engine.ts, DurationStore.narrow). On the virtual clock.
 */
import {
	DurationStore,
	endDistribution,
	narrowRunTime,
	planPolls,
	timingKey,
	waitForAll,
	type EndDistribution,
	type WaitJob,
} from '../../../nodes/shared/wait';
import { VirtualClock, median, opts, spreadRuns } from './helpers';

const KEY = timingKey('model', 'acme/image');

/** One run ending `endMs` after its submit, waited for with the plain backoff; returns the job and its sample. */
async function finishedRun(store: DurationStore, endMs: number) {
	const clock = new VirtualClock();
	const job: WaitJob = {
		itemIndex: 0,
		id: 'r1',
		timingKey: KEY,
		submittedAt: 0,
		poll: async () => (clock.now() < endMs ? { state: 'running', record: {} } : { state: 'succeeded', record: {} }),
	};
	const options = opts({ durations: store, firstPollDelayMs: 1000, initialIntervalMs: 1000, jitter: 0, maxWaitMs: 600_000 });
	const [outcome] = await clock.run(waitForAll([job], options, undefined, clock));
	expect(outcome.kind).toBe('done');
	return { job, sample: store.samples(KEY, 'total')[0] };
}

/** Runs one after the other, each narrowed afterwards to its true time (±1 ms) when `timestamps`. */
async function series(store: DurationStore, ends: number[], timestamps: boolean) {
	const clock = new VirtualClock();
	const out: Array<{ requests: number; delayMs: number }> = [];
	for (const [i, endMs] of ends.entries()) {
		const submittedAt = clock.now();
		let requests = 0;
		let seenAt = 0;
		const job: WaitJob = {
			itemIndex: 0,
			id: `run${i}`,
			timingKey: KEY,
			submittedAt,
			poll: async () => {
				requests++;
				if (clock.now() - submittedAt < endMs) return { state: 'running', record: {} };
				seenAt = clock.now() - submittedAt;
				return { state: 'succeeded', record: {} };
			},
		};
		const options = opts({ durations: store, firstPollDelayMs: 1000, initialIntervalMs: 1000, jitter: 0.1, maxWaitMs: 3_600_000 });
		await clock.run(waitForAll([job], options, undefined, clock));
		if (timestamps) narrowRunTime(job, { lo: endMs - 1, hi: endMs + 1 });
		out.push({ requests, delayMs: seenAt - endMs });
		clock.t += 60_000;
	}
	return out;
}

describe("narrowing a learned run time with the service's timestamps", () => {
	it('the polls bracket the end seconds wide; the timestamps narrow it to their window', async () => {
		const store = new DurationStore();
		const { job, sample } = await finishedRun(store, 7_300);
		// Backoff polls at 1, 2, 3.5, 5.75, 9.125 s: the end lies somewhere in (5.75, 9.125].
		expect(sample).toEqual({ lo: 5_750, hi: 9_125 });
		const wide = store.plan(KEY, 'total', 300) as readonly number[];
		narrowRunTime(job, { lo: 7_298, hi: 7_305 });
		expect(store.samples(KEY, 'total')).toEqual([{ lo: 7_298, hi: 7_305 }]);
		// The plan is computed again from the narrowed sample: a tighter window around 7.3 s, without the poll at
		// its lower end (the timestamps, not that poll, now teach each run's time).
		const narrow = store.plan(KEY, 'total', 300) as readonly number[];
		expect(narrow).not.toBe(wide);
		expect(narrow[narrow.length - 1] - narrow[0]).toBeLessThan(wide[wide.length - 1] - wide[0]);
		expect(wide[0]).toBe((endDistribution([sample]) as EndDistribution).lo);
		expect(narrow[0]).toBeGreaterThan((endDistribution([{ lo: 7_298, hi: 7_305 }]) as EndDistribution).lo);
	});

	it('keeps only what both agree on, ignores a window that does not overlap, and narrows once', async () => {
		const store = new DurationStore();
		const { job } = await finishedRun(store, 7_300);
		narrowRunTime(job, { lo: 8_000, hi: 9_500 }); // overlaps only (8, 9.125]
		expect(store.samples(KEY, 'total')).toEqual([{ lo: 8_000, hi: 9_125 }]);
		narrowRunTime(job, { lo: 8_050, hi: 8_060 }); // a second call changes nothing
		expect(store.samples(KEY, 'total')).toEqual([{ lo: 8_000, hi: 9_125 }]);

		const other = new DurationStore();
		const second = await finishedRun(other, 7_300);
		narrowRunTime(second.job, { lo: 20_000, hi: 21_000 }); // the timestamps mean something else
		expect(other.samples(KEY, 'total')).toEqual([{ lo: 5_750, hi: 9_125 }]);
	});

	it('a store that fails while narrowing does not make narrowRunTime throw (the fetched result stays good)', async () => {
		class BrokenStore extends DurationStore {
			narrow(): void {
				throw new Error('broken');
			}
		}
		const store = new BrokenStore();
		const { job } = await finishedRun(store, 7_300);
		expect(() => narrowRunTime(job, { lo: 7_298, hi: 7_305 })).not.toThrow();
	});

	it('a job that taught nothing (a failed run) is left alone', async () => {
		const store = new DurationStore();
		const clock = new VirtualClock();
		const job: WaitJob = { itemIndex: 0, id: 'r2', timingKey: KEY, poll: async () => ({ state: 'failed', record: {} }) };
		await clock.run(waitForAll([job], opts({ durations: store }), undefined, clock));
		narrowRunTime(job, { lo: 1, hi: 2 });
		expect(store.has(KEY)).toBe(false);
	});

	it('with timestamps, runs of 2 s take one status request each from the second on, seen as soon as before', async () => {
		const ends = spreadRuns(2_300, 40, 21);
		const withStamps = (await series(new DurationStore(), ends, true)).slice(1);
		const pollsOnly = (await series(new DurationStore(), ends, false)).slice(1);
		expect(median(withStamps.map((r) => r.requests))).toBe(1);
		expect(median(pollsOnly.map((r) => r.requests))).toBe(2);
		expect(median(withStamps.map((r) => r.delayMs))).toBeLessThan(500);
		expect(withStamps.every((r) => r.delayMs >= 0)).toBe(true);
	});

	it('with timestamps, runs that got much faster drop what was learned before (one run is enough)', async () => {
		const store = new DurationStore();
		await series(store, spreadRuns(60_000, 6, 4), true);
		expect(store.samples(KEY, 'total')).toHaveLength(6);
		const [faster] = await series(store, [10_000], true);
		expect(store.samples(KEY, 'total')).toEqual([{ lo: 9_999, hi: 10_001 }]);
		// It was seen late (its plan expected a minute); the next one is planned around 10 s.
		expect(faster.delayMs).toBeGreaterThan(5_000);
		const [next] = await series(store, [10_050], true);
		expect(next.delayMs).toBeLessThan(1_000);
	});

	it('with timestamps, one run just below the lower end of a narrowly learned model is learned with the rest, not a reason to drop them', async () => {
		// Ten runs of a 60 s model that came out close together and late (the real-n8n bench's warm-up of 23:48).
		const warmUp = [58_995, 58_872, 60_820, 62_328, 63_880, 67_480, 63_400, 62_169, 62_937, 62_071];
		const store = new DurationStore();
		await series(store, warmUp, true);
		const learned = endDistribution(store.samples(KEY, 'total')) as EndDistribution;
		// A run of 49.9 s (the bound of ±20 % is 48 s) ends below what those ten expect at all…
		expect(49_890).toBeLessThan(learned.lo);
		await series(store, [49_890], true);
		// …and is one more sample: the ten stay, and the fit widens to hold it.
		expect(store.samples(KEY, 'total')).toHaveLength(11);
		expect((endDistribution(store.samples(KEY, 'total')) as EndDistribution).lo).toBeLessThan(49_890);
		// A run far below (the model got twice as fast) still drops them.
		await series(store, [30_000], true);
		expect(store.samples(KEY, 'total')).toEqual([{ lo: 29_999, hi: 30_001 }]);
	});

	it('planPolls without the poll at the lower end is the same schedule minus that poll', () => {
		const dist = endDistribution([
			{ lo: 19_800, hi: 20_000 },
			{ lo: 20_500, hi: 20_700 },
			{ lo: 21_000, hi: 21_300 },
		]) as EndDistribution;
		const full = planPolls(dist, { targetDelayMs: 300 });
		expect(planPolls(dist, { targetDelayMs: 300, pollAtLowerEnd: false })).toEqual(full.slice(1));
		expect(full[0]).toBe(dist.lo);
	});
});
