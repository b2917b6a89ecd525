/**
 * How the runs of one timing key wake one another as their queue moves: design and measurements in
 * docs/dev/wait-engine.md, "Runs that queue one after another".
 */
import type { Clock } from './clock';
import type { ColdGroup } from './coldBatch';
import { SILENT_INTERVALS } from './coldBatch';
import type { DurationSample } from './distribution';
import { KeyQueue } from './keyQueue';
import type { ResolvedOptions } from './options';
import type { JobSchedule } from './schedule';
import type { Sleeper } from './sleeper';
import type { WaitJob } from './types';

/** Told when a finished job's timestamps place its end: the run behind it in a queue that runs one at a time. */
export const endListeners = new WeakMap<WaitJob, (end: DurationSample) => void>();

/** The queues of one wait's jobs, one per timing key, and what their sleeping runs do when a run ends or starts. */
export class QueueWakes {
	private readonly queues = new Map<string, KeyQueue>();

	constructor(
		private readonly jobs: WaitJob[],
		private readonly schedules: JobSchedule[],
		private readonly sleepers: Sleeper[],
		private readonly groupOf: (index: number) => ColdGroup | undefined,
		private readonly clock: Clock,
		private readonly o: ResolvedOptions,
	) {
		jobs.forEach((_job, index) => {
			const key = this.keyOf(index);
			if (key === undefined) return;
			const queue = this.queues.get(key) ?? new KeyQueue();
			queue.add(index);
			this.queues.set(key, queue);
		});
	}

	private keyOf(index: number): string | undefined {
		return this.o.learning ? this.jobs[index].timingKey : undefined;
	}

	/** The queue of job `index`'s timing key, if it has one. */
	queueOf(index: number): KeyQueue | undefined {
		const key = this.keyOf(index);
		return key === undefined ? undefined : this.queues.get(key);
	}

	/** Wakes run `i` to poll at once, unless its poll is due within the first interval anyway. */
	private pollQueuedNow(i: number): void {
		const sleeper = this.sleepers[i];
		if (sleeper.dueAt - this.clock.now() <= this.o.initialIntervalMs) return;
		sleeper.pollNow = true;
		sleeper.current?.abort();
	}

	/** Wakes the queue's queued runs that sleep, but `except`, to poll at once. */
	wakeQueued(queue: KeyQueue, except?: number): void {
		for (const i of queue.queuedRuns()) if (i !== except && this.sleepers[i].current) this.pollQueuedNow(i);
	}

	/** Seen to go one at a time: the queued runs asleep wait for the run going to end, as if they had just polled. */
	holdQueued(queue: KeyQueue): void {
		if (!queue.oneAtATime()) return;
		for (const i of queue.queuedRuns()) {
			const sleeper = this.sleepers[i];
			const until = this.clock.now() + SILENT_INTERVALS * this.o.maxIntervalMs;
			if (!queue.blocked(i) || !sleeper.current || this.groupOf(i)?.has(sleeper) || until <= sleeper.dueAt) continue;
			sleeper.moveTo = until;
			sleeper.current.abort();
		}
	}

	/** The run going next in a one-at-a-time queue hears when the ended run's timestamps place its end. */
	private listenForEnd(ended: number, next: number): void {
		endListeners.set(this.jobs[ended], (end) => {
			const planned = this.schedules[next].aheadEndKnown(end, this.clock.now(), false);
			this.moveSleep(next, planned);
		});
	}

	/** Run `i` polls at `planned` instead, if that comes before its sleep ends. */
	private moveSleep(i: number, planned: number | undefined): void {
		const sleeper = this.sleepers[i];
		if (planned === undefined || !sleeper.current || planned >= sleeper.dueAt) return;
		sleeper.moveTo = planned;
		sleeper.current.abort();
	}

	/** The run `index` ended around `endedAt`: the run of its key at the front of the queue likely starts now. */
	frontStarts(index: number, endedAt: number): void {
		const queue = this.queueOf(index);
		if (!queue) return;
		queue.ended(index, this.schedules[index].lastSeenGoing());
		const last = queue.lastLeft();
		this.wakeFront(queue, index, endedAt, last);
		if (last === undefined) return;
		// The batch ends with its last run: from its plan's first poll on, at most a first interval between its polls
		// (after any move above, which must not undo it).
		this.capSleep(last, this.schedules[last].markLastOfBatch(this.o.initialIntervalMs));
	}

	/** Run `i` polls by `at` at the latest: unlike `moveSleep`, never later than a move already asked for. */
	private capSleep(i: number, at: number | undefined): void {
		const sleeper = this.sleepers[i];
		if (at === undefined || !sleeper.current || at >= (sleeper.moveTo ?? sleeper.dueAt)) return;
		sleeper.moveTo = at;
		sleeper.current.abort();
	}

	private wakeFront(queue: KeyQueue, index: number, endedAt: number, last: number | undefined): void {
		const { schedules, sleepers, clock } = this;
		const goingAt = schedules[index].lastSeenGoing();
		if (goingAt === undefined) return;
		const going = queue.goingRun();
		// The only run seen going started after this one was last seen going: it took this one's place.
		if (going !== undefined && schedules[going].startedAfter(goingAt) && !queue.oneAtATime()) {
			queue.tookPlace();
			this.holdQueued(queue);
		}
		const oneAtATime = queue.oneAtATime();
		const end = { lo: goingAt, hi: endedAt };
		const next = oneAtATime ? going : undefined;
		if (next !== undefined) {
			// One at a time, the run already seen going started when this one ended: its plan moves there.
			this.moveSleep(next, schedules[next].aheadEndKnown(end, clock.now(), next === last));
			this.listenForEnd(index, next);
			return;
		}
		const front = queue.front();
		// A run still polled as its cold batch has news of its own soon.
		if (front === undefined || this.groupOf(front)?.has(sleepers[front])) return;
		// Its next poll tells whether the queue runs one at a time, even when it is being polled now.
		queue.wake(front, clock.now());
		// Not known to run one at a time, a run polled right now has news of its own soon.
		if (!oneAtATime && !sleepers[front].current) return;
		// The only run of the batch left decides when the batch ends.
		schedules[front].aheadEnded(goingAt, front === last, oneAtATime ? end : undefined);
		// One at a time, the front started when this run ended: it polls where its plan from there says.
		const planned =
			oneAtATime && sleepers[front].current ? schedules[front].startedBehind(clock.now(), schedules[index].endedUnseen()) : undefined;
		if (planned === undefined) this.pollQueuedNow(front);
		else this.moveSleep(front, planned);
		if (oneAtATime) this.listenForEnd(index, front);
	}
}
