/**
 * Queued runs (`in_queue` with `queue_position`): a keyed job polls slower the further back it is, times the
 * run from when it was first seen in progress, and learns how long a place in the queue takes.
 */
import { DurationStore, timingKey, type WaitOptions } from '../../../nodes/shared/wait';
import { VirtualClock, median, opts, spreadRuns, waitForRun, type RunResult, type TimedRun } from './helpers';

const KEY = timingKey('deployment', 'dep-1');
const options = (durations: DurationStore, o: Partial<WaitOptions> = {}): WaitOptions =>
	opts({ durations, firstPollDelayMs: 1000, maxWaitMs: 3_600_000, ...o });

const queuedPolls = (r: RunResult, queueMs: number) => r.pollTimes.filter((t) => t < queueMs).length;

describe('queued runs', () => {
	it('polls less often far back in the queue than near the front (and than the plain backoff)', async () => {
		const queueMs = 60_000;
		const run = (position: number): TimedRun => ({ queueMs, endMs: queueMs + 20_000, position: () => position });
		const far = await waitForRun(new VirtualClock(), run(20), options(new DurationStore()), { timingKey: KEY });
		const near = await waitForRun(new VirtualClock(), run(1), options(new DurationStore()), { timingKey: KEY });
		const plain = await waitForRun(new VirtualClock(), run(20), options(new DurationStore()));
		expect(queuedPolls(far, queueMs)).toBeLessThan(queuedPolls(near, queueMs));
		expect(queuedPolls(far, queueMs)).toBeLessThan(queuedPolls(plain, queueMs));
		expect(queuedPolls(near, queueMs)).toBe(queuedPolls(plain, queueMs)); // at the front: the backoff
	});

	it('a queue record without a position keeps the backoff', async () => {
		const run: TimedRun = { queueMs: 30_000, endMs: 40_000 };
		const keyed = await waitForRun(new VirtualClock(), run, options(new DurationStore()), { timingKey: KEY });
		const plain = await waitForRun(new VirtualClock(), run, options(new DurationStore()));
		expect(keyed.pollTimes).toEqual(plain.pollTimes);
	});

	it('times a run from its start after a queue of any length: learns run and queue times, sees the end soon', async () => {
		const store = new DurationStore();
		const clock = new VirtualClock();
		const queues = [30_000, 50_000, 20_000, 40_000, 30_000, 60_000, 25_000, 45_000, 35_000, 55_000];
		const runs = spreadRuns(60_000, queues.length, 9).map(
			(runMs, k): TimedRun => ({
				queueMs: queues[k],
				endMs: queues[k] + runMs,
				position: (elapsed) => Math.max(1, Math.ceil((queues[k] - elapsed) / 10_000)),
			}),
		);
		const learned: RunResult[] = [];
		for (const run of runs) learned.push(await waitForRun(clock, run, options(store), { timingKey: KEY }));
		const plain: RunResult[] = [];
		for (const run of runs) plain.push(await waitForRun(clock, run, options(new DurationStore())));

		expect(store.samples(KEY, 'run').length).toBeGreaterThan(5);
		expect(store.samples(KEY, 'total')).toEqual([]); // a queued run says nothing about submit-to-end times
		// About 10 s per place in the queue (the sandbox-like queue above drains one place per 10 s).
		const step = store.median(KEY, 'queueStep') as number;
		expect(step).toBeGreaterThan(5000);
		expect(step).toBeLessThan(20_000);
		const delay = (rs: RunResult[]) => median(rs.slice(2).map((r) => r.delayMs));
		expect(delay(learned)).toBeLessThan(delay(plain) / 3);
		expect(learned.every((r) => r.kind === 'done' && r.delayMs >= 0)).toBe(true);
	});
});
