/** The runs of one timing key in RunComfy's queue: which is at its front, and whether they run one at a time. */

interface Seen {
	sent: number;
	received: number;
}

export class KeyQueue {
	private readonly left = new Set<number>();

	/** For each run seen ended, when it was last known not ended. */
	private readonly ends: number[] = [];

	/** Runs last seen queued: their `queue_position` and when the poll that read it was sent. */
	private readonly queued = new Map<number, { position: number; at: number }>();

	/** The first and the last poll that saw each run going, until it is seen ended. */
	private readonly going = new Map<number, { first: Seen; last: Seen }>();

	/** Runs woken because the run ahead ended, and when, until a poll sent since tells whether they started. */
	private readonly woken = new Map<number, number>();

	/** Runs woken by the cold batch's first success, when no run was seen going: like a woken front, each tells whether it started. */
	private readonly swept = new Set<number>();

	/** When the first of those runs was seen going. */
	private sweptGoingAt: number | undefined;

	/** A run woken when the run ahead ended was then seen going. */
	private followed = false;

	/** Two runs were seen going at the same moment: not one at a time. */
	private mixed = false;

	/** The runs are seen to run one at a time (one instance): a queued run starts only when the run going ends. */
	oneAtATime(): boolean {
		return this.followed && !this.mixed;
	}

	/** The only run seen going started after the run ahead was last seen going, and that run ended. */
	tookPlace(): void {
		this.followed = true;
	}

	goingRun(): number | undefined {
		return this.going.size === 1 ? [...this.going.keys()][0] : undefined;
	}

	blocked(index: number): boolean {
		if (!this.oneAtATime()) return false;
		for (const i of this.going.keys()) if (i !== index) return true;
		return false;
	}

	/**
	 * A poll saw run `index` queued at `position`. True when it was woken as the front and has not started: a run
	 * thought to be behind it may have, so the queued runs should look again.
	 */
	seenQueued(index: number, position: number, sent: number): boolean {
		this.queued.set(index, { position, at: sent });
		this.swept.delete(index);
		const woken = this.woken.get(index);
		if (woken === undefined || sent < woken) return false;
		this.woken.delete(index);
		return true;
	}

	queuedRuns(): number[] {
		return [...this.queued.keys()];
	}

	/**
	 * The poll answered between `sent` and `received` saw run `index` going. True when this shows that the runs,
	 * taken to go one at a time so far, do not: the queued runs sleeping for the run going should look again.
	 */
	seenGoing(index: number, sent: number, received: number, asked = sent): boolean {
		const was = this.oneAtATime();
		this.queued.delete(index);
		if (this.woken.delete(index)) this.followed = true;
		if (this.swept.delete(index)) {
			// One end lets one run start when they go one at a time: two seen going by polls asked for together (some
			// may wait for a free Parallel Status Check) show they do not. A run held since, seen going later, shows nothing.
			if (this.sweptGoingAt === undefined) {
				this.sweptGoingAt = received;
				this.followed = true;
			} else if (asked <= this.sweptGoingAt) this.mixed = true;
		}
		const seen = { sent, received };
		const previous = this.going.get(index);
		const mine = { first: previous?.first ?? seen, last: seen };
		this.going.set(index, mine);
		for (const [i, other] of this.going) if (i !== index && together(mine, other)) this.mixed = true;
		return was && !this.oneAtATime();
	}

	/** Its wait ended without a poll seeing it end (an error, a timeout, Stop): it no longer counts as left or going. */
	gone(index: number): void {
		this.left.delete(index);
		this.going.delete(index);
		this.forget(index);
	}

	/** Left the queue some other way: no position, an error, or its wait ended. */
	forget(index: number): void {
		this.queued.delete(index);
		this.woken.delete(index);
		this.swept.delete(index);
	}

	add(index: number): void {
		this.left.add(index);
	}

	lastLeft(): number | undefined {
		return this.left.size === 1 ? [...this.left][0] : undefined;
	}

	/** Run `index` was seen ended; `notEndedAt`: when a poll last found it not ended, if one did. */
	ended(index: number, notEndedAt = -Infinity): void {
		this.ends.push(notEndedAt);
		this.gone(index);
	}

	/**
	 * The run last seen queued at the front: the lowest position, counted down by the runs that ended after it was
	 * read (a poll found them not ended then or later, taken at its middle). Ends seen late, as a cold batch sees
	 * them, do not count; of equals the first submitted leads.
	 */
	front(): number | undefined {
		let front: { index: number; position: number } | undefined;
		for (const [index, q] of this.queued) {
			const position = q.position - this.ends.filter((notEndedAt) => notEndedAt >= q.at).length;
			if (!front || position < front.position || (position === front.position && index < front.index)) front = { index, position };
		}
		return front?.index;
	}

	/** The cold batch's first success wakes every run left: with none seen going before, their answers tell whether they go one at a time. */
	sweep(): void {
		if (this.going.size === 0) for (const i of this.left) this.swept.add(i);
	}

	/**
	 * Where a run seen queued without a `queue_position` (a result record has none) stands: behind the runs submitted
	 * before it that are neither ended nor seen going, as the queue is first in, first out.
	 */
	rankOf(index: number): number {
		let ahead = 0;
		for (const i of this.left) if (i < index && !this.going.has(i)) ahead++;
		return ahead + 1;
	}

	/** With no other run seen going, the woken run's next poll tells whether it started. */
	wake(index: number, now: number): void {
		if (this.going.size === 0) this.woken.set(index, now);
	}
}

/** Whether two runs were surely going at one moment: each was going all the time between its first and last poll. */
function together(a: { first: Seen; last: Seen }, b: { first: Seen; last: Seen }): boolean {
	const surely = (r: { first: Seen; last: Seen }) => ({ from: r.first.received, to: r.last.sent });
	const inside = (seen: Seen, span: { from: number; to: number }) => span.from <= seen.sent && seen.received <= span.to;
	const sa = surely(a);
	const sb = surely(b);
	if (Math.max(sa.from, sb.from) <= Math.min(sa.to, sb.to) && sa.from <= sa.to && sb.from <= sb.to) return true;
	return inside(a.first, sb) || inside(a.last, sb) || inside(b.first, sa) || inside(b.last, sa);
}
