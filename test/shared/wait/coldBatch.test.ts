/**
 * A batch of runs of one model with nothing learned (./coldBatch.ts): polled as one until its first run ends and
 * teaches the rest, against the loops a user builds without the package, computed side by side on the virtual clock.
 */
import type { IDataObject } from 'n8n-workflow';

import { DurationStore, narrowRunTime, timingKey, waitForAll } from '../../../nodes/shared/wait';
import type { WaitJob, WaitOutcome } from '../../../nodes/shared/wait';
import { ColdGroup } from '../../../nodes/shared/wait/coldBatch';
import type { ColdMember } from '../../../nodes/shared/wait/coldBatch';
import { VirtualClock, modelRun, spreadRuns } from './helpers';

const KEY = timingKey('model', 'acme/cold');

interface ColdRun {
	job: WaitJob;
	/** Status and result requests, ms after the submit. */
	requests: number[];
	end: number;
}

/** A Model → Run job: status polls, result polls (the result once ended), one result fetch when ended. */
function coldRun(clock: VirtualClock, id: number, end: number): ColdRun {
	const requests: number[] = [];
	const submittedAt = clock.now();
	const state = () => {
		const elapsed = clock.now() - submittedAt;
		requests.push(elapsed);
		return elapsed < end ? ('running' as const) : ('succeeded' as const);
	};
	const result: IDataObject = { status: 'succeeded' };
	const job: WaitJob = {
		itemIndex: id,
		id: `run${id}`,
		timingKey: KEY,
		submittedAt,
		poll: async () => {
			const s = state();
			return { state: s, record: { status: s } };
		},
		pollResult: async () => {
			const s = state();
			return { state: s, record: { status: s }, ...(s === 'succeeded' ? { result } : {}) };
		},
	};
	return { job, requests, end };
}

/** What the node does: wait, fetch each result when its run is seen ended, learn its time from its timestamps. */
async function nodeBatch(ends: number[], store = new DurationStore(), keyed = true) {
	const clock = new VirtualClock();
	const runs = ends.map((end, i) => coldRun(clock, i, end));
	if (!keyed) for (const run of runs) delete run.job.timingKey;
	const seenAt = new Map<string, number>();
	const onDone = async (o: Extract<WaitOutcome, { kind: 'done' }>) => {
		const run = runs[o.job.itemIndex];
		// One result fetch unless the poll that saw the end was the result request itself.
		if (!o.result) run.requests.push(clock.now());
		// The result's created_at / finished_at: the live service gives microseconds, the sandbox milliseconds; the
		// window is the submission's round trip.
		narrowRunTime(o.job, { lo: Math.max(0, run.end - 50), hi: run.end + 50 });
		seenAt.set(o.job.id, clock.now());
	};
	const outcomes = await clock.run(
		waitForAll(
			runs.map((r) => r.job),
			modelRun(store, { onDone }),
			undefined,
			clock,
		),
	);
	expect(outcomes.every((o) => o.kind === 'done')).toBe(true);
	return {
		// Without a result fetched as each run is seen ended, the batch ends when the wait does.
		end: seenAt.size === ends.length ? Math.max(...seenAt.values()) : clock.now(),
		requests: runs.reduce((n, r) => n + r.requests.length, 0),
		store,
	};
}

/** A Wait `everyMs` loop: every pending run's status after each wait, then one result fetch per ended run. */
function loop(ends: number[], everyMs: number) {
	const seen = ends.map((end) => Math.ceil(end / everyMs) * everyMs);
	return { end: Math.max(...seen), requests: seen.reduce((n, t) => n + t / everyMs + 1, 0) };
}

describe('a cold batch of 10 runs of one model', () => {
	it.each([
		['2 s', 2000],
		['20 s', 20_000],
		['60 s', 60_000],
	])('10 runs of %s: ends about with a Wait 1 s loop, with no more requests than a Wait 5 s loop', async (_, meanMs) => {
		const late: number[] = [];
		for (const seed of [1, 2, 3, 4, 5]) {
			const ends = spreadRuns(meanMs, 10, seed);
			const node = await nodeBatch(ends);
			const wait1 = loop(ends, 1000);
			const wait5 = loop(ends, 5000);
			late.push(node.end - wait1.end);
			expect({ seed, cheaper: node.requests <= wait5.requests }).toEqual({ seed, cheaper: true });
		}
		// Within one second of the Wait 1 s loop on average, and never a second loop interval behind it.
		expect(late.reduce((a, b) => a + b, 0) / late.length).toBeLessThanOrEqual(1000);
		expect(Math.max(...late)).toBeLessThanOrEqual(2000);
	});

	it('with nothing learned from its runs (a store that keeps nothing), the batch ends no later than with the plain backoff', async () => {
		class KeepsNothing extends DurationStore {
			override record(): undefined {
				return undefined;
			}
		}
		for (const meanMs of [2000, 20_000]) {
			const ends = spreadRuns(meanMs, 10, 11);
			const cold = await nodeBatch(ends, new KeepsNothing());
			const plain = await nodeBatch(ends, new KeepsNothing(), false);
			expect(cold.end).toBeLessThanOrEqual(plain.end);
			expect(cold.requests).toBeLessThanOrEqual(plain.requests);
		}
	});

	it('a batch learns its runs for the next one', async () => {
		const { store } = await nodeBatch(spreadRuns(20_000, 10, 7));
		expect(store.plan(KEY, 'total', 300)).toBeDefined();
	});

	it('once the batch learned, a run that leaves wakes no other: each follows its own plan', () => {
		const woken: number[] = [];
		const member = (id: number): ColdMember => ({ lastPollAt: 0, wake: () => woken.push(id) });
		const group = new ColdGroup({ start: 0, firstPollDelayMs: 1000, initialIntervalMs: 1000, maxIntervalMs: 10_000 });
		const [ticker, other] = [member(1), member(2)];
		group.join(ticker);
		group.join(other);
		group.learn(20_000);
		woken.length = 0;
		group.leave(ticker, 21_000);
		expect(woken).toEqual([]);
	});
});
