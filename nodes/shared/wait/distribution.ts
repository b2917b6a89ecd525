/**
 * When a run is expected to end, from its key's learned durations: a log-normal distribution of the time from the
 * anchor to the end.
 */

/** One learned duration in ms from its anchor: the end lay in [lo, hi]. */
export interface DurationSample {
	lo: number;
	hi: number;
}

export interface EndDistribution {
	/** P(end ≤ t), t in ms from the anchor. */
	cdf(t: number): number;
	/** Where the schedule's first poll goes and its upper end. */
	lo: number;
	hi: number;
	median: number;
}

/** Prior spread while there are few samples. */
export const PRIOR_RELATIVE_SPREAD = 0.07;
/** How many samples the prior counts as. */
const PRIOR_WEIGHT = 2;
/** The smallest spread considered. */
const MIN_RELATIVE_SPREAD = 0.005;
/** The distribution is cut at this many standard deviations below and above the median. */
const LOWER_REACH = 3.5;
const UPPER_REACH = 3.5;
/** EM stops once an iteration moves neither parameter by more than this, or after MAX_EM_ITERATIONS. */
const EM_SETTLED = 1e-9;
const MAX_EM_ITERATIONS = 2000;
/** Times runs were last seen going are rounded down to this on the log scale. */
const GOING_RESOLUTION = 1e-4;
/** Durations below this are read as this: the log scale needs a positive time. */
const MIN_DURATION_MS = 1;

const phi = (x: number): number => Math.exp(-0.5 * x * x) / Math.sqrt(2 * Math.PI);
function Phi(x: number): number {
	if (x === Infinity) return 1;
	if (x === -Infinity) return 0;
	const z = Math.abs(x) / Math.SQRT2;
	const t = 1 / (1 + 0.3275911 * z);
	const erf = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-z * z);
	return x >= 0 ? 0.5 * (1 + erf) : 0.5 * (1 - erf);
}

export function medianOf(values: number[]): number {
	const sorted = [...values].sort((a, b) => a - b);
	const n = sorted.length;
	if (n === 0) return NaN;
	return n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

/** E[X] and E[X²] of N(mu, sigma²) truncated to [a, b]. */
function truncatedMoments(a: number, b: number, mu: number, sigma: number): [number, number] {
	if (b - a < 1e-9 * sigma) {
		const x = (a + b) / 2;
		return [x, x * x];
	}
	const alpha = (a - mu) / sigma;
	const beta = (b - mu) / sigma;
	const mass = Phi(beta) - Phi(alpha);
	if (!(mass > 1e-12)) {
		// Far in a tail: the interval's nearer end is where the end most likely was.
		const x = Math.abs(alpha) < Math.abs(beta) ? a : b;
		return [x, x * x];
	}
	const pa = Number.isFinite(alpha) ? phi(alpha) : 0;
	const pb = Number.isFinite(beta) ? phi(beta) : 0;
	const ta = Number.isFinite(alpha) ? alpha * pa : 0;
	const tb = Number.isFinite(beta) ? beta * pb : 0;
	const mean = mu + (sigma * (pa - pb)) / mass;
	const variance = sigma * sigma * (1 + (ta - tb) / mass - ((pa - pb) / mass) ** 2);
	return [mean, Math.max(0, variance) + mean * mean];
}

/** The expected end of a run from its key's samples and the runs still going; undefined without usable samples. */
export function endDistribution(all: readonly DurationSample[], going: readonly number[] = []): EndDistribution | undefined {
	const samples = all.filter((s) => Number.isFinite(s.lo) && Number.isFinite(s.hi) && s.lo >= 0 && s.hi >= s.lo && s.hi > 0);
	if (samples.length === 0) return undefined;
	const logs = samples.map((s) => ({
		a: s.lo < MIN_DURATION_MS ? -Infinity : Math.log(s.lo),
		b: Math.log(Math.max(s.hi, MIN_DURATION_MS)),
		count: 1,
	}));
	// Runs going since about the same time are one entry with a count: EM stays cheap for a big batch.
	const goingSince = new Map<number, number>();
	for (const t of going) {
		if (!Number.isFinite(t) || t < MIN_DURATION_MS) continue;
		const step = Math.floor(Math.log(t) / GOING_RESOLUTION);
		goingSince.set(step, (goingSince.get(step) ?? 0) + 1);
	}
	for (const [step, count] of goingSince) logs.push({ a: step * GOING_RESOLUTION, b: Infinity, count });
	const n = logs.reduce((sum, entry) => sum + entry.count, 0);
	// Start from the midpoints, then EM: each interval's expected log-end under the current fit.
	let mu = medianOf(samples.map((s) => Math.log(Math.max(MIN_DURATION_MS, (s.lo + s.hi) / 2))));
	let sigma = PRIOR_RELATIVE_SPREAD;
	for (let iteration = 0; iteration < MAX_EM_ITERATIONS; iteration++) {
		let first = 0;
		let second = 0;
		const moments = logs.map(({ a, b }) => truncatedMoments(a, b, mu, sigma));
		for (const [k, [m1]] of moments.entries()) first += logs[k].count * m1;
		const nextMu = first / n;
		for (const [k, [m1, m2]] of moments.entries()) second += logs[k].count * (m2 - 2 * nextMu * m1 + nextMu * nextMu);
		const variance = (PRIOR_WEIGHT * PRIOR_RELATIVE_SPREAD ** 2 + second) / (PRIOR_WEIGHT + n);
		const nextSigma = Math.max(MIN_RELATIVE_SPREAD, Math.sqrt(variance));
		const settled = Math.abs(nextMu - mu) <= EM_SETTLED && Math.abs(nextSigma - sigma) <= EM_SETTLED;
		mu = nextMu;
		sigma = nextSigma;
		if (settled) break;
	}
	const spread = sigma * Math.sqrt(1 + 1 / n);
	const lo = Math.exp(mu - LOWER_REACH * spread);
	const hi = Math.exp(mu + UPPER_REACH * spread);
	const lowMass = Phi(-LOWER_REACH);
	const kept = Phi(UPPER_REACH) - lowMass;
	const cdf = (t: number): number => {
		if (t <= lo) return 0;
		if (t >= hi) return 1;
		return Math.min(1, Math.max(0, (Phi((Math.log(t) - mu) / spread) - lowMass) / kept));
	};
	return { cdf, lo, hi, median: Math.exp(mu) };
}
