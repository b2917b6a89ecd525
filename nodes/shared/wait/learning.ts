/** What the engine has learned about how long runs take, per timing key. */
import type { DurationSample, EndDistribution } from './distribution';
import { endDistribution, medianOf } from './distribution';
import type { PollingGoal } from './planner';
import { planPolls } from './planner';

export type DurationSource = 'total' | 'run' | 'queueStep';

const SOURCES: DurationSource[] = ['total', 'run', 'queueStep'];
const MAX_PLANS_PER_KEY = 4;
const planKey = (source: PlanSource, targetDelayMs: number, goal: PollingGoal) => `${source}:${goal}:${targetDelayMs}`;

interface KeyEntry {
	samples: Record<DurationSource, DurationSample[]>;
	/** Whether timestamps narrowed a `total` sample: its plans need no poll at the lower end. */
	timestamped: boolean;
	/** Planned poll offsets per source, goal and target delay; dropped when a sample is added. */
	plans: Map<string, readonly number[]>;
	/** The fitted end distribution per source; dropped with the plans. */
	fits: Map<DurationSource, EndDistribution | null>;
	/** Samples ever recorded per source, uncapped: how much was learned since some moment. */
	learned: Record<DurationSource, number>;
	/** The runs of this key being waited for, per plan source. */
	live: Record<PlanSource, Set<LiveRun>>;
	/** The latest `livePlan` per source, polling goal and target delay. */
	livePlans: Map<string, LivePlan>;
}

export type PlanSource = 'total' | 'run';

/** A run being waited for (`DurationStore.watch`). */
export interface LiveRun {
	/** ms after its anchor the run was last seen going. */
	going: number;
	/** The key's `learnedCount` when the run was registered. */
	since: number;
}

export interface LivePlan {
	/** The key's `learnedCount` the plan was made at. */
	learned: number;
	offsets: readonly number[];
}

export interface DurationStoreOptions {
	maxKeys?: number;
	samplesPerSource?: number;
}

const positiveInteger = (value: number | undefined, fallback: number) =>
	value !== undefined && Number.isFinite(value) && value >= 1 ? Math.floor(value) : fallback;

export class DurationStore {
	readonly maxKeys: number;

	readonly samplesPerSource: number;

	private readonly entries = new Map<string, KeyEntry>();

	constructor(options: DurationStoreOptions = {}) {
		this.maxKeys = positiveInteger(options.maxKeys, 500);
		this.samplesPerSource = positiveInteger(options.samplesPerSource, 24);
	}

	get size(): number {
		return this.entries.size;
	}

	/** Adds one sample; returns the sample as stored, for `narrow`. */
	record(key: string, source: DurationSource, sample: DurationSample): DurationSample | undefined {
		const { lo, hi } = sample;
		if (!Number.isFinite(lo) || !Number.isFinite(hi) || lo < 0 || hi < lo) return undefined;
		let entry = this.touch(key);
		if (!entry) {
			entry = {
				samples: { total: [], run: [], queueStep: [] },
				timestamped: false,
				plans: new Map(),
				fits: new Map(),
				learned: { total: 0, run: 0, queueStep: 0 },
				live: { total: new Set(), run: new Set() },
				livePlans: new Map(),
			};
			this.entries.set(key, entry);
			while (this.entries.size > this.maxKeys) {
				const oldest = this.entries.keys().next().value as string;
				this.entries.delete(oldest);
			}
		}
		const list = entry.samples[source];
		const stored = { lo, hi };
		list.push(stored);
		entry.learned[source]++;
		if (list.length > this.samplesPerSource) list.splice(0, list.length - this.samplesPerSource);
		entry.plans.clear();
		entry.fits.clear();
		return stored;
	}

	/** Narrows a sample recorded earlier to the part of it that the run's timestamps (`window`) confirm. */
	narrow(key: string, sample: DurationSample, window: DurationSample, source: 'total' | 'run' = 'total'): void {
		const entry = this.entries.get(key);
		const list = entry?.samples[source];
		const index = list ? list.indexOf(sample) : -1;
		if (!entry || !list || index < 0) return;
		const lo = Math.max(sample.lo, window.lo);
		const hi = Math.min(sample.hi, window.hi);
		if (!Number.isFinite(lo) || !Number.isFinite(hi) || lo < 0 || hi < lo) return;
		if (source === 'run') {
			// A `run` sample keeps its start's uncertainty; the timestamps only place its end.
			entry.samples.run = list.map((s, k) => (k === index ? { lo, hi } : s));
			entry.plans.clear();
			entry.fits.clear();
			return;
		}
		const learned = endDistribution(list.filter((_, k) => k !== index));
		const faster = learned !== undefined && hi < learned.lo - (learned.median - learned.lo);
		entry.samples.total = faster ? [{ lo, hi }] : list.map((s, k) => (k === index ? { lo, hi } : s));
		entry.timestamped = true;
		entry.plans.clear();
		entry.fits.clear();
	}

	markTimestamped(key: string): void {
		const entry = this.entries.get(key);
		if (!entry || entry.timestamped) return;
		entry.timestamped = true;
		entry.plans.clear();
	}

	/** Whether the key's plans from `source` start at the lower end of what was learned. */
	pollsAtLowerEnd(key: string, source: PlanSource): boolean {
		return source === 'run' || this.entries.get(key)?.timestamped !== true;
	}

