/**
 * Where to poll a run whose end is expected around a learned distribution.
 *
 * Cost model: a schedule of poll times t1 < t2 < … costs E[delay] + λ · E[requests], where the delay is the
 * time from the run's end to the poll that sees it, and the poll at t_k is sent only if the run had not
 * ended at t_(k−1) (probability S(t_(k−1)), S = 1 − CDF). For a given λ (ms of delay one request is worth)
 * the cheapest schedule is found exactly by dynamic programming over candidate times (a grid of equal
 * probability mass, so it is fine where ends are likely and coarse where they are not). In the continuous
 * limit the optimum spaces polls by sqrt(2λ · S(t) / f(t)): sparse while an end is unlikely, dense where
 * ends are likely, and the last poll at the upper end of the distribution.
 *
 * A schedule starts with one poll at the lower end of the distribution (no earlier one): it sees almost
 * every run still going, so what is learned from the run is its true end rather than "before the first
 * poll" — without it, learning from only the runs that outlast the first poll would push the learned
 * durations, and so the first poll, later and later. When each run's time is learned from elsewhere (the
 * service's timestamps, `pollAtLowerEnd: false`), that poll is left out: it is one request per run that
 * almost never sees an end (in the cost model it is a constant, so the rest of the schedule stays optimal).
 *
 * λ is not a fixed price: it is the largest one (fewest requests) whose schedule still sees at least half
 * of the runs within `targetDelayMs` of their end (median delay ≤ target), so a run of 2 s and one of
 * 5 minutes both meet the same delay goal with as few requests as that allows. Two budgets keep the schedule
 * cheaper than the loop it replaces and bound the price of a badly learned (very wide) distribution; when the
 * target would need more, the delay gives way:
 * - on average: never more requests than a fixed poll every BUDGET_SPACING_MS over the median duration would
 *   send (plus BUDGET_EXTRA, at least BUDGET_MIN), three quarters of a Wait 5 s loop's;
 * - for the typical run: a run ending at the median pays at most one poll every MEDIAN_SPACING_MS before it
 *   (plus BUDGET_EXTRA, at least BUDGET_MIN), half of a Wait 5 s loop's. The mean-delay optimum is densest
 *   just past the median, where ends are likely and polls are cheap on average; but a run pays every poll
 *   before its own end, and with a learned median a few seconds off, the typical run paid twice its share.
 *   Only the polls before the median get a higher price (a second λ). Fewer polls there see fewer of the runs
 *   ending before the median in time, so the price from the median on is then searched again: polls after the
 *   median get denser until half of all runs are seen within the target again, as far as the average budget
 *   allows. (Without that search the learned schedule saw the median run 0.36-0.40 s after its end, not 0.3 s.)
 */
import type { EndDistribution } from './distribution';

export interface PlanSettings {
	/** The median delay from a run's end to its detection that the schedule aims at. */
	targetDelayMs: number;
	/** Two planned polls are at least this far apart (except the last one at the upper end). */
	minGapMs?: number;
	/** Share of runs to see within the target delay. Default DEFAULT_SHARE_IN_TIME. */
	shareInTime?: number;
	/** Whether the schedule starts with a poll at the distribution's lower end (see above). Default true. */
	pollAtLowerEnd?: boolean;
}

export const DEFAULT_TARGET_DELAY_MS = 300;
export const DEFAULT_MIN_GAP_MS = 200;
export const DEFAULT_SHARE_IN_TIME = 0.5;
const GRID_POINTS = 400;
const SCAN_POINTS = 2000;
/** A poll every 6.7 s over the median: three quarters of what a user's Wait 5 s loop sends. */
const BUDGET_SPACING_MS = 6667;
const BUDGET_EXTRA = 1;
/** Short runs: the first poll at the lower end and two more. */
const BUDGET_MIN = 3;
/** A poll every 10 s before the median: half of what a Wait 5 s loop sends a run ending there. */
const MEDIAN_SPACING_MS = 10_000;
/** Bisection steps over log λ (a range of e^27.6): 18 steps leave a bracket of 0.01 %. */
const SEARCH_STEPS = 18;

