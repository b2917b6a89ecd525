/** `waitForAll`: a small loop per job, and one limiter on the status requests in flight. */
import type { IDataObject } from 'n8n-workflow';

import { isTerminal } from '../status';
import type { RunState } from '../types';
import type { Clock } from './clock';
import { onAbortOf, realClock, sleepFor } from './clock';
import { httpStatusOf, isTransientError, retryAfterMsOf, toError } from './errors';
import { Limiter } from '../pool';
import type { ColdMember } from './coldBatch';
import { ColdGroup, SILENT_INTERVALS } from './coldBatch';
import { KeyQueue } from './keyQueue';
import { resolveOptions } from './options';
import type { DurationSample } from './distribution';
import type { DurationStore } from './learning';
import type { Learned } from './schedule';
import { JobSchedule } from './schedule';
import type { PollResult, WaitJob, WaitOptions, WaitOutcome } from './types';

/** Told when a finished job's timestamps place its end: the run behind it in a queue that runs one at a time. */
const endListeners = new WeakMap<WaitJob, (end: DurationSample) => void>();

/** What each finished job taught, until the run's timestamps narrow it. */
const learnedTotals = new WeakMap<WaitJob, { store: DurationStore; key: string; learned: Learned }>();

/**
 * Narrows what a finished job taught to `window`: the service's timestamps place the end closer than two polls.
 * Never throws: learning must not turn a fetched result into an error.
 */
export function narrowRunTime(job: WaitJob, window: DurationSample): void {
	const listener = endListeners.get(job);
	endListeners.delete(job);
	if (listener && typeof job.submittedAt === 'number') listener({ lo: job.submittedAt + window.lo, hi: job.submittedAt + window.hi });
	const learned = learnedTotals.get(job);
	if (!learned) return;
	learnedTotals.delete(job);
	try {
		const { total, run } = learned.learned;
		if (total) learned.store.narrow(learned.key, total, window);
		// The run's own time: the same end, counted from its start.
		if (run) learned.store.narrow(learned.key, run.sample, { lo: window.lo - run.startOffset, hi: window.hi - run.startOffset }, 'run');
	} catch {
		// learning must never break the job flow
	}
}

interface JobProgress {
	state: RunState;
	record: IDataObject;
	polls: number;
}

type LoopEnd = { outcome: WaitOutcome } | { aborted: JobProgress };

async function cancelSafely(job: WaitJob): Promise<IDataObject> {
	if (!job.cancel) return { outcome: 'not_supported', message: 'This kind of job cannot be cancelled on the service.' };
	try {
		return await job.cancel();
	} catch (error) {
		const e = toError(error);
		const status = httpStatusOf(error);
		return { outcome: 'cancel_failed', error: e.message, ...(status ? { httpCode: status } : {}) };
	}
}

