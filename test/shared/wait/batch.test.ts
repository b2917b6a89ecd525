/**
 * A batch of runs of one key teaches the rest of the batch while it runs (nodes/shared/wait/followedPlan.ts,
 * learning.ts `livePlan`, distribution.ts: runs still going count as "ends after where they were last seen").
 * Everything runs on the virtual clock: no real time passes.
 */
import { DurationStore, endDistribution, planPolls, timingKey, waitForAll, type WaitOptions } from '../../../nodes/shared/wait';
import { REPLAN_GROWTH, REPLAN_MIN_NEW } from '../../../nodes/shared/wait/followedPlan';
import { VirtualClock, apiError, median, modelRun, spreadRuns, timedJob } from './helpers';

const KEY = timingKey('model', 'acme/video');
const TARGET_MS = 300;

/** A run of KEY submitted now that is going until `endMs` after it and then succeeded. */
const batchRun = (clock: VirtualClock, id: number, endMs: number) =>
	timedJob(clock, { endMs }, { itemIndex: id, id: `run${id}`, timingKey: KEY });

/** A store that learned `ends` (ms from submit) within ±0.5 s each, as the timestamps of earlier runs teach. */
function learned(ends: number[], store = new DurationStore()): DurationStore {
	for (const end of ends) store.record(KEY, 'total', { lo: end - 500, hi: end + 500 });
	return store;
}

const shareWithin = (delays: number[], ms: number) => delays.filter((d) => d <= ms).length / delays.length;

