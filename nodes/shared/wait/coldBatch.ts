/** Runs of one timing key waited for together with nothing learned about them: a cold batch. */

/** A tick's interval is this fraction of the time since waiting started. */
export const TICK_SHARE = 16;
/** The longest a run of a cold batch stays without a poll of its own, in Max Poll Intervals. */
export const SILENT_INTERVALS = 6;

export interface ColdMember {
	lastPollAt: number;
	/** Interrupts the member's current sleep so it asks again when to poll. */
	wake: () => void;
	/** Its batch learned a run time: it starts counting as a run going at `now`. */
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

	has(member: ColdMember): boolean {
		return !this.learned && this.members.has(member);
	}

	/** ms from `now` until `member` polls: the tick's time for the ticker, else the silent cap. */
	waitOf(member: ColdMember, now: number): number {
		if (member === this.ticker) return Math.max(0, this.tickAt - now);
		return member.lastPollAt + SILENT_INTERVALS * this.settings.maxIntervalMs - now;
	}

	/** `member` is still going: the next tick goes to the run polled longest ago. */
	polled(member: ColdMember, at: number): void {
		member.lastPollAt = at;
		if (member !== this.ticker) return;
		this.nextTick(at);
	}

	/** `member` ended, or stops being part of the batch: the turn passes on, while the batch still ticks. */
	leave(member: ColdMember, now: number): void {
		if (!this.members.delete(member)) return;
		// Once learned, every run follows its plan: a turn's wake-up would only pull a run back to it.
		if (member === this.ticker && !this.learned) this.nextTick(now);
	}

	/** A run of the batch succeeded: every member follows what was learned. */
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
