/**
 * What is learned about run times (nodes/shared/wait/distribution.ts, learning.ts) and where the schedule
 * puts its polls (planner.ts). Deterministic: seeded spreads, no clock at all.
 */
import {
	DurationStore,
	endDistribution,
	FEW_REQUESTS,
	FEW_REQUESTS_SHARE,
	planPolls,
	type DurationSample,
	type EndDistribution,
	type PlanSettings,
} from '../../../nodes/shared/wait';
import { mulberry32 } from '../../../sandbox';
import { mean, median, spreadRuns } from './helpers';

/** Samples as the engine records them: the end lies between two polls `gapMs` apart. */
const observed = (ends: number[], gapMs: number, seed = 3): DurationSample[] => {
	const rnd = mulberry32(seed);
	return ends.map((end) => {
		const lo = end - rnd() * gapMs;
		return { lo, hi: lo + gapMs };
	});
};

/** The end time at which `dist` reaches probability `u` (bisection on its cdf). */
function endAt(dist: EndDistribution, u: number): number {
	let a = dist.lo;
	let b = dist.hi;
	for (let i = 0; i < 40; i++) {
		const m = (a + b) / 2;
		if (dist.cdf(m) < u) a = m;
		else b = m;
	}
	return (a + b) / 2;
}

/** Where runs drawn from `dist` are seen with `polls`: share seen within `target`, and mean requests. */
function evaluate(dist: EndDistribution, polls: number[], target: number, count = 2000) {
	const runs = seenRuns(dist, polls, mulberry32(99), count);
	return { share: runs.filter((r) => r.delay <= target).length / count, requests: mean(runs.map((r) => r.requests)) };
}

/** `count` runs drawn from `dist`, polled at `polls`: the requests each pays and its delay. */
function seenRuns(dist: EndDistribution, polls: number[], rnd: () => number, count: number) {
	return Array.from({ length: count }, () => {
		const end = endAt(dist, rnd());
		const index = polls.findIndex((t) => t >= end);
		return { requests: index + 1, delay: polls[index] - end };
	});
}

/** Of the ends after the median (spread evenly in probability), the share seen within `target`. */
function lateShareInTime(dist: EndDistribution, polls: number[], target: number, count = 400): number {
	let inTime = 0;
	for (let k = 0; k < count; k++) {
		const end = endAt(dist, 0.5 + (0.5 * (k + 0.5)) / count);
		const seenAt = polls.find((t) => t >= end) ?? Infinity;
		if (seenAt - end <= target) inTime++;
	}
	return inTime / count;
}

describe('endDistribution', () => {
	it('recovers the run time and its spread from interval samples', () => {
		const ends = spreadRuns(60_000, 24, 5);
		const dist = endDistribution(observed(ends, 800)) as EndDistribution;
		expect(Math.abs(dist.median - mean(ends)) / mean(ends)).toBeLessThan(0.03);
		expect(dist.lo).toBeLessThan(Math.min(...ends));
		expect(dist.hi).toBeGreaterThan(Math.max(...ends));
		expect(dist.cdf(dist.lo)).toBe(0);
		expect(dist.cdf(dist.hi)).toBe(1);
	});

	it('a run seen only after a long gap counts as "somewhere in that gap": no drift when polls leave a blind stretch', () => {
		// Polls at 16 s and from 19.5 s on every 0.5 s: the ends in between are only known to lie in (16, 19.5].
		const ends = spreadRuns(20_000, 24, 8);
		const samples = ends.map((end) => (end <= 19_500 ? { lo: 16_000, hi: 19_500 } : { lo: end - 250, hi: end + 250 }));
		const dist = endDistribution(samples) as EndDistribution;
		const trueMedian = [...ends].sort((a, b) => a - b)[12];
		const precise = samples
			.filter((s) => s.hi - s.lo < 1000)
			.map((s) => (s.lo + s.hi) / 2)
			.sort((a, b) => a - b);
		// Learning from the precise samples only would put the median far too late; the fit stays close.
		expect(Math.abs(dist.median - trueMedian)).toBeLessThan(Math.abs(precise[Math.floor(precise.length / 2)] - trueMedian) / 2);
		expect(dist.cdf(19_000)).toBeGreaterThan(0.1);
	});

	it('a single sample already gives a window around it; none gives nothing', () => {
		const dist = endDistribution([{ lo: 19_000, hi: 21_000 }]) as EndDistribution;
		expect(dist.lo).toBeLessThan(19_000);
		expect(dist.hi).toBeGreaterThan(21_000);
		expect(endDistribution([])).toBeUndefined();
		expect(
			endDistribution([
				{ lo: NaN, hi: 5 },
				{ lo: 5, hi: 2 },
			]),
		).toBeUndefined();
	});
});