describe('a batch learns from its own runs while it runs', () => {
	it('runs still going count in the fit: a batch half ended is expected where its runs end, not where its early half did', () => {
		for (const seed of [1, 2, 3]) {
			const ends = spreadRuns(300_000, 200, seed).sort((a, b) => a - b);
			// The 30 runs that ended first, and 170 seen going at the moment the 30th ended.
			const ended = ends.slice(0, 30).map((end) => ({ lo: end - 10, hi: end + 10 }));
			const going = ends.slice(30).map(() => ends[29]);
			const fit = endDistribution(ended, going);
			const endedOnly = endDistribution(ended);
			expect(fit?.median).toBeGreaterThan(300_000 * 0.97);
			expect(fit?.median).toBeLessThan(300_000 * 1.03);
			// From the runs that ended alone, the batch looks 10 % faster than it is.
			expect(endedOnly?.median).toBeLessThan(300_000 * 0.92);
		}
	});

	it('with 190 runs going and 10 ended, the fit still finds where the batch ends (EM iterates until it settles)', () => {
		for (const seed of [1, 2, 3]) {
			const ends = spreadRuns(300_000, 200, seed).sort((a, b) => a - b);
			const fit = endDistribution(
				ends.slice(0, 10).map((end) => ({ lo: end - 10, hi: end + 10 })),
				ends.slice(10).map(() => ends[9]),
			);
			expect(Math.abs((fit?.median ?? 0) / 300_000 - 1)).toBeLessThan(0.025);
		}
	});

	it('a run seen going only at its start, or at a time that is not a number, says nothing', () => {
		const samples = spreadRuns(60_000, 8, 4).map((end) => ({ lo: end - 200, hi: end + 200 }));
		const plain = endDistribution(samples);
		const withNothing = endDistribution(samples, [0, -5, NaN, Infinity]);
		expect(withNothing?.median).toBe(plain?.median);
		expect(withNothing?.hi).toBe(plain?.hi);
		expect(endDistribution([], [50_000])).toBeUndefined();
	});

	/** One batch of 40 runs of about 300 s after 10 learned runs that ended `lateMs` later than the batch's do. */
	async function batch(seed: number, lateMs: number) {
		const store = learned(spreadRuns(300_000, 10, 100 + seed).map((end) => end + lateMs));
		// The plan the batch starts with: what it would follow to the end if its own runs taught it nothing.
		const before = store.plan(KEY, 'total', TARGET_MS) as readonly number[];
		const clock = new VirtualClock();
		const ends = spreadRuns(300_000, 40, 200 + seed);
		const runs = ends.map((end, i) => batchRun(clock, i, end));
		const outcomes = await clock.run(
			waitForAll(
				runs.map((r) => r.job),
				modelRun(store),
				undefined,
				clock,
			),
		);
		expect(outcomes.every((o) => o.kind === 'done')).toBe(true);
		expect(store.liveCount(KEY, 'total')).toBe(0);
		const delays = runs.map((r, i) => r.pollTimes[r.pollTimes.length - 1] - ends[i]);
		expect(delays.every((d) => d >= 0)).toBe(true);
		const planned = ends.map((end) => (before.find((t) => t >= end) ?? Infinity) - end);
		return {
			share: shareWithin(delays, TARGET_MS),
			plannedShare: shareWithin(planned, TARGET_MS),
			closer: median(delays) < median(planned),
			polls: median(runs.map((r) => r.pollTimes.length)),
			plannedPolls: median(ends.map((end) => before.filter((t) => t < end).length + 1)),
		};
	}

	it.each([
		['8 s late (1.3 standard errors of 10 runs)', 8000],
		['as they came', 0],
		['8 s early', -8000],
	])('16 batches, learned times %s: more runs seen in time, fewer requests than a Wait 5 s loop', async (_, lateMs) => {
		const batches: Array<Awaited<ReturnType<typeof batch>>> = [];
		for (let seed = 1; seed <= 16; seed++) batches.push(await batch(seed, lateMs));
		const mean = (pick: (b: (typeof batches)[number]) => number) => batches.reduce((sum, b) => sum + pick(b), 0) / batches.length;
		if (lateMs >= 0) {
			// The first runs to end show the plan was late or uncertain: the rest is polled where its runs end.
			expect(mean((b) => b.share)).toBeGreaterThanOrEqual(mean((b) => b.plannedShare) + 0.03);
			expect(batches.filter((b) => b.closer).length).toBeGreaterThanOrEqual(10);
		} else expect(mean((b) => b.share)).toBeGreaterThanOrEqual(mean((b) => b.plannedShare) - 0.01);
		// The price: at most a quarter more requests than the plan from before, far fewer than a Wait 5 s loop (60).
		expect(mean((b) => b.polls)).toBeLessThanOrEqual(mean((b) => b.plannedPolls) * 1.25);
		expect(mean((b) => b.polls)).toBeLessThan(60);
	});

	it('a job switches only once the key learned REPLAN_GROWTH times its samples and REPLAN_MIN_NEW more', async () => {
		const store = learned(spreadRuns(60_000, 10, 31));
		const clock = new VirtualClock();
		// Four runs that end early teach less than the growth asks; the fifth one is enough.
		const needed = Math.max(10 + REPLAN_MIN_NEW, Math.ceil(10 * REPLAN_GROWTH));
		const spy = jest.spyOn(store, 'livePlan');
		const early = Array.from({ length: needed - 10 - 1 }, (_, i) => batchRun(clock, i, 55_000 + i * 100));
		const late = batchRun(clock, 99, 80_000);
		await clock.run(
			waitForAll(
				[...early, late].map((r) => r.job),
				modelRun(store, { jitter: 0 }),
				undefined,
				clock,
			),
		);
		// (Called when the jobs start, for the plan counting the runs going: from what was learned then, 10.)
		expect(spy.mock.calls.filter(([, , , fromLearned]) => fromLearned > 10)).toEqual([]);

		const fresh = learned(spreadRuns(60_000, 10, 31));
		const freshSpy = jest.spyOn(fresh, 'livePlan');
		const more = Array.from({ length: needed - 10 }, (_, i) => batchRun(clock, i, 55_000 + i * 100));
		const old = fresh.plan(KEY, 'total', TARGET_MS) as readonly number[];
		const lasts = [batchRun(clock, 98, 80_000), batchRun(clock, 99, 85_000)];
		await clock.run(
			waitForAll(
				[...more, ...lasts].map((r) => r.job),
				modelRun(fresh, { jitter: 0 }),
				undefined,
				clock,
			),
		);
		// Both runs still going switch, to one plan made once for both.
		const switches = freshSpy.mock.calls.flatMap(([, , , fromLearned], k) => (fromLearned > 10 ? [freshSpy.mock.results[k]] : []));
		expect(switches).toHaveLength(2);
		const [a, b] = switches.map((r) => r.value as { learned: number; offsets: number[] });
		expect(a).toBe(b);
		expect(a.learned).toBe(needed);
		// From their next poll on they follow it.
		for (const run of lasts) expect(run.pollTimes.some((t) => a.offsets.includes(t) && !old.includes(t))).toBe(true);
	});

	it("a run submitted while an earlier batch is half done is planned counting that batch's runs still going", async () => {
		const store = learned(spreadRuns(300_000, 10, 61));
		const clock = new VirtualClock();
		const ends = spreadRuns(300_000, 20, 62).sort((a, b) => a - b);
		const first = ends.map((end, i) => batchRun(clock, i, end));
		const firstDone = waitForAll(
			first.map((r) => r.job),
			modelRun(store),
			undefined,
			clock,
		);
		let later: ReturnType<typeof batchRun> | undefined;
		let laterDone: Promise<unknown> | undefined;
		let samplesOnly: readonly number[] = [];
		let counted: readonly number[] = [];
		// Submitted just after the batch's 8th run ended.
		clock.at(ends[7] + 5000, () => {
			samplesOnly = store.plan(KEY, 'total', TARGET_MS) as readonly number[];
			const going = first.filter((r, i) => clock.now() < ends[i]).length;
			expect(store.liveCount(KEY, 'total')).toBe(going);
			counted = (store.livePlan(KEY, 'total', TARGET_MS, store.learnedCount(KEY, 'total')) as { offsets: readonly number[] }).offsets;
			later = batchRun(clock, 99, 300_000);
			laterDone = waitForAll([later.job], modelRun(store, { jitter: 0 }), undefined, clock);
		});
		await clock.run(firstDone);
		await clock.run(laterDone as Promise<unknown>);
		expect(counted).not.toEqual(samplesOnly);
		// Its first poll is the counted plan's first (the lower end), not the one from the samples alone.
		expect(later!.pollTimes[0]).toBeCloseTo(counted[0], 3);
		expect(samplesOnly.some((t) => Math.abs(t - later!.pollTimes[0]) < 1)).toBe(false);
	});

	it('a run no longer waited for is no longer counted as going: done, failed, timed out or stopped', async () => {
		const store = learned(spreadRuns(20_000, 10, 41));
		const clock = new VirtualClock();
		const done = batchRun(clock, 0, 19_000);
		const failing = batchRun(clock, 1, 1e9);
		let polls = 0;
		failing.job.poll = async () => {
			polls++;
			if (polls > 2) throw apiError(404);
			return { state: 'running', record: {} };
		};
		const endless = batchRun(clock, 2, 1e9);
		const outcomes = await clock.run(
			waitForAll([done.job, failing.job, endless.job], modelRun(store, { maxWaitMs: 60_000 }), undefined, clock),
		);
		expect(outcomes.map((o) => o.kind)).toEqual(['done', 'error', 'timeout']);
		expect(store.liveCount(KEY, 'total')).toBe(0);

		const stop = new AbortController();
		const stopped = [batchRun(clock, 3, 1e9), batchRun(clock, 4, 1e9)];
		clock.at(clock.now() + 19_000, () => {
			expect(store.liveCount(KEY, 'total')).toBe(2);
			stop.abort();
		});
		const ends = await clock.run(
			waitForAll(
				stopped.map((r) => r.job),
				modelRun(store, { cancelOnStop: false }),
				stop.signal,
				clock,
			),
		);
		expect(ends.map((o) => o.kind)).toEqual(['stopped', 'stopped']);
		expect(store.liveCount(KEY, 'total')).toBe(0);
	});
});

