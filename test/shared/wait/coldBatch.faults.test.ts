/**
 * A cold batch (nodes/shared/wait/coldBatch.ts) off its happy path, on the virtual clock: a long outlier, a
 * rate-limited service, a slow result fetch, a first run that fails, and Stop. Each is compared with the same runs
 * waited for without learning (the plain backoff), which is what a cold batch must never do worse than.
 */
import type { IDataObject } from 'n8n-workflow';

import { DurationStore, narrowRunTime, timingKey, waitForAll } from '../../../nodes/shared/wait';
import type { WaitJob, WaitOptions, WaitOutcome } from '../../../nodes/shared/wait';
import { VirtualClock, apiError, modelRun, spreadRuns } from './helpers';

const KEY = timingKey('model', 'acme/cold-faults');

interface Run {
	job: WaitJob;
	/** Clock times of this run's status and result requests (the result fetch included). */
	requests: number[];
}

interface Setup {
	/** The answer to a request at `elapsed` ms after the submit, instead of the run's state (e.g. a 429). */
	fault?: (elapsed: number) => Error | undefined;
	/** How long the result fetch takes. */
	fetchMs?: number;
	/** The run's final state. */
	final?: (index: number) => 'succeeded' | 'failed';
	learning?: boolean;
	options?: Partial<WaitOptions>;
	/** Stops the wait at this clock time. */
	stopAt?: number;
}

async function batch(ends: number[], setup: Setup = {}) {
	const clock = new VirtualClock();
	const abort = new AbortController();
	const runs: Run[] = ends.map((end, index) => {
		const requests: number[] = [];
		const state = () => {
			const elapsed = clock.now();
			requests.push(elapsed);
			const fault = setup.fault?.(elapsed);
			if (fault) return fault;
			return elapsed < end ? ('running' as const) : (setup.final?.(index) ?? 'succeeded');
		};
		const answer = async () => {
			const s = state();
			if (s instanceof Error) throw s;
			return { state: s, record: { status: s } as IDataObject };
		};
		return { requests, job: { itemIndex: index, id: `run${index}`, timingKey: KEY, submittedAt: 0, poll: answer, pollResult: answer } };
	});
	const onDone = async (o: Extract<WaitOutcome, { kind: 'done' }>) => {
		const run = runs[o.job.itemIndex];
		run.requests.push(clock.now());
		if (setup.fetchMs) await clock.sleep(setup.fetchMs);
		narrowRunTime(o.job, { lo: Math.max(0, ends[o.job.itemIndex] - 1000), hi: ends[o.job.itemIndex] + 1000 });
	};
	if (setup.stopAt !== undefined) void clock.sleep(setup.stopAt).then(() => abort.abort());
	const outcomes = await clock.run(
		waitForAll(
			runs.map((r) => (setup.learning === false ? { ...r.job, timingKey: undefined } : r.job)),
			modelRun(new DurationStore(), { onDone, ...setup.options }),
			abort.signal,
			clock,
		),
	);
	return { outcomes, runs, end: clock.now(), all: runs.flatMap((r) => r.requests).sort((a, b) => a - b) };
}

const both = async (ends: number[], setup: Setup = {}) => ({
	cold: await batch(ends, setup),
	plain: await batch(ends, { ...setup, learning: false }),
});

describe('a cold batch off its happy path', () => {
	it('a long outlier goes back to a growing backoff after a few polls past the plan', async () => {
		const ends = [...spreadRuns(20_000, 9, 3), 300_000];
		const { cold, plain } = await both(ends);
		expect(cold.outcomes.every((o) => o.kind === 'done')).toBe(true);
		const outlier = (r: Awaited<ReturnType<typeof batch>>) => r.runs[9].requests.length;
		// The plain backoff reaches Max Poll Interval (10 s): about 35 requests for 300 s. Stuck at the first interval
		// (1 s) it would be about 280.
		expect(outlier(cold)).toBeLessThanOrEqual(outlier(plain) + 15);
	});

	it("a 429's Retry-After holds for every run of the batch, also when a tick would wake it", async () => {
		// Every request in the first 40 s is refused with Retry-After: 30 s.
		const limited = Object.assign(apiError(429), { response: { headers: { 'Retry-After': '30' } } });
		const fault = (elapsed: number) => (elapsed < 40_000 ? limited : undefined);
		const { cold, plain } = await both(spreadRuns(60_000, 5, 4), { fault });
		expect(cold.outcomes.every((o) => o.kind === 'done')).toBe(true);
		const early = (r: Awaited<ReturnType<typeof batch>>) => r.all.filter((t) => t < 40_000).length;
		expect(early(cold)).toBeLessThanOrEqual(early(plain));
	});

	it('the batch keeps polling while the first ended run has its result fetched', async () => {
		const ends = spreadRuns(10_000, 6, 5);
		const { cold } = await both(ends, { fetchMs: 40_000 });
		expect(cold.outcomes.every((o) => o.kind === 'done')).toBe(true);
		// Each run's end is seen within about Max Poll Interval (10 s, ±10 % jitter), although the first result's fetch
		// takes 40 s: a batch that waited for that fetch would see the others 40 s late.
		const seenLate = cold.runs.map((run, index) => (run.requests.find((t) => t >= ends[index]) as number) - ends[index]);
		expect(Math.max(...seenLate)).toBeLessThanOrEqual(11_000);
	});

	it('a first run that fails wakes nobody: the others go on as a batch and all end', async () => {
		const ends = spreadRuns(20_000, 8, 6);
		const firstToEnd = ends.indexOf(Math.min(...ends));
		const { cold, plain } = await both(ends, { final: (i) => (i === firstToEnd ? 'failed' : 'succeeded') });
		expect(cold.outcomes.map((o) => o.kind === 'done' && o.state)).toEqual(ends.map((_, i) => (i === firstToEnd ? 'failed' : 'succeeded')));
		expect(cold.all.length).toBeLessThanOrEqual(plain.all.length);
	});

	it('Stop ends every run of the batch at once, with no poll after it', async () => {
		const { cold } = await both(spreadRuns(60_000, 5, 7), { stopAt: 5_000 });
		expect(cold.outcomes.map((o) => o.kind)).toEqual(['stopped', 'stopped', 'stopped', 'stopped', 'stopped']);
		expect(cold.end).toBe(5_000);
		expect(cold.all.every((t) => t <= 5_000)).toBe(true);
	});
});