/** Waits for every job; resolves with one outcome per job in input order, never throwing for a single job. */
export async function waitForAll(
	jobs: WaitJob[],
	options: WaitOptions,
	signal?: AbortSignal,
	clock: Clock = realClock,
): Promise<WaitOutcome[]> {
	const o = resolveOptions(options);
	const random = clock.random ? clock.random.bind(clock) : Math.random;
	const limiter = new Limiter(o.concurrency);
	const start = clock.now();
	const deadline = start + o.maxWaitMs;
	const aborted = () => signal?.aborted === true;

	/** Its cold batch can interrupt a job's sleep; a wake-up while awake is kept for the next sleep. */
	interface Sleeper extends ColdMember {
		pending: boolean;
		current: AbortController | undefined;
		/** Woken because a run ahead in its queue ended: it polls at once. */
		pollNow: boolean;
		/** Woken because its plan moved: it polls then instead. */
		moveTo: number | undefined;
		dueAt: number;
		byBatch: boolean;
	}
	const sleeperOf = (): Sleeper => {
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
	};

	/** Sleeps until `ms` passed, the execution was stopped, or the job was woken. */
	const pauseOrWake = async (ms: number, sleeper: Sleeper, byBatch: boolean, byQueue: boolean): Promise<'slept' | 'stopped' | 'woken'> => {
		if (aborted()) return 'stopped';
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
			return aborted() ? 'stopped' : 'slept';
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
		if (aborted()) return 'stopped';
		if (sleeper.pollNow || sleeper.moveTo !== undefined) return 'woken';
		// A wake-up from outside its batch is kept for the next sleep, as for a sleep nothing may cut short.
		if (!byBatch || !sleeper.pending) return 'slept';
		sleeper.pending = false;
		return 'woken';
	};

	// Every schedule makes its first plan before any job sleeps, so a cold batch knows all its runs.
	const schedules = jobs.map((job) => new JobSchedule(o.learning ? job : { ...job, timingKey: undefined }, o, start, random));
	const firstDelays = schedules.map((schedule) => {
		try {
			return schedule.firstDelay(clock.now());
		} catch {
			return o.firstPollDelayMs;
		}
	});
	const sleepers = jobs.map(sleeperOf);
	sleepers.forEach((sleeper, index) => {
		sleeper.enroll = (now) => {
			try {
				schedules[index].enroll(now);
			} catch {
				// learning must never break the wait
			}
		};
	});
	const groups = coldGroupsOf(schedules, sleepers, { start, ...o });
	const groupOf = (index: number): ColdGroup | undefined => {
		const key = schedules[index].coldKey();
		return key === undefined ? undefined : groups.get(key);
	};
	const queues = new Map<string, KeyQueue>();
	const queueKeyOf = (index: number) => (o.learning ? jobs[index].timingKey : undefined);
	const queueOf = (index: number) => {
		const key = queueKeyOf(index);
		return key === undefined ? undefined : queues.get(key);
	};
	jobs.forEach((_job, index) => {
		const key = queueKeyOf(index);
		if (key === undefined) return;
		const queue = queues.get(key) ?? new KeyQueue();
		queue.add(index);
		queues.set(key, queue);
	});
	/** Wakes run `i` to poll at once, unless its poll is due within the first interval anyway. */
	const pollQueuedNow = (i: number): void => {
		if (sleepers[i].dueAt - clock.now() <= o.initialIntervalMs) return;
		sleepers[i].pollNow = true;
		sleepers[i].current?.abort();
	};
	/** Wakes the queue's queued runs that sleep, but `except`, to poll at once. */
	const wakeQueued = (queue: KeyQueue, except?: number): void => {
		for (const i of queue.queuedRuns()) if (i !== except && sleepers[i].current) pollQueuedNow(i);
	};
	/** Seen to go one at a time: the queued runs asleep wait for the run going to end, as if they had just polled. */
	const holdQueued = (queue: KeyQueue): void => {
		if (!queue.oneAtATime()) return;
		for (const i of queue.queuedRuns()) {
			const sleeper = sleepers[i];
			const until = clock.now() + SILENT_INTERVALS * o.maxIntervalMs;
			if (!queue.blocked(i) || !sleeper.current || groupOf(i)?.has(sleeper) || until <= sleeper.dueAt) continue;
			sleeper.moveTo = until;
			sleeper.current.abort();
		}
	};
	/** The run going next in a one-at-a-time queue hears when the ended run's timestamps place its end. */
	const listenForEnd = (ended: number, next: number): void => {
		endListeners.set(jobs[ended], (end) => {
			const planned = schedules[next].aheadEndKnown(end, clock.now(), false);
			moveSleep(next, planned);
		});
	};
	/** Run `i` polls at `planned` instead, if that comes before its sleep ends. */
	const moveSleep = (i: number, planned: number | undefined): void => {
		const sleeper = sleepers[i];
		if (planned === undefined || !sleeper.current || planned >= sleeper.dueAt) return;
		sleeper.moveTo = planned;
		sleeper.current.abort();
	};
	/** The run `index` ended around `endedAt`: the run of its key at the front of the queue likely starts now. */
	const frontStarts = (index: number, endedAt: number): void => {
		const queue = queueOf(index);
		if (!queue) return;
		queue.ended(index);
		const last = queue.lastLeft();
		// The batch ends with its last run: from its plan's first poll on, at most a first interval between its polls.
		if (last !== undefined) moveSleep(last, schedules[last].lastOfBatchPoll(o.initialIntervalMs));
		const goingAt = schedules[index].lastSeenGoing();
		if (goingAt === undefined) return;
		const going = queue.goingRun();
		// The only run seen going started after this one was last seen going: it took this one's place.
		if (going !== undefined && schedules[going].startedAfter(goingAt) && !queue.oneAtATime()) {
			queue.tookPlace();
			holdQueued(queue);
		}
		const oneAtATime = queue.oneAtATime();
		const end = { lo: goingAt, hi: endedAt };
		const next = oneAtATime ? going : undefined;
		if (next !== undefined) {
			// One at a time, the run already seen going started when this one ended: its plan moves there.
			moveSleep(next, schedules[next].aheadEndKnown(end, clock.now(), next === last));
			listenForEnd(index, next);
			return;
		}
		const front = queue.front();
		// A run still polled as its cold batch has news of its own soon.
		if (front === undefined || groupOf(front)?.has(sleepers[front])) return;
		// Its next poll tells whether the queue runs one at a time, even when it is being polled now.
		queue.wake(front, clock.now());
		// Not known to run one at a time, a run polled right now has news of its own soon.
		if (!oneAtATime && !sleepers[front].current) return;
		// The only run of the batch left decides when the batch ends.
		schedules[front].aheadEnded(goingAt, front === last, oneAtATime ? end : undefined);
		// One at a time, the front started when this run ended: it polls where its plan from there says.
		const planned =
			oneAtATime && sleepers[front].current ? schedules[front].startedBehind(clock.now(), schedules[index].endedUnseen()) : undefined;
		if (planned === undefined) pollQueuedNow(front);
		else moveSleep(front, planned);
		if (oneAtATime) listenForEnd(index, front);
	};
	const runJob = async (job: WaitJob, index: number): Promise<LoopEnd> => {
		const schedule = schedules[index];
		const group = groupOf(index);
		const sleeper = sleepers[index];
		try {
			const end = await followJob(job, index, schedule, sleeper, group, firstDelays[index]);
			// Its turn in a cold batch passes on at once: the batch keeps ticking while this result is fetched.
			group?.leave(sleeper, clock.now());
			const done = 'outcome' in end && end.outcome.kind === 'done' ? end.outcome : undefined;
			if (done && options.onDone) {
				const onDone = options.onDone;
				await limiter.run(async () => {
					try {
						await onDone(done);
					} catch {
						// the hook keeps its own errors
					}
				});
			}
			// A run that succeeded ends the batch's silence, even when the store kept nothing: every run asks at once.
			if (done?.state === 'succeeded' && group && !group.learned) queueOf(index)?.sweep();
			if (done?.state === 'succeeded') group?.learn(clock.now());
			return end;
		} finally {
			// However the wait for it ends, the store stops counting the run as going.
			schedule.dropPlan();
			queueOf(index)?.forget(index);
			group?.leave(sleeper, clock.now());
		}
	};

	/** Sleeps `ms`, then true; false when stopped. `queued`: the run has a queue whose ends may wake it. */
	const sleepUntilPoll = async (
		ms: number,
		schedule: JobSchedule,
		sleeper: Sleeper,
		group: ColdGroup | undefined,
		queued: boolean,
	): Promise<boolean> => {
		let wait = ms;
		for (;;) {
			const sleepMs = Math.min(wait, Math.max(0, deadline - clock.now()));
			const slept = await pauseOrWake(sleepMs, sleeper, group?.has(sleeper) === true, queued);
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
				if (wait <= 0) return !aborted();
				continue;
			}
			wait = group?.has(sleeper) ? group.waitOf(sleeper, now) : schedule.wake(now);
			if (wait <= 0) return !aborted();
		}
	};

	const followJob = async (
		job: WaitJob,
		index: number,
		schedule: JobSchedule,
		sleeper: Sleeper,
		group: ColdGroup | undefined,
		plannedFirst: number,
	): Promise<LoopEnd> => {
		const progress: JobProgress = { state: 'unknown', record: {}, polls: 0 };
		let transientErrors = 0;

		const timeout = async (): Promise<LoopEnd> => {
			const base = { kind: 'timeout' as const, job, state: progress.state, record: progress.record, polls: progress.polls };
			if (options.onTimeout === 'cancel') {
				const cancel = await limiter.run(async () => await cancelSafely(job));
				return { outcome: { ...base, cancel } };
			}
			return { outcome: base };
		};

		const first = group?.has(sleeper) ? group.waitOf(sleeper, clock.now()) : plannedFirst;
		if (first > 0 && !(await sleepUntilPoll(first, schedule, sleeper, group, queueOf(index) !== undefined))) return { aborted: progress };

		for (;;) {
			if (aborted()) return { aborted: progress };
			let result: PollResult | undefined;
			let failure: unknown;
			let sentAt = 0;
			const pollResult = schedule.asksResult() ? job.pollResult : undefined;
			await limiter.run(async () => {
				if (aborted()) return;
				sentAt = clock.now();
				try {
					result = await (pollResult ?? job.poll)();
				} catch (error) {
					failure = error;
				}
			});
			if (result === undefined && failure === undefined) return { aborted: progress }; // stopped while queued
			progress.polls++;
			const now = clock.now();
			// The service answered somewhere between sending and receiving: take the middle.
			const at = (sentAt + now) / 2;

			let waitMs: number;
			if (result) {
				transientErrors = 0;
				progress.state = result.state;
				progress.record = result.record ?? {};
				try {
					options.onPoll?.(job, result);
				} catch {
					// a progress hook must never break the wait
				}
				const keyQueue = queueOf(index);
				if (keyQueue) {
					const was = keyQueue.oneAtATime();
					// Two runs going at once after all: the queued runs stop waiting for the run going to end.
					if (result.state === 'running' && keyQueue.seenGoing(index, sentAt, now)) wakeQueued(keyQueue);
					if (!was) holdQueued(keyQueue);
					schedule.oneAtATime = keyQueue.oneAtATime();
				}
				if (isTerminal(result.state) || (result.state === 'cancelling' && !o.followCancellation)) {
					if (isTerminal(result.state)) frontStarts(index, at);
					try {
						const learned = schedule.finished(at, result.state);
						if ((learned.total || learned.run) && job.timingKey)
							learnedTotals.set(job, { store: o.durations, key: job.timingKey, learned });
					} catch {
						// learning must never break the wait
					}
					const fetched = result.result ? { result: result.result } : {};
					return { outcome: { kind: 'done', job, state: progress.state, record: progress.record, polls: progress.polls, ...fetched } };
				}
				if (aborted()) return { aborted: progress };
				// The run outlasted what was expected: no more result requests before it is seen ended.
				if (pollResult && result.state !== 'queued') schedule.refuseResultPolls();
				waitMs = schedule.afterPoll(at, now, result.state, progress.record, o.learning ? result.steps : undefined);
				if (group?.has(sleeper)) {
					// Following a plan now: the plan decides its polls, not the batch.
					if (schedule.coldKey() === undefined) group.leave(sleeper, now);
					else {
						group.polled(sleeper, at);
						waitMs = group.waitOf(sleeper, now);
					}
				}
			} else {
				if (group?.has(sleeper)) group.polled(sleeper, at);
				if (aborted()) return { aborted: progress };
				const status = httpStatusOf(failure);
				if (pollResult && status !== undefined && status >= 400 && status < 500 && status !== 429) {
					// A result asked for before the run ended: the run is going on; this job polls its status from now on.
					schedule.refuseResultPolls();
					transientErrors = 0;
					waitMs = schedule.afterPoll(at, now, progress.state === 'queued' ? 'queued' : 'running', progress.record);
				} else if (status === 429) {
					// Rate limited: it waits out the Retry-After on its own, never woken early by its cold batch's tick.
					group?.leave(sleeper, now);
					const retryAfter = retryAfterMsOf(failure, now);
					waitMs = Math.max(retryAfter ?? 0, schedule.jitteredInterval());
					if (retryAfter !== undefined && now + retryAfter > deadline) {
						// the service asks us to come back after the deadline: no point waiting for nothing
						return await timeout();
					}
				} else if (isTransientError(failure) && transientErrors < o.maxTransientErrors) {
					transientErrors++;
					waitMs = schedule.backoffWait();
				} else {
					return { outcome: { kind: 'error', job, error: toError(failure), polls: progress.polls } };
				}
			}

			const queue = queueOf(index);
			const position = schedule.queuePosition() ?? (queue && progress.state === 'queued' && result ? queue.rankOf(index) : undefined);
			if (queue && position !== undefined) {
				// The front did not start when the run ahead ended: the runs seen behind it look again.
				if (queue.seenQueued(index, position, sentAt)) wakeQueued(queue, index);
				// Runs that go one at a time: a queued run waits for the run going to end, which wakes the front.
				if (queue.blocked(index) && !group?.has(sleeper)) waitMs = Math.max(waitMs, SILENT_INTERVALS * o.maxIntervalMs);
			} else queue?.forget(index);
			if (now >= deadline) return await timeout();
			// Never sleep past the deadline; the last poll happens at the deadline itself.
			if (!(await sleepUntilPoll(waitMs, schedule, sleeper, group, queue !== undefined))) return { aborted: progress };
		}
	};

	const ends = await Promise.all(
		jobs.map(async (job, index) => {
			try {
				return await runJob(job, index);
			} catch (error) {
				// Only a broken clock could get here; still keep one outcome per job.
				return { outcome: { kind: 'error' as const, job, error: toError(error), polls: 0 } };
			}
		}),
	);

	// Stopped jobs: cancel them on the service when asked to, else only stop watching.
	const cancelLimiter = new Limiter(o.concurrency);
	return await Promise.all(
		ends.map(async (end, index): Promise<WaitOutcome> => {
			if ('outcome' in end) return end.outcome;
			const job = jobs[index];
			const p = end.aborted;
			const stopped = { kind: 'stopped' as const, job, state: p.state, record: p.record, polls: p.polls };
			if (!options.cancelOnStop) return stopped;
			const cancel = await cancelLimiter.run(async () => await cancelSafely(job));
			return { ...stopped, cancel };
		}),
	);
}

/** One cold batch per timing key with at least two jobs that follow no learned plan. */
function coldGroupsOf(
	schedules: JobSchedule[],
	members: ColdMember[],
	settings: { start: number; firstPollDelayMs: number; initialIntervalMs: number; maxIntervalMs: number },
): Map<string, ColdGroup> {
	const byKey = new Map<string, number[]>();
	schedules.forEach((schedule, index) => {
		const key = schedule.coldKey();
		if (key === undefined) return;
		const list = byKey.get(key) ?? [];
		list.push(index);
		byKey.set(key, list);
	});
	const groups = new Map<string, ColdGroup>();
	for (const [key, list] of byKey) {
		if (list.length < 2) continue;
		const group = new ColdGroup(settings);
		for (const index of list) {
			group.join(members[index]);
			schedules[index].inColdBatch = true;
		}
		groups.set(key, group);
	}
	return groups;
}
