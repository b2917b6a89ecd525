/** The learned plan one run follows, and the store counting the run as going while it does. */
import type { LivePlan, LiveRun, PlanSource } from './learning';
import type { ResolvedOptions } from './options';
import type { WaitJob } from './types';

/** A cold batch ends with its last run: its plans aim at what a Wait 1 s loop sees. */
export const COLD_TARGET_MS = 1300;

/** A followed plan is made again once the key has learned this many times the samples it was made from… */
export const REPLAN_GROWTH = 1.5;
/** …and at least this many more. */
export const REPLAN_MIN_NEW = 3;

interface Plan {
	anchor: number;
	offsets: readonly number[];
	source: PlanSource;
	/** The key's `learnedCount` the offsets were made from. */
	learned: number;
	/** This run, registered with the store while it follows the plan. */
	live: LiveRun | undefined;
	/** The median delay the plan aims at. */
	target: number;
}

export class FollowedPlan {
	private plan: Plan | undefined;

	/** The run is part of a cold batch, which ends with its last run: its plan from its start aims at what a Wait 1 s loop sees. */
	inColdBatch = false;

	constructor(
		private readonly job: WaitJob,
		private readonly options: ResolvedOptions,
	) {}

	/** Whether the run follows a plan now. */
	following(): boolean {
		return this.plan !== undefined;
	}

	/** A learned plan that also counts the key's other runs still going. */
	offsetsOf(key: string, source: PlanSource): readonly number[] | undefined {
		const store = this.options.durations;
		try {
			const { pollingGoal } = this.options;
			const targetDelayMs = this.target(source);
			const live =
				store.liveCount(key, source) > 0
					? store.livePlan(key, source, targetDelayMs, store.learnedCount(key, source), pollingGoal)
					: undefined;
			return live?.offsets ?? store.plan(key, source, targetDelayMs, pollingGoal);
		} catch {
			return undefined;
		}
	}

	/** Follows `offsets` from `anchor` instead of any plan so far; none without offsets. */
	follow(offsets: readonly number[] | undefined, anchor: number, source: PlanSource): void {
		this.drop();
		const key = this.job.timingKey;
		if (!offsets?.length || !key) return;
		const store = this.options.durations;
		this.plan = {
			anchor,
			offsets,
			source,
			learned: store.learnedCount(key, source),
			live: store.watch(key, source),
			target: this.target(source),
		};
	}

	/** A queued run's plan from its start, in a cold batch, aims as the batch's plans from submit do (`remakeForBatch`). */
	private target(source: PlanSource): number {
		const { targetDelayMs } = this.options;
		return this.inColdBatch && source === 'run' ? this.coldTarget(targetDelayMs) : targetDelayMs;
	}

	/** A cold batch ends with its last run: aim at what a Wait 1 s loop sees, unless the goal counts requests. */
	private coldTarget(target: number): number {
		return this.options.pollingGoal === 'fewestRequests' ? target : Math.max(target, COLD_TARGET_MS);
	}

	/** Stops following a plan; the store no longer counts this run as going. */
	drop(): void {
		const plan = this.plan;
		this.plan = undefined;
		const key = this.job.timingKey;
		if (plan?.live && key) this.options.durations.release(key, plan.source, plan.live);
	}

	/** The plan's first poll after `now`; none past its last. */
	nextAfter(now: number): number | undefined {
		if (!this.plan) return undefined;
		const { anchor, offsets } = this.plan;
		for (const offset of offsets) if (anchor + offset > now) return anchor + offset;
		return undefined;
	}

	/** When the plan polls first. */
	firstPollAt(): number | undefined {
		return this.plan ? this.plan.anchor + this.plan.offsets[0] : undefined;
	}

	/** The store counts the run as going at least `ms` from the plan's anchor. */
	countGoing(ms: number): void {
		const live = this.plan?.live;
		if (live) live.going = Math.max(live.going, ms);
	}

	/** The run was seen going around `at`: the plan is made again once the key learned enough since. */
	seenGoing(key: string, at: number): void {
		const plan = this.plan;
		if (!plan) return;
		if (plan.live) plan.live.going = Math.max(plan.live.going, at - plan.anchor);
		// A new plan's polls before its count's last one would be paid on top of those already sent.
		if (this.options.pollingGoal === 'fewestRequests') return;
		const store = this.options.durations;
		const learned = store.learnedCount(key, plan.source);
		const enough = Math.max(plan.learned + REPLAN_MIN_NEW, plan.learned * REPLAN_GROWTH);
		if (learned < enough) return;
		let made: LivePlan | undefined;
		try {
			made = store.livePlan(key, plan.source, plan.target, enough, this.options.pollingGoal);
		} catch {
			// learning must never break the wait: the plan followed so far stays
		}
		plan.learned = made?.learned ?? learned;
		if (made) plan.offsets = made.offsets;
	}

	/** Its cold batch learned a run time: the plan is made again now that every run of the batch is enrolled, so it counts them all. */
	remakeForBatch(key: string): void {
		const plan = this.plan;
		if (!plan) return;
		try {
			plan.target = this.coldTarget(plan.target);
			const made = this.options.durations.livePlan(key, plan.source, plan.target, plan.learned, this.options.pollingGoal);
			if (made) plan.offsets = made.offsets;
		} catch {
			// learning must never break the wait: the plan followed so far stays
		}
	}

	/** How likely the run has ended by `time`, last seen going at `lastGoingAt`; none without a plan. */
	endChance(key: string, lastGoingAt: number | undefined, time: number): number | undefined {
		if (!this.plan) return undefined;
		const { anchor, source } = this.plan;
		const from = Math.max(0, (lastGoingAt ?? anchor) - anchor);
		return this.options.durations.endChance(key, source, from, time - anchor);
	}
}
