/** `waitForAll`: a small loop per job, and one limiter on the status requests in flight. */
import type { IDataObject } from 'n8n-workflow';

import { isTerminal } from '../status';
import type { RunState } from '../types';
import type { Clock } from './clock';
import { realClock } from './clock';
import { httpStatusOf, isTransientError, retryAfterMsOf, toError } from './errors';
import { Limiter } from '../pool';
import type { ColdMember } from './coldBatch';
import { ColdGroup, SILENT_INTERVALS } from './coldBatch';
import { resolveOptions } from './options';
import type { DurationSample } from './distribution';
import type { DurationStore } from './learning';
import type { Learned } from './schedule';
import { JobSchedule } from './schedule';
import { endListeners, QueueWakes } from './queueWakes';
import type { Sleeper } from './sleeper';
import { sleeperOf, Sleeps } from './sleeper';
import type { PollResult, WaitJob, WaitOptions, WaitOutcome } from './types';

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

	// Every schedule makes its first plan before any job sleeps, so a cold batch knows all its runs.
	const schedules = jobs.map((job) => new JobSchedule(o.learning ? job : { ...job, timingKey: undefined }, o, start, random));
	const firstDelays = schedules.map((schedule) => {
		try {
			return schedule.firstDelay(clock.now());
		} catch {
			return o.firstPollDelayMs;
		}
	});
	const sleepers = jobs.map(() => sleeperOf(start));
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
	const queues = new QueueWakes(jobs, schedules, sleepers, groupOf, clock, o);
	const sleeps = new Sleeps(clock, deadline, signal);

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
			// A run that succeeded ends the batch's silence, even when the store kept nothing; its runs' next answers tell
			// whether they go one at a time.
			if (done?.state === 'succeeded' && group && !group.learned) queues.queueOf(index)?.sweep();
			if (done?.state === 'succeeded') group?.learn(clock.now());
			return end;
		} finally {
			// However the wait for it ends, the store stops counting the run as going, and so does its queue.
			schedule.dropPlan();
			queues.queueOf(index)?.gone(index);
			group?.leave(sleeper, clock.now());
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
		if (first > 0 && !(await sleeps.untilPoll(first, schedule, sleeper, group, queues.queueOf(index) !== undefined)))
			return { aborted: progress };

		for (;;) {
			if (aborted()) return { aborted: progress };
			let result: PollResult | undefined;
			let failure: unknown;
			let sentAt = 0;
			const askedAt = clock.now();
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
				const keyQueue = queues.queueOf(index);
				if (keyQueue) {
					const was = keyQueue.oneAtATime();
					// Two runs going at once after all: the queued runs stop waiting for the run going to end.
					if (result.state === 'running' && keyQueue.seenGoing(index, sentAt, now, askedAt)) queues.wakeQueued(keyQueue);
					if (!was) queues.holdQueued(keyQueue);
					schedule.oneAtATime = keyQueue.oneAtATime();
				}
				if (isTerminal(result.state) || (result.state === 'cancelling' && !o.followCancellation)) {
					try {
						// The run's end moves its queue; that must never turn a finished (paid) run into an error.
						if (isTerminal(result.state)) queues.frontStarts(index, at);
					} catch {
						// the runs behind it keep their own schedules
					}
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

			const queue = queues.queueOf(index);
			const position = schedule.queuePosition() ?? (queue && progress.state === 'queued' && result ? queue.rankOf(index) : undefined);
			if (queue && position !== undefined) {
				// The front did not start when the run ahead ended: the runs seen behind it look again.
				if (queue.seenQueued(index, position, sentAt)) queues.wakeQueued(queue, index);
				// Runs that go one at a time: a queued run waits for the run going to end, which wakes the front.
				if (queue.blocked(index) && !group?.has(sleeper)) waitMs = Math.max(waitMs, SILENT_INTERVALS * o.maxIntervalMs);
			} else queue?.forget(index);
			if (now >= deadline) return await timeout();
			// Never sleep past the deadline; the last poll happens at the deadline itself.
			if (!(await sleeps.untilPoll(waitMs, schedule, sleeper, group, queue !== undefined))) return { aborted: progress };
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
			schedules[index].joinColdBatch();
		}
		groups.set(key, group);
	}
	return groups;
}