describe('DurationStore: runs being waited for', () => {
	it('counts runs from watch to release; forgetting what was learned keeps them', () => {
		const store = learned([20_000]);
		expect(store.watch(timingKey('model', 'unknown'), 'total')).toBeUndefined();
		const a = store.watch(KEY, 'total');
		const b = store.watch(KEY, 'total');
		const c = store.watch(KEY, 'run');
		expect(store.liveCount(KEY, 'total')).toBe(2);
		expect(store.liveCount(KEY, 'run')).toBe(1);
		store.release(KEY, 'total', a!);
		store.release(KEY, 'total', a!);
		expect(store.liveCount(KEY, 'total')).toBe(1);
		store.forget(KEY);
		expect(store.has(KEY)).toBe(false);
		expect(store.liveCount(KEY, 'total')).toBe(1);
		expect(store.learnedCount(KEY, 'total')).toBe(1);
		// What is learned after the forgetting is all the run's to be fitted with.
		store.record(KEY, 'total', { lo: 15_000, hi: 15_100 });
		b!.going = 16_000;
		expect(store.livePlan(KEY, 'total', TARGET_MS, 2)?.learned).toBe(2);
		store.release(KEY, 'total', b!);
		store.release(KEY, 'run', c!);
		store.forget(KEY);
		expect(store.size).toBe(0);
		expect(store.learnedCount(KEY, 'total')).toBe(0);
	});

	it('livePlan counts the runs going, is made once per amount learned, and is shared', () => {
		const store = learned(spreadRuns(60_000, 10, 51).map((end) => end - 6000));
		const runs = Array.from({ length: 10 }, () => store.watch(KEY, 'total')!);
		for (const run of runs) run.going = 60_000;
		const first = store.livePlan(KEY, 'total', TARGET_MS, 10);
		expect(first?.learned).toBe(10);
		// Ten runs going past where the samples expect nearly every end: the plan moves later than the samples' own.
		const own = store.plan(KEY, 'total', TARGET_MS) as readonly number[];
		expect(first!.offsets[first!.offsets.length - 1]).toBeGreaterThan(own[own.length - 1]);
		expect(first!.offsets).toEqual(
			planPolls(
				endDistribution(
					store.samples(KEY, 'total'),
					runs.map((r) => r.going),
				)!,
				{ targetDelayMs: TARGET_MS },
			),
		);
		// Asked again for no more than it was made from: the same plan, not a new fit.
		runs[0].going = 90_000;
		expect(store.livePlan(KEY, 'total', TARGET_MS, 10)).toBe(first);
		store.record(KEY, 'total', { lo: 61_000, hi: 61_100 });
		const second = store.livePlan(KEY, 'total', TARGET_MS, 11);
		expect(second).not.toBe(first);
		expect(second?.learned).toBe(11);
	});

	it('livePlan refuses once the samples no longer hold every run that ended since the oldest run going was registered', () => {
		const store = new DurationStore({ samplesPerSource: 4 });
		learned([10_000, 10_100, 10_200], store);
		const run = store.watch(KEY, 'total')!;
		run.going = 9000;
		for (const end of [9000, 9100, 9200, 9300]) store.record(KEY, 'total', { lo: end, hi: end + 10 });
		expect(store.livePlan(KEY, 'total', TARGET_MS, 7)).toBeDefined();
		store.record(KEY, 'total', { lo: 9400, hi: 9410 });
		// Five ended since the run was registered, four are kept: the earliest of the batch would be missing.
		expect(store.livePlan(KEY, 'total', TARGET_MS, 8)).toBeUndefined();
		store.release(KEY, 'total', run);
		expect(store.livePlan(KEY, 'total', TARGET_MS, 8)).toBeDefined();
	});
});

