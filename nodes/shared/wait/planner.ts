/** Where to poll a run whose end follows a learned distribution: the cheapest schedule for E[delay] + λ · E[requests]. */
import type { EndDistribution } from './distribution';

/** What a learned schedule optimises. */
export type PollingGoal = 'lowestDelay' | 'fewestRequests';

export const POLLING_GOALS: readonly PollingGoal[] = ['lowestDelay', 'fewestRequests'];

export interface PlanSettings {
	/** The median detection delay the schedule aims at (goal `lowestDelay`). */
	targetDelayMs: number;
	goal?: PollingGoal;
	/** Two planned polls are at least this far apart. */
	minGapMs?: number;
	/** Share of runs to see within the target delay. */
	shareInTime?: number;
	/** Whether the schedule starts with a poll at the distribution's lower end. */
	pollAtLowerEnd?: boolean;
}

export const DEFAULT_TARGET_DELAY_MS = 300;
export const DEFAULT_MIN_GAP_MS = 200;
export const DEFAULT_SHARE_IN_TIME = 0.5;
const GRID_POINTS = 400;
const SCAN_POINTS = 2000;
/** Request budget: fewer polls over the median than a user's Wait 5 s loop sends. */
const BUDGET_SPACING_MS = 6667;
const BUDGET_EXTRA = 1;
/** Short runs: the first poll at the lower end and two more. */
const BUDGET_MIN = 3;
/** The typical run's budget before the median: half of what a Wait 5 s loop sends. */
const MEDIAN_SPACING_MS = 10_000;
const SEARCH_STEPS = 18;
/** Goal `fewestRequests`: the requests that see the typical run… */
export const FEW_REQUESTS = 3;
/** …because these polls reach the point where this share of the runs has ended… */
export const FEW_REQUESTS_SHARE = 0.8;
/** …and on average a run pays at most this many more. */
export const FEW_REQUESTS_MEAN_EXTRA = 0.5;

interface Schedule {
	polls: number[];
	requests: number;
	/** The price of a request it was solved for, from the median on. */
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

/** Poll times in ms from the anchor, increasing, the last at the distribution's upper end. */
export function planPolls(dist: EndDistribution, settings: PlanSettings): number[] {
	if (!(dist.hi > 0) || !(dist.hi >= dist.lo)) return [];
	const grid = new PollGrid(dist, Math.max(0, settings.minGapMs ?? DEFAULT_MIN_GAP_MS));
	const quickest = planFromLowerEnd(grid, dist, settings);
	const polls = settings.goal === 'fewestRequests' ? planFewRequests(grid, dist, settings, quickest) : quickest.polls;
	return settings.pollAtLowerEnd === false && polls.length > 1 ? polls.slice(1) : polls;
}

/** The cost model on one distribution's candidate times; `solve` leaves the cheapest way on from `t[i]` in `next[i]`. */
class PollGrid {
	readonly t: number[];

	readonly F: number[];

	readonly n: number;

	readonly cost: number[];

	readonly next: number[];

	/** The first candidate at least `minGap` after each one. */
	readonly firstAfterGap: number[];

	/** Partial first moments ∫ T dF up to t_k, by the midpoint rule on the fine grid. */
	private readonly moment: number[];

	constructor(
		private readonly dist: EndDistribution,
		minGap: number,
	) {
		const t = candidateTimes(dist);
		const n = t.length;
		this.t = t;
		this.n = n;
		this.F = t.map((x) => dist.cdf(x));
		this.moment = new Array<number>(n).fill(0);
		for (let k = 1; k < n; k++) this.moment[k] = this.moment[k - 1] + (this.F[k] - this.F[k - 1]) * ((t[k] + t[k - 1]) / 2);
		this.cost = new Array<number>(n);
		this.next = new Array<number>(n);
		this.firstAfterGap = new Array<number>(n);
		for (let i = 0, j = 0; i < n; i++) {
			while (j < n - 1 && (j <= i || t[j] - t[i] < minGap)) j++;
			this.firstAfterGap[i] = j;
		}
	}

	/** Total delay of the ends in (t_i, t_j] when the next poll after t_i is at t_j. */
	gapDelay(i: number, j: number): number {
		return this.t[j] * (this.F[j] - this.F[i]) - (this.moment[j] - this.moment[i]);
	}

	requestsOf(indices: readonly number[]): number {
		let requests = 1;
		for (let k = 1; k < indices.length; k++) requests += 1 - this.F[indices[k - 1]];
		return requests;
	}