describe('planPolls', () => {
	// Runs of 20 s within ±2 %: narrow enough that the target, not the request budget, sets the schedule.
	const narrow = spreadRuns(20_000, 24, 2).map((end) => 20_000 + (end - 20_000) / 10);
	const dist = endDistribution(observed(narrow, 600)) as EndDistribution;
	const plan = planPolls(dist, { targetDelayMs: 300 });

	it('starts at the lower end, ends at the upper end, increasing, at least the minimum gap apart', () => {
		expect(plan[0]).toBe(dist.lo);
		expect(plan[plan.length - 1]).toBe(dist.hi);
		const gaps = plan.slice(1).map((t, k) => t - plan[k]);
		expect(gaps.slice(0, -1).every((g) => g >= 200)).toBe(true);
		expect(gaps.every((g) => g > 0)).toBe(true);
	});

	it('is sparse where ends are unlikely and dense where they are likely', () => {
		const gaps = plan.slice(1).map((t, k) => t - plan[k]);
		const nearMedian = gaps.filter((_, k) => Math.abs(plan[k] - dist.median) < 1500);
		expect(gaps[0]).toBeGreaterThan(3 * Math.max(...nearMedian));
	});

	it('sees at least half of the runs within the target delay', () => {
		expect(evaluate(dist, plan, 300).share).toBeGreaterThanOrEqual(0.48);
	});

	it('a tighter target costs more requests; a looser one fewer', () => {
		const tightPlan = planPolls(dist, { targetDelayMs: 150 });
		const tight = evaluate(dist, tightPlan, 150);
		const normal = evaluate(dist, plan, 300);
		const loose = evaluate(dist, planPolls(dist, { targetDelayMs: 1000 }), 1000);
		expect(tight.requests).toBeGreaterThan(normal.requests);
		expect(loose.requests).toBeLessThan(normal.requests);
		expect(evaluate(dist, tightPlan, 300).share).toBeGreaterThan(normal.share); // sees more runs in time
		expect(loose.share).toBeGreaterThanOrEqual(0.48);
	});

	it('a longer run needs more requests for the same delay (its window of ends is wider)', () => {
		const long = endDistribution(observed(spreadRuns(300_000, 24, 2), 600)) as EndDistribution;
		expect(evaluate(long, planPolls(long, { targetDelayMs: 300 }), 300).requests).toBeGreaterThan(2 * evaluate(dist, plan, 300).requests);
	});

	it('expects fewer requests than a Wait 5 s loop would send, from runs of 20 s on', () => {
		for (const meanMs of [20_000, 60_000, 300_000]) {
			const d = endDistribution(observed(spreadRuns(meanMs, 24, 3), 600)) as EndDistribution;
			const loop = mean(spreadRuns(meanMs, 200, 4).map((end) => Math.ceil(end / 5000)));
			expect(evaluate(d, planPolls(d, { targetDelayMs: 300 }), 300).requests).toBeLessThan(loop);
		}
	});

	it('a run ending at the median pays at most half of what a Wait 5 s loop sends it; later ends are still seen in time', () => {
		for (const meanMs of [60_000, 300_000]) {
			for (const samples of [3, 24]) {
				const d = endDistribution(observed(spreadRuns(meanMs, samples, 3), 600)) as EndDistribution;
				const polls = planPolls(d, { targetDelayMs: 300 });
				const paidAtMedian = polls.filter((t) => t < d.median).length + 1;
				expect(paidAtMedian).toBeLessThanOrEqual(d.median / 5000 / 2 + 1);
				// Only the polls before the median got dearer: about half of the later ends are still seen within the target.
				expect(lateShareInTime(d, polls, 300)).toBeGreaterThanOrEqual(0.45);
			}
		}
	});

	it('with the polls before the median made dearer, later polls make up for them: half of all runs are seen within the target, or the average budget is spent', () => {
		for (const meanMs of [60_000, 300_000]) {
			for (const samples of [3, 10, 24]) {
				const d = endDistribution(observed(spreadRuns(meanMs, samples, 3), 600)) as EndDistribution;
				const polls = planPolls(d, { targetDelayMs: 300 });
				expect(polls.filter((t) => t < d.median).length + 1).toBeLessThanOrEqual(d.median / 5000 / 2 + 1);
				const { share, requests } = evaluate(d, polls, 300);
				const budget = Math.max(3, d.median / 6667 + 1);
				expect(share >= 0.48 || requests >= 0.97 * budget).toBe(true);
				expect(requests).toBeLessThanOrEqual(budget + 0.1);
			}
		}
	});

	it('a badly learned (very wide) distribution stays within the request budget: the delay gives way', () => {
		const ends = Array.from({ length: 24 }, (_, k) => 10_000 + k * 25_000); // 10 s to 585 s
		const wide = endDistribution(observed(ends, 500)) as EndDistribution;
		const cost = evaluate(wide, planPolls(wide, { targetDelayMs: 300 }), 300);
		expect(cost.requests).toBeLessThanOrEqual(Math.max(3, wide.median / 6667 + 1) + 1);
	});
});