describe('polling goal "Fewest Requests" in a batch', () => {
	/** 40 runs of about 300 s together after 10 learned ones, waited for with `o`; polls per run and the livePlan calls. */
	async function batchOf(seed: number, o: Partial<WaitOptions>) {
		const store = learned(spreadRuns(300_000, 10, 100 + seed));
		const spy = jest.spyOn(store, 'livePlan');
		const clock = new VirtualClock();
		const ends = spreadRuns(300_000, 40, 200 + seed);
		const runs = ends.map((end, i) => batchRun(clock, i, end));
		const outcomes = await clock.run(
			waitForAll(
				runs.map((r) => r.job),
				modelRun(store, o),
				undefined,
				clock,
			),
		);
		expect(outcomes.every((o) => o.kind === 'done')).toBe(true);
		expect(store.liveCount(KEY, 'total')).toBe(0);
		const replans = spy.mock.calls.filter(([, , , fromLearned]) => fromLearned > 10).length;
		return {
			polls: median(runs.map((r) => r.pollTimes.length)),
			delay: median(runs.map((r, i) => r.pollTimes[r.pollTimes.length - 1] - ends[i])),
			replans,
		};
	}

	it('the typical run is seen with three requests, the batch keeps the plans it started with, and the end is seen later', async () => {
		for (let seed = 1; seed <= 6; seed++) {
			const fewest = await batchOf(seed, { pollingGoal: 'fewestRequests' });

			const quickest = await batchOf(seed, {});
			expect(fewest.polls).toBeLessThanOrEqual(3);
			expect(quickest.polls).toBeGreaterThan(3);
			// Its runs that end teach nothing to the plans of the runs going: a new plan's polls would be paid on top.
			expect(fewest.replans).toBe(0);
			expect(quickest.replans).toBeGreaterThan(0);
			expect(fewest.delay).toBeGreaterThan(quickest.delay);
		}
	});
});