	samples(key: string, source: DurationSource): readonly DurationSample[] {
		return this.entries.get(key)?.samples[source] ?? [];
	}

	has(key: string): boolean {
		const entry = this.entries.get(key);
		return entry !== undefined && SOURCES.some((s) => entry.samples[s].length > 0);
	}

	median(key: string, source: DurationSource): number | undefined {
		const list = this.entries.get(key)?.samples[source];
		if (!list?.length) return undefined;
		return medianOf(list.map((s) => (s.lo + s.hi) / 2));
	}

	/** Planned poll times for a run of this key from one source's samples, if any were usable. */
	plan(key: string, source: PlanSource, targetDelayMs: number, goal: PollingGoal = 'lowestDelay'): readonly number[] | undefined {
		const entry = this.touch(key);
		if (!entry) return undefined;
		const cacheKey = planKey(source, targetDelayMs, goal);
		let plan = entry.plans.get(cacheKey);
		if (!plan) {
			const dist = this.fit(entry, source);
			if (!dist) return undefined;
			plan = this.planFrom(dist, key, source, targetDelayMs, goal);
			if (entry.plans.size >= MAX_PLANS_PER_KEY) entry.plans.clear();
			entry.plans.set(cacheKey, plan);
		}
		return plan.length ? plan : undefined;
	}

	private planFrom(dist: EndDistribution, key: string, source: PlanSource, targetDelayMs: number, goal: PollingGoal): number[] {
		return planPolls(dist, { targetDelayMs, goal, pollAtLowerEnd: this.pollsAtLowerEnd(key, source) });
	}

	/** The chance that a run of this key, going `fromMs` after its anchor, has ended by `toMs`, if anything was learned. */
	endChance(key: string, source: PlanSource, fromMs: number, toMs: number): number | undefined {
		const entry = this.entries.get(key);
		const fit = entry ? this.fit(entry, source) : undefined;
		if (!fit) return undefined;
		const left = 1 - fit.cdf(fromMs);
		if (!(left > 0)) return 1;
		return Math.min(1, Math.max(0, (fit.cdf(toMs) - fit.cdf(fromMs)) / left));
	}

	learnedCount(key: string, source: DurationSource): number {
		return this.entries.get(key)?.learned[source] ?? 0;
	}

	/** Registers a run of a learned key being waited for; `release` it when the wait for it ends. */
	watch(key: string, source: PlanSource): LiveRun | undefined {
		const entry = this.entries.get(key);
		if (!entry) return undefined;
		const run = { going: 0, since: entry.learned[source] };
		entry.live[source].add(run);
		return run;
	}

	release(key: string, source: PlanSource, run: LiveRun): void {
		this.entries.get(key)?.live[source].delete(run);
	}

	liveCount(key: string, source: PlanSource): number {
		return this.entries.get(key)?.live[source].size ?? 0;
	}

	/** A plan from the samples and the runs still going, made from at least `fromLearned` samples ever learned. */
	livePlan(
		key: string,
		source: PlanSource,
		targetDelayMs: number,
		fromLearned: number,
		goal: PollingGoal = 'lowestDelay',
	): LivePlan | undefined {
		const entry = this.entries.get(key);
		if (!entry) return undefined;
		const cacheKey = planKey(source, targetDelayMs, goal);
		const cached = entry.livePlans.get(cacheKey);
		if (cached && cached.learned >= fromLearned) return cached.offsets.length ? cached : undefined;
		const learned = entry.learned[source];
		let since = learned;
		const going: number[] = [];
		for (const run of entry.live[source]) {
			since = Math.min(since, run.since);
			going.push(run.going);
		}
		if (learned - since > entry.samples[source].length) return undefined;
		const dist = endDistribution(entry.samples[source], going);
		const made = { learned, offsets: dist ? this.planFrom(dist, key, source, targetDelayMs, goal) : [] };
		if (entry.livePlans.size >= MAX_PLANS_PER_KEY) entry.livePlans.clear();
		entry.livePlans.set(cacheKey, made);
		return made.offsets.length ? made : undefined;
	}

	forget(key: string): void {
		const entry = this.entries.get(key);
		if (!entry) return;
		if (entry.live.total.size === 0 && entry.live.run.size === 0) {
			this.entries.delete(key);
			return;
		}
		entry.samples = { total: [], run: [], queueStep: [] };
		entry.timestamped = false;
		entry.plans.clear();
		entry.fits.clear();
		entry.livePlans.clear();
		for (const source of ['total', 'run'] as const) for (const run of entry.live[source]) run.since = entry.learned[source];
	}

	clear(): void {
		this.entries.clear();
	}

	private fit(entry: KeyEntry, source: DurationSource): EndDistribution | undefined {
		let fit = entry.fits.get(source);
		if (fit === undefined) {
			fit = endDistribution(entry.samples[source]) ?? null;
			entry.fits.set(source, fit);
		}
		return fit ?? undefined;
	}

	private touch(key: string): KeyEntry | undefined {
		const entry = this.entries.get(key);
		if (entry) {
			this.entries.delete(key);
			this.entries.set(key, entry);
		}
		return entry;
	}
}

/** The store shared by every execution in this process. */
export const sharedDurations = new DurationStore();

/** A timing key from its parts, e.g. `timingKey('model', 'acme/flux', '1024x1024')`. */
export function timingKey(kind: string, id: string, shape?: string): string {
	return shape === undefined || shape === '' ? `${kind}:${id}` : `${kind}:${id}:${shape}`;
}
