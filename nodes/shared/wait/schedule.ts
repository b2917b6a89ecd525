/** When to poll one job next. */
import type { IDataObject } from 'n8n-workflow';

import type { RunState } from '../types';
import type { DurationSample } from './distribution';
import { FollowedPlan } from './followedPlan';
import type { ResolvedOptions } from './options';
import { MIN_INTERVAL_MS } from './options';
import type { StepProgress } from './steps';
import { StepForecast } from './steps';
import type { WaitJob } from './types';

/** A `run` sample is learned only when its start is known within this fraction of its duration. */
export const MAX_START_UNCERTAINTY = 0.2;

/** The first wait of a job whose steps are all counted done while it is still running. */
export const FINISHING_FIRST_MS = 1000;

/** A planned poll asks for the result when the run has ended by then at least this likely. */
export const RESULT_POLL_CHANCE = 0.5;

/** Polls of a woken cold batch's run past its plan at the first interval before its backoff grows again. */
export const WOKEN_FLAT_POLLS = 5;

/** What a finished run taught (`JobSchedule.finished`). */
export interface Learned {
	total?: DurationSample;
	run?: { sample: DurationSample; startOffset: number };
}

const positionOf = (record: IDataObject): number | undefined => {
	const raw = record.queue_position;
	const n = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
	return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined;
};

export class JobSchedule {
	private interval: number;

	private readonly plan: FollowedPlan;

	private readonly submittedAt: number;

	private lastPollAt: number | undefined;

	private lastGoingAt: number | undefined;

	private seenQueued = false;

	/** In a cold batch, whose runs queue alike: a queued run teaches its time from submit. */
	private inColdBatch = false;

	/** Its queue is seen to run one at a time: a time from submit counts the runs ahead, not this run. */
	oneAtATime = false;

	private firstQueued: { at: number; position: number } | undefined;

	private start: { lo: number; hi: number } | undefined;

	private position: number | undefined;

	/** A run ahead in its queue was last seen going then: this run starts after it, when it is next seen going. */
	private aheadGoingAt: number | undefined;

	/**
	 * Its queue runs one at a time and the run ahead ended within this window (its polls, then its timestamps): this
	 * run started then.
	 */
	private aheadEnd: { lo: number; hi: number } | undefined;

	/** The last run of a batch queued one after another. */
	private lastOfBatch = false;

	private firstPollPlanned = false;

	/** The poll the last wait leads to asks for the result (see `asksResult`). */
	private expectsEnd = false;

	/** A result request of this job was refused: it polls its status only. */
	private resultPollsRefused = false;

	/** Polls left at the first interval past the plan of a woken cold batch run. */
	private flatPolls = 0;

	/** Where the steps of a job that reports them end. */
	private readonly steps = new StepForecast();

	/** The growing wait while a job's steps are done or overdue. */
	private finishingWait: number | undefined;

	constructor(
		private readonly job: WaitJob,
		private readonly options: ResolvedOptions,
		waitStart: number,
		private readonly random: () => number,
	) {
		this.interval = options.initialIntervalMs;
		this.plan = new FollowedPlan(job, options);
		const submitted = job.submittedAt;
		this.submittedAt = typeof submitted === 'number' && Number.isFinite(submitted) && submitted <= waitStart ? submitted : waitStart;
	}

	/** ms from `now` until the first poll. */
	firstDelay(now: number): number {
		const key = this.job.timingKey;
		if (key) this.plan.follow(this.plan.offsetsOf(key, 'total'), this.submittedAt, 'total');
		const planned = this.plan.nextAfter(now);
		const delay = Math.max(this.options.firstPollDelayMs, planned === undefined ? 0 : planned - now);
		// Only a first poll at the lower end of what was learned tells that the runs got faster by finding one
		// finished.
		this.firstPollPlanned =
			planned !== undefined && now + delay <= planned && key !== undefined && this.options.durations.pollsAtLowerEnd(key, 'total');
		this.expectsEnd = planned !== undefined && this.endLikelyBy(now + delay);
		return delay;
	}

	/** Whether the next poll should be a result request (`WaitJob.pollResult`). */
	asksResult(): boolean {
		return this.expectsEnd;
	}

	/** A result request found the run going or was refused: poll the status from now on. */
	refuseResultPolls(): void {
		this.resultPollsRefused = true;
	}

