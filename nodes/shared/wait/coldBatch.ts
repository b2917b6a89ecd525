/**
 * Runs of one timing key waited for together with nothing learned about them: a cold batch.
 *
 * Runs of one model submitted together end at similar times, so the batch does not need every run polled on its
 * own backoff (which lands polls up to Max Poll Interval after an end, and pays every run's polls). Until one run
 * of the key has ended and taught its time, the batch is polled as one: one status request per tick, each tick
 * for the run polled longest ago (so every run is checked in turn), ticks `elapsed / TICK_SHARE` apart (at least
 * the first interval, at most Max Poll Interval). The other runs send nothing meanwhile. The first run seen ended
 * with a learned time (its result's timestamps narrow it, when the caller fetches it at once) wakes the rest: each
 * follows the plan learned from it and from the runs still going (./schedule `wake`), which the runs that end next
 * refine as for any batch.
 *
 * A run seen ended leaves at once, so the batch's ticks go on while its result is fetched; one that succeeded
 * then wakes the rest, even when nothing could be learned from it (they go on with the plain backoff); one that
 * failed or was cancelled only leaves. A run seen queued stays (the runs of a batch queue alike, so the time from
 * submit of the first to end teaches the rest); one answered 429 leaves to wait out its Retry-After on its own. No run stays silent longer than SILENT_INTERVALS × Max Poll Interval, so a lost wake-up costs
 * polls, never the run. A single cold run keeps the plain backoff (nothing to share).
 */

/** A tick's interval is this fraction of the time since waiting started (within the first and the max interval). */
export const TICK_SHARE = 16;
/** The longest a run of a cold batch stays without a poll of its own, in Max Poll Intervals. */
export const SILENT_INTERVALS = 6;

export interface ColdMember {
	/** When this run was last polled (or when waiting started). */
	lastPollAt: number;
	/** Interrupts the member's current sleep so it asks again when to poll. */
	wake: () => void;
	/** Its batch learned a run time: it starts counting as a run going at `now` (before any member is woken). */
	enroll?: (now: number) => void;
}

export interface TickSettings {
	start: number;
	firstPollDelayMs: number;
	initialIntervalMs: number;
	maxIntervalMs: number;
}

export class ColdGroup {
	private readonly members = new Set<ColdMember>();

	private ticker: ColdMember | undefined;

	private tickAt: number;

	/** A run of the key ended and taught its time: every member follows what was learned. */
	learned = false;

	constructor(private readonly settings: TickSettings) {
		this.tickAt = settings.start + settings.firstPollDelayMs;
	}

	join(member: ColdMember): void {
		this.members.add(member);
		this.ticker ??= member;
	}

	/** Whether `member` still waits as part of the cold batch. */
	has(member: ColdMember): boolean {
		return !this.learned && this.members.has(member);
	}

	/** ms from `now` until `member` polls: the tick's time for the ticker, else the silent cap. */
	waitOf(member: ColdMember, now: number): number {
		if (member === this.ticker) return Math.max(0, this.tickAt - now);
		return member.lastPollAt + SILENT_INTERVALS * this.settings.maxIntervalMs - now;
	}

	/** `member` was polled around `at` and is still going: the next tick goes to the run polled longest ago. */
	polled(member: ColdMember, at: number): void {
		member.lastPollAt = at;
		if (member !== this.ticker) return;
		this.nextTick(at);
	}

	/** `member` ended, or stops being part of the batch (seen queued, rate limited): the turn passes on. */
	leave(member: ColdMember, now: number): void {
		if (!this.members.delete(member)) return;
		if (member === this.ticker) this.nextTick(now);
	}

	/** A run of the batch succeeded (and its result, fetched, taught its time): every member follows what was learned. */
	learn(now: number): void {
		if (this.learned) return;
		this.learned = true;
		for (const m of this.members) m.enroll?.(now);
		for (const m of this.members) m.wake();
	}

	private nextTick(now: number): void {
		let next: ColdMember | undefined;
		for (const m of this.members) if (!next || m.lastPollAt < next.lastPollAt) next = m;
		const { start, initialIntervalMs, maxIntervalMs } = this.settings;
		this.tickAt = now + Math.min(maxIntervalMs, Math.max(initialIntervalMs, (now - start) / TICK_SHARE));
		const previous = this.ticker;
		this.ticker = next;
		if (next && next !== previous) next.wake();
	}
}