describe('planPolls, polling goal "Fewest Requests"', () => {
	/** Expected requests of a schedule, exactly: the first poll is sent, each later one if the run was going at the one before. */
	const expectedRequests = (dist: EndDistribution, polls: number[]) =>
		polls.reduce((sum, t, k) => sum + (k === 0 ? 1 : 1 - dist.cdf(polls[k - 1])), 0);
	/** Median requests and median delay of runs drawn from `dist`, polled at `polls`. */
	function typical(dist: EndDistribution, polls: number[], count = 2000) {
		const runs = seenRuns(dist, polls, mulberry32(7), count);
		return { requests: median(runs.map((r) => r.requests)), delay: median(runs.map((r) => r.delay)) };
	}
	const learnedFrom = (meanMs: number, samples: number) =>
		endDistribution(observed(spreadRuns(meanMs, samples, 3), 600)) as EndDistribution;
	const fewest = (dist: EndDistribution, pollAtLowerEnd: boolean) =>
		planPolls(dist, { targetDelayMs: 300, goal: 'fewestRequests', pollAtLowerEnd });

	it('sees the typical run of 60 s and 5 minutes with three requests, where the lowest-delay plan needs more', () => {
		for (const meanMs of [60_000, 300_000]) {
			for (const samples of [3, 10, 24]) {
				const dist = learnedFrom(meanMs, samples);
				for (const pollAtLowerEnd of [true, false]) {
					const polls = fewest(dist, pollAtLowerEnd);
					const quickest = planPolls(dist, { targetDelayMs: 300, pollAtLowerEnd });
					// The first three polls sent (the one at the lower end counts) reach the point where four fifths have ended.
					expect(dist.cdf(polls[FEW_REQUESTS - 1])).toBeGreaterThanOrEqual(FEW_REQUESTS_SHARE);
					expect(typical(dist, polls).requests).toBeLessThanOrEqual(FEW_REQUESTS);
					expect(typical(dist, quickest).requests).toBeGreaterThan(FEW_REQUESTS);
					// The runs ending later pay more, but on average at most half a request more (and never more than the lowest-delay plan).
					expect(expectedRequests(dist, polls)).toBeLessThanOrEqual(FEW_REQUESTS + 0.5 + 1e-9);
					expect(expectedRequests(dist, polls)).toBeLessThanOrEqual(expectedRequests(dist, quickest) + 1e-9);
					expect(polls[polls.length - 1]).toBe(dist.hi);
				}
			}
		}
	});

	it('never expects more requests than the lowest-delay plan; short runs get that plan itself', () => {
		for (const meanMs of [2000, 20_000]) {
			for (const pollAtLowerEnd of [true, false]) {
				const dist = learnedFrom(meanMs, 10);
				const settings: PlanSettings = { targetDelayMs: 300, pollAtLowerEnd };
				const quickest = planPolls(dist, settings);
				const polls = planPolls(dist, { ...settings, goal: 'fewestRequests' });
				expect(expectedRequests(dist, polls)).toBeLessThanOrEqual(expectedRequests(dist, quickest) + 1e-9);
				if (meanMs === 2000) expect(polls).toEqual(quickest);
				expect(typical(dist, polls).requests).toBeLessThanOrEqual(FEW_REQUESTS);
			}
		}
	});

	it('within the count, the least delay: its polls see the typical run sooner than evenly spaced ones', () => {
		const dist = learnedFrom(300_000, 10);
		const polls = fewest(dist, false);
		const reach = polls[FEW_REQUESTS - 1];
		const even = [1, 2, 3].map((k) => dist.lo + ((reach - dist.lo) * k) / 3);
		const evenPlan = [...even, ...polls.slice(FEW_REQUESTS)];
		expect(typical(dist, polls).delay).toBeLessThan(typical(dist, evenPlan).delay);
		// Seen later than with the lowest-delay plan: the price of the count.
		expect(typical(dist, polls).delay).toBeGreaterThan(typical(dist, planPolls(dist, { targetDelayMs: 300, pollAtLowerEnd: false })).delay);
	});

	it('is cached apart from the lowest-delay plan of the same samples', () => {
		const store = new DurationStore();
		for (const end of spreadRuns(300_000, 10, 5)) store.record('a', 'total', { lo: end - 200, hi: end + 200 });
		const quickest = store.plan('a', 'total', 300);
		const cheapest = store.plan('a', 'total', 300, 'fewestRequests');
		expect(cheapest).not.toEqual(quickest);
		expect(store.plan('a', 'total', 300, 'fewestRequests')).toBe(cheapest);
		expect(store.plan('a', 'total', 300)).toBe(quickest);
	});
});