	/** After a poll around `at` found the job not finished: ms from `now` until the next poll. */
	afterPoll(at: number, now: number, state: RunState, record: IDataObject, steps?: StepProgress): number {
		const key = this.job.timingKey;
		const previous = this.lastPollAt;
		this.lastPollAt = at;
		this.lastGoingAt = at;
		this.expectsEnd = false;
		const aheadGoingAt = this.aheadGoingAt;
		this.aheadGoingAt = undefined;
		const aheadEnd = this.aheadEnd;
		this.aheadEnd = undefined;
		this.position = undefined;
		if (state === 'queued') {
			this.seenQueued = true;
			this.start = undefined;
			this.flatPolls = 0;
			this.plan.drop();
			const position = positionOf(record);
			this.position = position;
			if (!this.firstQueued && position !== undefined && position >= 1) this.firstQueued = { at, position };
			if (key) return this.queuedWait(key, position);
		} else if (state === 'cancelling') {
			this.plan.drop();
		}
		if (state === 'running' && steps) this.steps.observe(at, steps);
		if (state === 'running' && !this.start) {
			this.start = { lo: Math.max(previous ?? this.submittedAt, aheadGoingAt ?? -Infinity), hi: at };
			if (aheadEnd) this.startedWhen(aheadEnd);
			// The run's own time from its start, else the time from submit; one at a time, a time from submit counts the
			// runs ahead, so the backoff starts again instead.
			if (key && this.seenQueued && !this.followFromStart(key)) {
				if (aheadEnd || this.oneAtATime) this.interval = this.options.initialIntervalMs;
				else if (!this.plan.following()) this.plan.follow(this.plan.offsetsOf(key, 'total'), this.submittedAt, 'total');
			}
		}
		if (this.plan.following() && key && state === 'running') this.plan.seenGoing(key, at);
		if (this.plan.following()) {
			const planned = this.plan.nextAfter(now);
			if (planned !== undefined) {
				// The batch's end: from the plan's first poll on, no later than a Wait loop at the first interval would see it.
				const first = this.plan.firstPollAt();
				const dense = this.lastOfBatch && state === 'running' && first !== undefined && at >= first;
				const wait = dense ? Math.min(planned - now, this.options.initialIntervalMs) : planned - now;
				this.expectsEnd = this.endLikelyBy(now + wait);
				return wait;
			}
			// Past the upper end of what was learned: back off again from the first interval.
			this.plan.drop();
			this.interval = this.options.initialIntervalMs;
		}
		const backoff = this.backoffWait();
		return state === 'running' ? this.untilStepsEnd(now, backoff) : backoff;
	}

	/** Where the last poll saw the run in its queue, if it saw it queued. */
	queuePosition(): number | undefined {
		return this.position;
	}

	/**
	 * A run ahead of this one in its queue ended after `goingAt`: if the next poll sees this run going, it started then.
	 * `last`: no other run of its batch is left, so its end is the batch's.
	 */
	aheadEnded(goingAt: number, last: boolean, end?: { lo: number; hi: number }): void {
		this.aheadGoingAt = goingAt;
		this.lastOfBatch = last;
		this.aheadEnd = end;
	}

	/**
	 * The run ahead in a queue that runs one at a time ended within `end` (its polls, then its timestamps): this
	 * run, queued behind it and seen going, started then. `last`: no other run of its batch is left. Returns when
	 * its plan, moved there, polls next, if it follows one.
	 */
	aheadEndKnown(end: { lo: number; hi: number }, now: number, last: boolean): number | undefined {
		if (last) this.lastOfBatch = true;
		if (!this.start) {
			if (this.aheadEnd) this.aheadEnd = end;
			return undefined;
		}
		const key = this.job.timingKey;
		if (!key || !this.seenQueued || !this.startedWhen(end)) return undefined;
		this.followFromStart(key);
		return this.nextPlanned(now);
	}

