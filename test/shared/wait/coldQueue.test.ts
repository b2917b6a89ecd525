/**
 * A cold batch whose runs wait `in_queue` first, as on RunComfy (./coldBatch.ts): a share of each run's time
 * queued with a `queue_position`, or the runs queued one after another (one instance), against the loops a user
 * builds without the package, side by side on the virtual clock.
 */
import type { IDataObject } from 'n8n-workflow';

import { DurationStore, narrowRunTime, timingKey, waitForAll } from '../../../nodes/shared/wait';
import type { WaitJob, WaitOutcome } from '../../../nodes/shared/wait';
import { VirtualClock, modelRun, spreadRuns } from './helpers';

const KEY = timingKey('model', 'acme/queued');

/** One run: queued until `startMs` after the submit (at `position(elapsed)`), in progress until `endMs`. */
interface QueuedRun {
	startMs: number;
	endMs: number;
	position: (elapsedMs: number) => number;
}

/** Runs submitted together, each `share` of its time queued (all start at once when the queue lets them). */
function sharedQueue(ends: number[], share: number): QueuedRun[] {
	const starts = ends.map((end) => end * share);
	// Positions count the runs still queued ahead, as the sandbox does.
	return ends.map((endMs, i) => ({
		startMs: starts[i],
		endMs,
		position: (t) => 1 + starts.filter((s, j) => j < i && s > t).length,
	}));
}

/**
 * Runs queued one after another (a deployment with one instance): run i starts when run i − 1 ends. `swapFirst`:
 * the first two submits, sent together, reached the service in the other order, so the batch's first poll finds
 * the first item queued and its second poll the first run just ended.
 */
function oneAfterAnother(runMs: number[], queueMs = 300, swapFirst = false): QueuedRun[] {
	const runs: QueuedRun[] = [];
	let at = queueMs;
	for (const ms of runMs) {
		runs.push({ startMs: at, endMs: at + ms, position: () => 0 });
		at += ms;
	}
	const inQueue = runs.map((run, i) => ({ ...run, position: (t: number) => 1 + runs.filter((r, j) => j < i && r.startMs > t).length }));
	if (swapFirst) [inQueue[0], inQueue[1]] = [inQueue[1], inQueue[0]];
	return inQueue;
}

interface Measured {
	end: number;
	requests: number;
	lastEnd: number;
}

interface NodeMeasured extends Measured {
	store: DurationStore;
	/** Status and result requests per run, in item order. */
	perRun: number[];
}

/** What the node does: wait, fetch each result when its run is seen ended, learn its time from its timestamps. */
async function nodeBatch(runs: QueuedRun[], store = new DurationStore()): Promise<NodeMeasured> {
	const clock = new VirtualClock();
	const submittedAt = clock.now();
	let requests = 0;
	const perRun = runs.map(() => 0);
	const seenAt: number[] = [];
	const jobs = runs.map((run, i): WaitJob => {
		const answer = (withResult: boolean) => {
			requests++;
			perRun[i]++;
			const t = clock.now() - submittedAt;
			// The Model API's result record says `in_queue` with no `queue_position`.
			if (t < run.startMs) {
				const record: IDataObject = withResult ? { status: 'in_queue' } : { status: 'in_queue', queue_position: run.position(t) };
				return { state: 'queued' as const, record };
			}
			if (t < run.endMs) return { state: 'running' as const, record: { status: 'in_progress' } };
			const record: IDataObject = { status: 'succeeded' };
			return { state: 'succeeded' as const, record, ...(withResult ? { result: record } : {}) };
		};
		return {
			itemIndex: i,
			id: `run${i}`,
			timingKey: KEY,
			submittedAt,
			poll: async () => answer(false),
			pollResult: async () => answer(true),
		};
	});
	const onDone = async (o: Extract<WaitOutcome, { kind: 'done' }>) => {
		const run = runs[o.job.itemIndex];
		if (!o.result) {
			requests++;
			perRun[o.job.itemIndex]++;
		}
		narrowRunTime(o.job, { lo: Math.max(0, run.endMs - 50), hi: run.endMs + 50 });
		seenAt.push(clock.now());
	};
	const outcomes = await clock.run(waitForAll(jobs, modelRun(store, { onDone }), undefined, clock));
	expect(outcomes.every((o) => o.kind === 'done')).toBe(true);
	return { end: Math.max(...seenAt), requests, lastEnd: Math.max(...runs.map((r) => r.endMs)), store, perRun };
}

/** A Wait `everyMs` loop: every pending run's status after each wait, then one result fetch per ended run. */
function loop(runs: QueuedRun[], everyMs: number): Measured {
	const seen = runs.map((r) => Math.ceil(r.endMs / everyMs) * everyMs);
	return {
		end: Math.max(...seen),
		requests: seen.reduce((n, t) => n + t / everyMs + 1, 0),
		lastEnd: Math.max(...runs.map((r) => r.endMs)),
	};
}