interface Schedule {
	polls: number[];
	requests: number;
	/** The price of a request it was solved for (ms of delay), from the median on. */
	lambda: number;
	/** The price before the median (at least `lambda`). */
	lambdaBeforeMedian: number;
}

/** Candidate poll times: the two ends of the distribution and equal-mass points between them. */
function candidateTimes(dist: EndDistribution): number[] {
	const { lo, hi } = dist;
	const scan: Array<[number, number]> = [];
	for (let k = 0; k <= SCAN_POINTS; k++) {
		const t = lo + ((hi - lo) * k) / SCAN_POINTS;
		scan.push([t, dist.cdf(t)]);
	}
	const times = [lo];
	let s = 1;
	for (let k = 1; k < GRID_POINTS; k++) {
		const p = k / GRID_POINTS;
		while (s < SCAN_POINTS && scan[s][1] < p) s++;
		const [t1, p1] = scan[s - 1];
		const [t2, p2] = scan[s];
		times.push(p2 > p1 ? t1 + ((p - p1) / (p2 - p1)) * (t2 - t1) : t2);
	}
	times.push(hi);
	return [...new Set(times)].filter((t) => t >= 0 && t <= hi).sort((a, b) => a - b);
}

/**
 * Poll times in ms from the anchor, increasing: the first at the distribution's lower end (unless
 * `pollAtLowerEnd` is false), the last at its upper end. Empty when the distribution is degenerate.
 */
export function planPolls(dist: EndDistribution, settings: PlanSettings): number[] {
	const polls = planFromLowerEnd(dist, settings);
	return settings.pollAtLowerEnd === false && polls.length > 1 ? polls.slice(1) : polls;
}

