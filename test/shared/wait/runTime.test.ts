/**
 * The service's timestamps of a finished run narrow what the wait engine learned from its polls
 * (narrowRunTime in nodes/shared/wait/engine.ts, DurationStore.narrow). On the virtual clock.
 */
import { DurationStore, narrowRunTime, timingKey, waitForAll, type WaitJob } from '../../../nodes/shared/wait';
import { VirtualClock, opts } from './helpers';

const KEY = timingKey('model', 'acme/image');

/** One run ending `endMs` after its submit, waited for with the plain backoff; returns the job and its sample. */
async function finishedRun(store: DurationStore, endMs: number) {
	const clock = new VirtualClock();
	const job: WaitJob = {
		itemIndex: 0,
		id: 'r1',
		timingKey: KEY,
		submittedAt: 0,
		poll: async () => (clock.now() < endMs ? { state: 'running', record: {} } : { state: 'succeeded', record: {} }),
	};
	const options = opts({ durations: store, firstPollDelayMs: 1000, initialIntervalMs: 1000, jitter: 0, maxWaitMs: 600_000 });
	const [outcome] = await clock.run(waitForAll([job], options, undefined, clock));
	expect(outcome.kind).toBe('done');
	return { job, sample: store.samples(KEY, 'total')[0] };
}

describe("narrowing a learned run time with the service's timestamps", () => {
	it('the polls bracket the end seconds wide; the timestamps narrow it to their window', async () => {
		const store = new DurationStore();
		const { job, sample } = await finishedRun(store, 7_300);
		// Backoff polls at 1, 2, 3.5, 5.75, 9.125 s: the end lies somewhere in (5.75, 9.125].
		expect(sample).toEqual({ lo: 5_750, hi: 9_125 });
		const wide = store.plan(KEY, 'total', 300) as readonly number[];
		narrowRunTime(job, { lo: 7_298, hi: 7_305 });
		expect(store.samples(KEY, 'total')).toEqual([{ lo: 7_298, hi: 7_305 }]);
		// The plan is computed again from the narrowed sample: a tighter window around 7.3 s.
		const narrow = store.plan(KEY, 'total', 300) as readonly number[];
		expect(narrow).not.toBe(wide);
		expect(narrow[narrow.length - 1] - narrow[0]).toBeLessThan(wide[wide.length - 1] - wide[0]);
	});

	it('keeps only what both agree on, ignores a window that does not overlap, and narrows once', async () => {
		const store = new DurationStore();
		const { job } = await finishedRun(store, 7_300);
		narrowRunTime(job, { lo: 8_000, hi: 9_500 }); // overlaps only (8, 9.125]
		expect(store.samples(KEY, 'total')).toEqual([{ lo: 8_000, hi: 9_125 }]);
		narrowRunTime(job, { lo: 8_050, hi: 8_060 }); // a second call changes nothing
		expect(store.samples(KEY, 'total')).toEqual([{ lo: 8_000, hi: 9_125 }]);

		const other = new DurationStore();
		const second = await finishedRun(other, 7_300);
		narrowRunTime(second.job, { lo: 20_000, hi: 21_000 }); // the timestamps mean something else
		expect(other.samples(KEY, 'total')).toEqual([{ lo: 5_750, hi: 9_125 }]);
	});

	it('a job that taught nothing (a failed run) is left alone', async () => {
		const store = new DurationStore();
		const clock = new VirtualClock();
		const job: WaitJob = { itemIndex: 0, id: 'r2', timingKey: KEY, poll: async () => ({ state: 'failed', record: {} }) };
		await clock.run(waitForAll([job], opts({ durations: store }), undefined, clock));
		narrowRunTime(job, { lo: 1, hi: 2 });
		expect(store.has(KEY)).toBe(false);
	});
});