	/**
	 * Its queue runs one at a time and the run ahead ended (`aheadEnded`): this run, asleep while queued, is taken to
	 * have started then, with no poll to see it going. Returns when its plan from there polls next; none without a
	 * learned run time, and then the poll at once asks for the result when the run has likely ended: the run ahead,
	 * `endedUnseen`, ended before its own first poll, or the shortest time from submit learned has passed since
	 * the middle of the ahead's end. A poll that still finds it queued drops the plan.
	 */
	startedBehind(now: number, endedUnseen: boolean): number | undefined {
		const key = this.job.timingKey;
		const end = this.aheadEnd;
		if (!key || !end || !this.seenQueued || this.start) return undefined;
		if (!this.plan.offsetsOf(key, 'run')) {
			const shortest = Math.min(...this.options.durations.samples(key, 'total').map((sample) => sample.hi));
			const likely = endedUnseen || now - shortest >= (end.lo + end.hi) / 2;
			this.expectsEnd = likely && this.job.pollResult !== undefined && !this.resultPollsRefused;
			return undefined;
		}
		// Its own last poll found it still queued: it started after that too.
		this.start = { lo: Math.min(end.hi, Math.max(end.lo, this.lastPollAt ?? -Infinity)), hi: end.hi };
		this.followFromStart(key);
		return this.nextPlanned(now);
	}

	/** Follows the run's own learned time from the middle of its start; whether one was learned. */
	private followFromStart(key: string): boolean {
		const run = this.plan.offsetsOf(key, 'run');
		if (!run || !this.start) return false;
		this.plan.follow(run, (this.start.lo + this.start.hi) / 2, 'run');
		return true;
	}

	/** The plan's next poll after `now`, set to ask for the result where the run has likely ended by then. */
	private nextPlanned(now: number): number | undefined {
		const planned = this.plan.nextAfter(now);
		if (planned !== undefined) this.expectsEnd = this.endLikelyBy(planned);
		return planned;
	}

	/** Woken as the front when the run ahead ended, it was seen ended by its next poll: its run took less than that wait. */
	endedUnseen(): boolean {
		return this.aheadEnd !== undefined && this.start === undefined;
	}

	/** Marks it the only run of its batch left; returns when it polls next: at most `interval` after its last poll once past its plan's first poll. */
	markLastOfBatch(interval: number): number | undefined {
		this.lastOfBatch = true;
		const first = this.plan.firstPollAt();
		if (first === undefined || this.lastPollAt === undefined || this.position !== undefined || this.lastPollAt < first) return undefined;
		return this.lastPollAt + interval;
	}

	/** Narrows the start to `end` of the run ahead, where the two agree; whether it did. */
	private startedWhen(end: { lo: number; hi: number }): boolean {
		const start = this.start;
		if (!start) return false;
		const lo = Math.max(start.lo, end.lo);
		const hi = Math.min(start.hi, end.hi);
		if (!(lo <= hi)) return false;
		this.start = { lo, hi };
		return true;
	}

	/** Whether the run was seen queued and then going, its last poll that saw it queued after `at`. */
	startedAfter(at: number): boolean {
		return this.seenQueued && this.start !== undefined && this.start.lo >= at;
	}

	/** When the run was last seen going. */
	lastSeenGoing(): number | undefined {
		return this.lastGoingAt;
	}

	/** Waited for in a cold batch: its plans aim where the batch's end is seen (`FollowedPlan.inColdBatch`). */
	joinColdBatch(): void {
		this.inColdBatch = true;
		this.plan.inColdBatch = true;
	}

	/** The job's key while it follows no learned plan, for a cold batch. */
	coldKey(): string | undefined {
		const key = this.job.timingKey;
		return key && !this.plan.following() ? key : undefined;
	}

	/** Its cold batch learned a run time: follow the plan, counted as going until `now`. */
	enroll(now: number): void {
		const key = this.coldKey();
		if (!key) return;
		this.plan.follow(this.plan.offsetsOf(key, 'total'), this.submittedAt, 'total');
		if (this.lastGoingAt !== undefined) this.plan.countGoing(Math.min(now, this.lastGoingAt) - this.submittedAt);
	}

	/** Its cold batch learned a run time: follow the plan from submit; returns ms until the next poll. */
	wake(now: number): number {
		const key = this.job.timingKey;
		this.interval = this.options.initialIntervalMs;
		if (!this.plan.following()) this.enroll(now);
		const following = this.plan.following();
		// Without a plan: a poll now, then the plain backoff as for any run.
		this.flatPolls = following ? WOKEN_FLAT_POLLS : 0;
		if (!following) return 0;
		if (key) this.plan.remakeForBatch(key);
		const planned = this.plan.nextAfter(now);
		if (planned === undefined) {
			// Past the plan: a run that has likely ended is asked for its result now; otherwise one interval on, when the
			// poll may as well bring the result.
			const endedNow = this.endLikelyBy(now);
			const wait = endedNow ? 0 : this.backoffWait();
			this.expectsEnd = endedNow || this.endLikelyBy(now + wait);
			this.plan.drop();
			return wait;
		}
		this.expectsEnd = this.endLikelyBy(planned);
		return planned - now;
	}