/** The schedule with its poll at the lower end; its budgets count that poll too. */
function planFromLowerEnd(dist: EndDistribution, settings: PlanSettings): number[] {
	const target = settings.targetDelayMs > 0 ? settings.targetDelayMs : DEFAULT_TARGET_DELAY_MS;
	const minGap = Math.max(0, settings.minGapMs ?? DEFAULT_MIN_GAP_MS);
	if (!(dist.hi > 0) || !(dist.hi >= dist.lo)) return [];
	const t = candidateTimes(dist);
	const n = t.length;
	const F = t.map((x) => dist.cdf(x));
	// Partial first moments ∫ T dF up to t_k, by the midpoint rule on the fine grid.
	const moment = new Array<number>(n).fill(0);
	for (let k = 1; k < n; k++) moment[k] = moment[k - 1] + (F[k] - F[k - 1]) * ((t[k] + t[k - 1]) / 2);
	/** Total delay of the ends in (t_i, t_j] when the next poll after t_i is at t_j. */
	const gapDelay = (i: number, j: number) => t[j] * (F[j] - F[i]) - (moment[j] - moment[i]);

	const cost = new Array<number>(n);
	const next = new Array<number>(n);
	// The first candidate at least `minGap` after each one (the times are sorted).
	const firstAfterGap = new Array<number>(n);
	for (let i = 0, j = 0; i < n; i++) {
		while (j < n - 1 && (j <= i || t[j] - t[i] < minGap)) j++;
		firstAfterGap[i] = j;
	}
	/** The cheapest schedule when a request costs `lambda` ms of delay, and `lambdaBeforeMedian` before the median. */
	const solve = (lambda: number, lambdaBeforeMedian = lambda): Schedule => {
		const dearer = Math.max(lambda, lambdaBeforeMedian);
		cost[n - 1] = 0;
		next[n - 1] = -1;
		for (let i = n - 2; i >= 0; i--) {
			const pollCost = (t[i] < dist.median ? dearer : lambda) * (1 - F[i]);
			let best = Infinity;
			let bestJ = n - 1;
			for (let j = firstAfterGap[i]; j < n; j++) {
				const delay = gapDelay(i, j);
				if (pollCost + delay >= best) break; // later candidates only add delay
				const c = pollCost + delay + cost[j];
				if (c < best) {
					best = c;
					bestJ = j;
				}
			}
			cost[i] = best;
			next[i] = bestJ;
		}
		const polls: number[] = [t[0]];
		let requests = 1;
		for (let i = 0; i !== n - 1; i = next[i]) {
			requests += 1 - F[i];
			polls.push(t[next[i]]);
		}
		return { polls, requests, lambda, lambdaBeforeMedian: dearer };
	};

	/** Share of runs seen within `target` of their end. */
	const seenInTime = (polls: number[]) => {
		let p = 0;
		let previous = 0;
		for (const x of polls) {
			p += Math.max(0, dist.cdf(x) - dist.cdf(Math.max(previous, x - target)));
			previous = x;
		}
		return p;
	};
	const budget = Math.max(BUDGET_MIN, dist.median / BUDGET_SPACING_MS + BUDGET_EXTRA);

	/**
	 * Bisection over a log price: the schedule at the boundary where `ok` stops holding (`ok` holds at `from`).
	 * `at` solves for a log price (by default the one price λ).
	 */
	const boundary = (ok: (s: Schedule) => boolean, from: number, to: number, at = (x: number) => solve(Math.exp(x))): Schedule => {
		let good = from;
		let bad = to;
		let chosen = at(good);
		for (let k = 0; k < SEARCH_STEPS; k++) {
			const mid = (good + bad) / 2;
			const s = at(mid);
			if (ok(s)) {
				chosen = s;
				good = mid;
			} else bad = mid;
		}
		return chosen;
	};
	const cheap = Math.log(1e-3); // ms per request: nearly free requests, the densest schedule
	const dear = Math.log(1e9); // the sparsest schedule: one poll at the upper end
	const share = settings.shareInTime ?? DEFAULT_SHARE_IN_TIME;
	const meetsTarget = (s: Schedule) => seenInTime(s.polls) >= share;
	const withinBudget = (s: Schedule) => s.requests <= budget;
	const medianBudget = Math.max(BUDGET_MIN, dist.median / MEDIAN_SPACING_MS + BUDGET_EXTRA);
	/** What a run ending at the median pays: the polls before it and the one that sees it. */
	const typicalWithinBudget = (s: Schedule) => s.polls.filter((x) => x < dist.median).length + 1 <= medianBudget;
	let chosen = meetsTarget(solve(Math.exp(cheap))) ? boundary(meetsTarget, cheap, dear) : undefined;
	// The target needs more requests than the budget allows: the least delay within the budget.
	if (!chosen || !withinBudget(chosen)) chosen = boundary(withinBudget, dear, cheap);
	if (typicalWithinBudget(chosen)) return chosen.polls;
	// The typical run pays too much: the polls before the median get dearer, as little as its budget needs.
	const { lambda } = chosen;
	const from = Math.log(lambda);
	const sparse = boundary(typicalWithinBudget, dear, from, (x) => solve(lambda, Math.exp(x)));
	if (meetsTarget(sparse)) return sparse.polls;
	// Fewer polls before the median see fewer of the runs ending there in time: the polls from the median on get
	// cheaper again, as far as the target needs and both budgets allow.
	const at = (x: number) => solve(Math.exp(x), sparse.lambdaBeforeMedian);
	const fits = (s: Schedule) => typicalWithinBudget(s) && withinBudget(s);
	if (meetsTarget(at(cheap))) {
		const dense = boundary(meetsTarget, cheap, from, at);
		if (fits(dense)) return dense.polls;
	}
	return boundary(fits, from, cheap, at).polls;
}