describe('DurationStore', () => {
	it('keeps at most maxKeys keys, dropping the least recently used', () => {
		const store = new DurationStore({ maxKeys: 3, samplesPerSource: 4 });
		for (const key of ['a', 'b', 'c']) store.record(key, 'total', { lo: 1000, hi: 1100 });
		store.plan('a', 'total', 300); // a is used again: b is now the oldest
		store.record('d', 'total', { lo: 1000, hi: 1100 });
		expect(store.size).toBe(3);
		expect(['a', 'b', 'c', 'd'].map((k) => store.has(k))).toEqual([true, false, true, true]);
	});

	it('keeps the last samplesPerSource samples per key and source', () => {
		const store = new DurationStore({ maxKeys: 3, samplesPerSource: 4 });
		for (let k = 0; k < 10; k++) store.record('a', 'run', { lo: k, hi: k + 1 });
		expect(store.samples('a', 'run').map((s) => s.lo)).toEqual([6, 7, 8, 9]);
		expect(store.samples('a', 'total')).toEqual([]);
	});

	it('memory stays bounded however many keys and samples come in', () => {
		const store = new DurationStore({ maxKeys: 50, samplesPerSource: 8 });
		for (let k = 0; k < 5000; k++) store.record(`model:${k % 700}`, k % 2 ? 'total' : 'run', { lo: 1000 + k, hi: 1200 + k });
		expect(store.size).toBe(50);
		for (let k = 650; k < 700; k++) {
			expect(store.samples(`model:${k}`, 'total').length).toBeLessThanOrEqual(8);
			expect(store.samples(`model:${k}`, 'run').length).toBeLessThanOrEqual(8);
		}
	});

	it('ignores samples that are not durations', () => {
		const store = new DurationStore();
		store.record('a', 'total', { lo: NaN, hi: 5 });
		store.record('a', 'total', { lo: -1, hi: 5 });
		store.record('a', 'total', { lo: 9, hi: 5 });
		store.record('a', 'total', { lo: 0, hi: Infinity });
		expect(store.has('a')).toBe(false);
	});

	it('computes a plan once per new sample', () => {
		const store = new DurationStore();
		for (const end of spreadRuns(20_000, 5)) store.record('a', 'total', { lo: end - 200, hi: end + 200 });
		const first = store.plan('a', 'total', 300);
		expect(store.plan('a', 'total', 300)).toBe(first);
		store.record('a', 'total', { lo: 19_800, hi: 20_200 });
		expect(store.plan('a', 'total', 300)).not.toBe(first);
		expect(store.plan('unknown', 'total', 300)).toBeUndefined();
		store.forget('a');
		expect(store.has('a')).toBe(false);
	});
});