	/** The cheapest schedule when a request costs `lambda` ms of delay, and `lambdaBeforeMedian` before the median. */
	solve(lambda: number, lambdaBeforeMedian = lambda): Schedule {
		const { t, F, n, cost, next } = this;
		const dearer = Math.max(lambda, lambdaBeforeMedian);
		cost[n - 1] = 0;
		next[n - 1] = -1;
		for (let i = n - 2; i >= 0; i--) {
			const pollCost = (t[i] < this.dist.median ? dearer : lambda) * (1 - F[i]);
			let best = Infinity;
			let bestJ = n - 1;
			for (let j = this.firstAfterGap[i]; j < n; j++) {
				const delay = this.gapDelay(i, j);
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
		const indices = this.followFrom(0);
		return { polls: indices.map((k) => t[k]), requests: this.requestsOf(indices), lambda, lambdaBeforeMedian: dearer };
	}

	/** The candidates the last `solve` polls at from `t[from]` on, `from` included. */
	followFrom(from: number): number[] {
		const indices = [from];
		for (let i = from; i !== this.n - 1; i = this.next[i]) indices.push(this.next[i]);
		return indices;
	}
}

/** Bisection over a log price: the schedule where `ok` stops holding. */
function boundary<S>(ok: (s: S) => boolean, from: number, to: number, at: (x: number) => S): S {
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
}

/** Log prices of a request: nearly free and the sparsest. */
const CHEAP = Math.log(1e-3);
const DEAR = Math.log(1e9);

/** The lowest-delay schedule with its poll at the lower end; its budgets count that poll too. */
function planFromLowerEnd(grid: PollGrid, dist: EndDistribution, settings: PlanSettings): Schedule {
	const target = settings.targetDelayMs > 0 ? settings.targetDelayMs : DEFAULT_TARGET_DELAY_MS;
	const solve = (lambda: number, lambdaBeforeMedian?: number) => grid.solve(lambda, lambdaBeforeMedian);

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
	const single = (x: number) => solve(Math.exp(x));
	const share = settings.shareInTime ?? DEFAULT_SHARE_IN_TIME;
	const meetsTarget = (s: Schedule) => seenInTime(s.polls) >= share;
	const withinBudget = (s: Schedule) => s.requests <= budget;
	const medianBudget = Math.max(BUDGET_MIN, dist.median / MEDIAN_SPACING_MS + BUDGET_EXTRA);
	/** What a run ending at the median pays: the polls before it and the one that sees it. */
	const typicalWithinBudget = (s: Schedule) => s.polls.filter((x) => x < dist.median).length + 1 <= medianBudget;
	let chosen = meetsTarget(single(CHEAP)) ? boundary(meetsTarget, CHEAP, DEAR, single) : undefined;
	// The target needs more requests than the budget allows: the least delay within the budget.
	if (!chosen || !withinBudget(chosen)) chosen = boundary(withinBudget, DEAR, CHEAP, single);
	if (typicalWithinBudget(chosen)) return chosen;
	// The typical run pays too much: the polls before the median get dearer, as little as its budget needs.
	const { lambda } = chosen;
	const from = Math.log(lambda);
	const sparse = boundary(typicalWithinBudget, DEAR, from, (x) => solve(lambda, Math.exp(x)));
	if (meetsTarget(sparse)) return sparse;
	// Fewer polls before the median see fewer of the runs ending there in time: the polls from the median on get
	// cheaper again, as far as the target needs and both budgets allow.
	const at = (x: number) => solve(Math.exp(x), sparse.lambdaBeforeMedian);
	const fits = (s: Schedule) => typicalWithinBudget(s) && withinBudget(s);
	if (meetsTarget(at(CHEAP))) {
		const dense = boundary(meetsTarget, CHEAP, from, at);
		if (fits(dense)) return dense;
	}
	return boundary(fits, from, CHEAP, at);
}

function planFewRequests(grid: PollGrid, dist: EndDistribution, settings: PlanSettings, quickest: Schedule): number[] {
	const lowerEndSent = settings.pollAtLowerEnd !== false;
	const counted = lowerEndSent ? FEW_REQUESTS - 1 : FEW_REQUESTS;
	const quickestReach = quickest.polls.findIndex((x) => dist.cdf(x) >= FEW_REQUESTS_SHARE);
	if (quickestReach >= 0 && quickestReach <= counted) return quickest.polls;
	const { F, n } = grid;
	let reach = F.findIndex((p) => p >= FEW_REQUESTS_SHARE);
	if (reach < 0) reach = n - 1;
	// The lower end's poll is in the grid's schedules either way; not sent, it is not paid.
	const budget = Math.min(FEW_REQUESTS + FEW_REQUESTS_MEAN_EXTRA + (lowerEndSent ? 0 : 1), quickest.requests);

	const at = (x: number) => {
		const lambda = Math.exp(x);
		grid.solve(lambda);
		// best[m][j]: the least cost of polls 1..m after the lower end's, the m-th at t[j]; from[m][j] the one before.
		let best = new Array<number>(n).fill(Infinity);
		best[0] = 0;
		const from: number[][] = [];
		for (let m = 1; m <= counted; m++) {
			const step = new Array<number>(n).fill(Infinity);
			const back = new Array<number>(n).fill(-1);
			for (let i = 0; i < n - 1; i++) {
				if (best[i] === Infinity) continue;
				const pollCost = lambda * (1 - F[i]);
				for (let j = grid.firstAfterGap[i]; j < n; j++) {
					const c = best[i] + pollCost + grid.gapDelay(i, j);
					if (c < step[j]) {
						step[j] = c;
						back[j] = i;
					}
				}
			}
			from.push(back);
			best = step;
		}
		let last = -1;
		let least = Infinity;
		for (let j = reach; j < n; j++) {
			const c = best[j] + grid.cost[j];
			if (c < least) {
				least = c;
				last = j;
			}
		}
		if (last < 0) return grid.solve(lambda); // too few candidates for the count: the plain optimum
		const indices = [last];
		for (let m = counted - 1; m >= 0; m--) indices.unshift(from[m][indices[0]]);
		indices.push(...grid.followFrom(last).slice(1));
		return { polls: indices.map((k) => grid.t[k]), requests: grid.requestsOf(indices), lambda, lambdaBeforeMedian: lambda };
	};
	return boundary((s: Schedule) => s.requests <= budget, DEAR, CHEAP, at).polls;
}