/** Node vs loops over `seeds` of 10 runs: the mean and the largest lateness behind the Wait 1 s loop. */
async function compare(batch: (seed: number) => QueuedRun[], seeds = [1, 2, 3, 4, 5]) {
	const late: number[] = [];
	const requests: number[] = [];
	for (const seed of seeds) {
		const runs = batch(seed);
		const node = await nodeBatch(runs);
		late.push(node.end - loop(runs, 1000).end);
		requests.push(node.requests / loop(runs, 5000).requests);
	}
	// Requests: the most of any seed, as a share of the Wait 5 s loop's on the same runs.
	return { meanLate: late.reduce((a, b) => a + b, 0) / late.length, maxLate: Math.max(...late), requests: Math.max(...requests) };
}

describe('a cold batch of 10 runs that queue first', () => {
	it.each([
		['2 s', 0.4, 2000],
		['2 s', 0.8, 2000],
		['20 s', 0.4, 20_000],
		['20 s', 0.8, 20_000],
		['60 s', 0.4, 60_000],
		['60 s', 0.8, 60_000],
	])(
		'runs of %s, a share of %p queued: ends about with a Wait 1 s loop, with no more requests than a Wait 5 s loop',
		async (_, share, meanMs) => {
			const { meanLate, maxLate, requests } = await compare((seed) => sharedQueue(spreadRuns(meanMs, 10, seed), share));
			expect(requests).toBeLessThanOrEqual(1);
			expect(meanLate).toBeLessThanOrEqual(1000);
			expect(maxLate).toBeLessThanOrEqual(2000);
		},
	);

	it('runs seen queued are planned like the first one that ended: the queue shares leave the batch as without a queue', async () => {
		const ends = spreadRuns(20_000, 10, 2);
		const unqueued = await nodeBatch(sharedQueue(ends, 0));
		for (const share of [0.4, 0.8]) {
			const queued = await nodeBatch(sharedQueue(ends, share));
			expect({ share, end: queued.end, requests: queued.requests }).toEqual({ share, end: unqueued.end, requests: unqueued.requests });
		}
	});

	it.each([
		['0.2 s', 200, 0, false],
		['2 s', 2000, 300, false],
		['2 s', 2000, 300, true],
		['6 s', 6000, 300, false],
		['6 s', 6000, 300, true],
		['20 s', 20_000, 300, false],
		['60 s', 60_000, 300, false],
	])(
		'runs of %s queued one after another (one instance; mean %d ms, the first starting %d ms after the submit; the first two reached out of order: %p): ends about with a Wait 1 s loop, with no more requests than a Wait 5 s loop',
		async (_, meanMs, queueMs, swapFirst) => {
			const { meanLate, maxLate, requests } = await compare((seed) => oneAfterAnother(spreadRuns(meanMs, 10, seed), queueMs, swapFirst));
			expect(requests).toBeLessThanOrEqual(1);
			expect(meanLate).toBeLessThanOrEqual(1000);
			expect(maxLate).toBeLessThanOrEqual(1000);
		},
	);

	it('runs of 60 s one after another, 20 seeds: the last run is seen about with a Wait 1 s loop, even when it was seen going before the run ahead was seen ended', async () => {
		const seeds = Array.from({ length: 20 }, (_, k) => k + 1);
		const { maxLate } = await compare((seed) => oneAfterAnother(spreadRuns(60_000, 10, seed)), seeds);
		expect(maxLate).toBeLessThanOrEqual(1000);
	});

	it('one at a time, a run behind starts when the run ahead ends: asked once with its batch, then its plan, no poll to see it start', async () => {
		// The batch sees its first end at once: every other run is then asked for its result while still queued.
		const runs = oneAfterAnother(spreadRuns(2000, 10, 1), 0, true);
		const { perRun } = await nodeBatch(runs);
		// From the fifth run in the queue on, the queue is known to go one at a time and a run time from start is learned.
		const behind = runs
			.map((run, i) => ({ run, i }))
			.sort((a, b) => a.run.startMs - b.run.startMs)
			.slice(4);
		expect(Math.max(...behind.map(({ i }) => perRun[i]))).toBeLessThanOrEqual(3);
	});

	it("the batch ends with its last run: once past its plan's first poll, it is seen within a first interval of its end", async () => {
		const late: { seed: number; seenAfterEnd: number }[] = [];
		for (const seed of [1, 4, 7, 8, 11, 13, 14]) {
			const { end, lastEnd } = await nodeBatch(sharedQueue(spreadRuns(60_000, 10, seed), 0));
			late.push({ seed, seenAfterEnd: Math.round(end - lastEnd) });
		}
		expect(late.filter(({ seenAfterEnd }) => seenAfterEnd > 1000)).toEqual([]);
	});

	it('a batch that queued teaches the time from submit to end', async () => {
		const { store } = await nodeBatch(sharedQueue(spreadRuns(20_000, 10, 7), 0.8));
		expect(store.plan(KEY, 'total', 300)).toBeDefined();
	});
});
