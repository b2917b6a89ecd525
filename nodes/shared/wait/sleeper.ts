/** How a job sleeps until its next poll, and what cuts the sleep short: Stop, its cold batch, the runs of its queue. */
import type { Clock } from './clock';
import { onAbortOf, sleepFor } from './clock';
import type { ColdGroup, ColdMember } from './coldBatch';
import type { JobSchedule } from './schedule';

/** Its cold batch can interrupt a job's sleep; a wake-up while awake is kept for the next sleep. */
export interface Sleeper extends ColdMember {
	pending: boolean;
	current: AbortController | undefined;
	/** Woken because a run ahead in its queue ended: it polls at once. */
	pollNow: boolean;
	/** Woken because its plan moved: it polls then instead. */
	moveTo: number | undefined;
	dueAt: number;
	byBatch: boolean;
}

/** A job that has not slept yet, counted as polled at `start` by its cold batch. */
export function sleeperOf(start: number): Sleeper {
	const sleeper: Sleeper = {
		lastPollAt: start,
		pending: false,
		current: undefined,
		pollNow: false,
		moveTo: undefined,
		dueAt: start,
		byBatch: false,
		wake: () => {
			sleeper.pending = true;
			if (sleeper.byBatch) sleeper.current?.abort();
		},
	};
	return sleeper;
}

/** The sleeps of one wait: none past its deadline, and Stop ends each at once. */
export class Sleeps {
	constructor(
		private readonly clock: Clock,
		private readonly deadline: number,
		private readonly signal: AbortSignal | undefined,
	) {}

	private aborted(): boolean {
		return this.signal?.aborted === true;
	}

	/** Sleeps `ms`, then true; false when stopped. `queued`: the run has a queue whose ends may wake it. */
	async untilPoll(ms: number, schedule: JobSchedule, sleeper: Sleeper, group: ColdGroup | undefined, queued: boolean): Promise<boolean> {
		const clock = this.clock;
		let wait = ms;
		for (;;) {
			const sleepMs = Math.min(wait, Math.max(0, this.deadline - clock.now()));
			const slept = await this.pauseOrWake(sleepMs, sleeper, group?.has(sleeper) === true, queued);
			if (slept !== 'woken') return slept === 'slept';
			if (sleeper.pollNow) {
				sleeper.pollNow = false;
				sleeper.moveTo = undefined;
				return true;
			}
			const now = clock.now();
			if (sleeper.moveTo !== undefined) {
				wait = sleeper.moveTo - now;
				sleeper.moveTo = undefined;
				if (wait <= 0) return !this.aborted();
				continue;
			}
			wait = group?.has(sleeper) ? group.waitOf(sleeper, now) : schedule.wake(now);
			if (wait <= 0) return !this.aborted();
		}
	}

	/** Sleeps until `ms` passed, the execution was stopped, or the job was woken. */
	private async pauseOrWake(ms: number, sleeper: Sleeper, byBatch: boolean, byQueue: boolean): Promise<'slept' | 'stopped' | 'woken'> {
		const { clock, signal } = this;
		if (this.aborted()) return 'stopped';
		if (sleeper.pending) {
			sleeper.pending = false;
			return 'woken';
		}
		if (!byBatch && !byQueue) {
			try {
				await sleepFor(clock, ms, signal);
			} catch {
				// sleep only rejects when the signal aborts; the check below decides
			}
			return this.aborted() ? 'stopped' : 'slept';
		}
		const wake = new AbortController();
		// The execution's signal keeps one listener however many jobs sleep on it (./clock `onAbortOf`).
		const forget = signal ? onAbortOf(signal, () => wake.abort()) : undefined;
		sleeper.current = wake;
		sleeper.byBatch = byBatch;
		sleeper.dueAt = clock.now() + ms;
		try {
			await sleepFor(clock, ms, wake.signal);
		} catch {
			// rejects only when stopped or woken; decided below
		} finally {
			sleeper.current = undefined;
			forget?.();
		}
		if (this.aborted()) return 'stopped';
		if (sleeper.pollNow || sleeper.moveTo !== undefined) return 'woken';
		// A wake-up from outside its batch is kept for the next sleep, as for a sleep nothing may cut short.
		if (!byBatch || !sleeper.pending) return 'slept';
		sleeper.pending = false;
		return 'woken';
	}
}
