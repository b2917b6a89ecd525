/**
 * The learning switch (`WaitOptions.learning`, Wait Options → Learn Run Times): off, every job polls with the plain
 * backoff as if it had no timing key and reported no steps, and nothing is read from or recorded in the store.
 * On the virtual clock: no real time passes.
 */
import type { PollResult, WaitJob, WaitOptions } from '../../../nodes/shared/wait';
import { DurationStore, learningOn, resolveOptions, timingKey, waitForAll } from '../../../nodes/shared/wait';
import { VirtualClock, modelRun, opts, waitForRun, type TimedRun } from './helpers';

const KEY = timingKey('model', 'acme/video');
const run: TimedRun = { endMs: 20_000 };

/** A store that has learned ten runs of about 20 s for KEY. */
function learnedStore(): DurationStore {
	const store = new DurationStore();
	for (let k = 0; k < 10; k++) store.record(KEY, 'total', { lo: 19_600 + 50 * k, hi: 19_900 + 50 * k });
	return store;
}

describe('learning switch', () => {
	it('is on unless set to false', () => {
		expect([undefined, true, false].map((learning) => learningOn({ learning }))).toEqual([true, true, false]);
		expect(resolveOptions(opts()).learning).toBe(true);
		expect(resolveOptions(opts({ learning: false })).learning).toBe(false);
	});

	it('off: a learned key polls exactly like a job without a key, and the store learns nothing', async () => {
		const plain = await waitForRun(new VirtualClock(), run, modelRun(new DurationStore(), { jitter: 0 }));
		const on = await waitForRun(new VirtualClock(), run, modelRun(learnedStore(), { jitter: 0 }), { timingKey: KEY });
		const store = learnedStore();
		const before = store.samples(KEY, 'total').map((s) => ({ ...s }));
		const off = await waitForRun(new VirtualClock(), run, modelRun(store, { jitter: 0, learning: false }), { timingKey: KEY });
		expect(on.pollTimes).not.toEqual(plain.pollTimes); // the learned plan is in force when on
		expect(off.pollTimes).toEqual(plain.pollTimes);
		expect(off.kind).toBe('done');
		expect(store.learnedCount(KEY, 'total')).toBe(10);
		expect(store.samples(KEY, 'total')).toEqual(before);
		expect(store.liveCount(KEY, 'total')).toBe(0);
	});

	it('off: a key never seen is not recorded; a result request is never asked for', async () => {
		const store = new DurationStore();
		const clock = new VirtualClock();
		let resultRequests = 0;
		const pollResult = async (): Promise<PollResult> => {
			resultRequests++;
			return { state: 'running', record: {} };
		};
		await waitForRun(clock, run, modelRun(store, { learning: false }), { timingKey: KEY, pollResult });
		await waitForRun(clock, run, modelRun(store, { learning: false }), { timingKey: KEY, pollResult });
		expect(store.size).toBe(0);
		expect(resultRequests).toBe(0);
	});

	it('off: a job that reports steps polls with the plain backoff, as if it reported none', async () => {
		const options: WaitOptions = opts({ initialIntervalMs: 10_000, maxIntervalMs: 60_000, maxWaitMs: 8 * 3_600_000, cancelOnStop: false });
		// 1000 steps of 1 s after 30 s of loading: with the steps the last poll lands where they end.
		const pollsOf = async (reportSteps: boolean, learning: boolean) => {
			const clock = new VirtualClock();
			const times: number[] = [];
			const job: WaitJob = {
				itemIndex: 0,
				id: 'job1',
				poll: async () => {
					const t = clock.now();
					times.push(t);
					const steps = { current: Math.max(0, Math.min(1000, Math.floor((t - 30_000) / 1000))), total: 1000 };
					if (t >= 1_030_000) return { state: 'succeeded', record: {} };
					return { state: 'running', record: {}, ...(reportSteps ? { steps } : {}) };
				},
			};
			await clock.run(waitForAll([job], { ...options, learning }, undefined, clock));
			return times;
		};
		const hidden = await pollsOf(false, true);
		expect(await pollsOf(true, true)).not.toEqual(hidden);
		expect(await pollsOf(true, false)).toEqual(hidden);
	});
});