	/** The backoff's wait, shortened to land on the end of the job's last step. */
	private untilStepsEnd(now: number, backoff: number): number {
		const forecast = this.steps.forecast();
		if (!forecast) return backoff;
		if (forecast.stepsDone || forecast.latest <= now) {
			this.finishingWait = this.finishingWait === undefined ? FINISHING_FIRST_MS : this.finishingWait * this.options.backoffFactor;
			return Math.min(backoff, this.finishingWait);
		}
		this.finishingWait = undefined;
		return Math.min(backoff, Math.max(MIN_INTERVAL_MS, forecast.latest - now));
	}

	/** The backoff wait, growing the interval. */
	backoffWait(): number {
		const wait = this.jitteredInterval();
		// A cold batch's run just past its plan: the batch ends with its last run, so it is not left to a growing
		// backoff.
		if (this.flatPolls > 0) this.flatPolls--;
		else this.interval = Math.min(this.options.maxIntervalMs, this.interval * this.options.backoffFactor);
		return wait;
	}

	/** The current interval with jitter, not grown. */
	jitteredInterval(): number {
		const { jitter, maxIntervalMs } = this.options;
		const ms = jitter > 0 ? this.interval * (1 + (this.random() * 2 - 1) * jitter) : this.interval;
		return Math.min(maxIntervalMs, ms);
	}

	/** The job was seen finished by the poll around `at`: learn from a successful run. */
	finished(at: number, state: RunState): Learned {
		this.plan.drop();
		const key = this.job.timingKey;
		if (!key || state !== 'succeeded') return {};
		const store = this.options.durations;
		if (this.lastGoingAt === undefined && this.firstPollPlanned) {
			// Finished before the lower end of what was learned: the runs got faster.
			store.forget(key);
			return {};
		}
		const endLo = this.lastGoingAt ?? this.submittedAt;
		// A queued run's time from submit holds for the runs queued with it, not for runs behind another queue.
		const total =
			this.seenQueued && !this.inColdBatch
				? undefined
				: store.record(key, 'total', { lo: endLo - this.submittedAt, hi: at - this.submittedAt });
		return { total, ...this.learnRun(key, endLo, at) };
	}

	/** Learns the `run` and `queueStep` durations of a run seen queued and then in progress. */
	private learnRun(key: string, endLo: number, at: number): Pick<Learned, 'run'> {
		const store = this.options.durations;
		if (!this.start) return {};
		const startMid = (this.start.lo + this.start.hi) / 2;
		const run = { lo: endLo - startMid, hi: at - startMid };
		const sample =
			this.start.hi - this.start.lo <= MAX_START_UNCERTAINTY * ((run.lo + run.hi) / 2) ? store.record(key, 'run', run) : undefined;
		if (this.firstQueued) {
			const { at: queuedAt, position } = this.firstQueued;
			store.record(key, 'queueStep', {
				lo: Math.max(0, this.start.lo - queuedAt) / position,
				hi: Math.max(0, this.start.hi - queuedAt) / position,
			});
		}
		return sample ? { run: { sample, startOffset: startMid - this.submittedAt } } : {};
	}

	private queuedWait(key: string, position: number | undefined): number {
		const backoff = this.backoffWait();
		if (position === undefined) return backoff;
		const step = this.options.durations.median(key, 'queueStep') ?? this.options.initialIntervalMs;
		return Math.max(backoff, Math.min(this.options.maxIntervalMs, (position * step) / 2));
	}

	/** Stops following a plan; the store no longer counts this run as going. */
	dropPlan(): void {
		this.plan.drop();
	}

	/** Whether the poll at `time` should ask for the result (see `asksResult`). */
	private endLikelyBy(time: number): boolean {
		const key = this.job.timingKey;
		if (!key || !this.plan.following() || !this.job.pollResult || this.resultPollsRefused) return false;
		try {
			return (this.plan.endChance(key, this.lastGoingAt, time) ?? 0) >= RESULT_POLL_CHANCE;
		} catch {
			return false;
		}
	}
}
