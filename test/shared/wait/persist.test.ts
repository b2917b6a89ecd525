/**
 * Learned run times saved to the workflow's static data and read back by a fresh process
 * (nodes/shared/wait/persist.ts, nodes/shared/jobs/savedRunTimes.ts).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { loadSavedRunTimes, storeSavedRunTimes } from '../../../nodes/shared/jobs/savedRunTimes';
import {
	DurationStore,
	PERSISTED_KEYS,
	PERSISTED_SAMPLES,
	keyHash,
	restoreRunTimes,
	saveRunTimes,
	timingKey,
} from '../../../nodes/shared/wait';
import { VirtualClock, modelRun, spreadRuns, waitForRun } from './helpers';

const KEY = timingKey('model', 'acme/flux-secret-model', 'prompt shape 1024x1024');

/** What n8n gives a node as its static data: one object per node, kept between executions. */
const fakeCtx = (data: IDataObject = {}) => ({ getWorkflowStaticData: () => data }) as unknown as IExecuteFunctions;

async function learnRuns(store: DurationStore, clock: VirtualClock, ends: number[]) {
	const polls: number[] = [];
	for (const endMs of ends) polls.push((await waitForRun(clock, { endMs }, modelRun(store), { timingKey: KEY })).polls);
	return polls;
}

describe('learned run times in static data', () => {
	it('learn in one execution, start a new process, read them back: the learned plan is used', async () => {
		const clock = new VirtualClock();
		const first = new DurationStore();
		const coldPolls = await learnRuns(first, clock, spreadRuns(20_000, 6, 3));
		const data: IDataObject = {};
		storeSavedRunTimes(fakeCtx(data), first, [KEY]);

		// A restart: nothing in process memory.
		const fresh = new DurationStore();
		expect(fresh.plan(KEY, 'total', 300)).toBeUndefined();
		loadSavedRunTimes(fakeCtx(JSON.parse(JSON.stringify(data)) as IDataObject), fresh, [KEY]);
		expect(fresh.plan(KEY, 'total', 300)).toBeDefined();
		const warm = await waitForRun(clock, { endMs: 20_000 }, modelRun(fresh), { timingKey: KEY });
		const unlearned = await waitForRun(clock, { endMs: 20_000 }, modelRun(new DurationStore()), { timingKey: KEY });
		expect(warm.polls).toBeLessThan(unlearned.polls);
		expect(warm.delayMs).toBeLessThan(unlearned.delayMs);
		expect(coldPolls[0]).toBe(unlearned.polls);
	});

	it('what this process learned wins over the saved copy', () => {
		const saved = new DurationStore();
		for (let i = 0; i < 5; i++) saved.record(KEY, 'total', { lo: 50_000, hi: 51_000 });
		const copy = saveRunTimes(saved, [KEY], undefined);
		const here = new DurationStore();
		here.record(KEY, 'total', { lo: 9_000, hi: 10_000 });
		expect(restoreRunTimes(here, [KEY], copy)).toBe(0);
		expect(here.samples(KEY, 'total')).toHaveLength(1);
	});

	it('is bounded in keys and samples, and holds no key, id or input', () => {
		const store = new DurationStore();
		const keys = Array.from({ length: PERSISTED_KEYS * 3 }, (_, i) => timingKey('deployment', `dep-${i}-id`, `shape-${i}`));
		for (const key of keys) for (let s = 0; s < 40; s++) store.record(key, 'total', { lo: 1000 + s, hi: 2000 + s });
		let copy: unknown;
		for (let i = 0; i < keys.length; i += 10) copy = saveRunTimes(store, keys.slice(i, i + 10), copy);
		const saved = copy as { k: Record<string, { t: number[] }> };
		expect(Object.keys(saved.k).length).toBe(PERSISTED_KEYS);
		for (const entry of Object.values(saved.k)) expect(entry.t.length).toBe(2 * PERSISTED_SAMPLES);
		const text = JSON.stringify(copy);
		expect(text).not.toMatch(/dep-|shape|deployment/);
		// The keys saved last are kept.
		const back = new DurationStore();
		expect(restoreRunTimes(back, keys.slice(-PERSISTED_KEYS), copy)).toBe(PERSISTED_KEYS);
	});

	it('a malformed copy is ignored', () => {
		const store = new DurationStore();
		const hash = keyHash(KEY);
		const bads = [
			null,
			'x',
			{ v: 1 },
			{ v: 2, k: {} },
			{ v: 1, k: { a: 'b' } },
			{ v: 1, k: { [hash]: 'b' } },
			{ v: 1, k: { [hash]: { t: 'x' } } },
		];
		for (const bad of bads) expect(restoreRunTimes(store, [KEY], bad)).toBe(0);
		expect(store.has(KEY)).toBe(false);
	});

	it('entries carried over from an earlier copy are cut to the bound and to numbers', () => {
		const store = new DurationStore();
		store.record(KEY, 'total', { lo: 1000, hi: 2000 });
		const other = keyHash('another key');
		const previous = {
			v: 1,
			k: { [other]: { t: Array.from({ length: 500 }, (_, i) => i), q: ['x', 'y'], extra: 'z'.repeat(1000) }, junk: 'b' },
		};
		const copy = saveRunTimes(store, [KEY], previous);
		expect(Object.keys(copy.k).sort()).toEqual([keyHash(KEY), other].sort());
		expect(copy.k[other]).toEqual({ t: Array.from({ length: 2 * PERSISTED_SAMPLES }, (_, i) => 500 - 2 * PERSISTED_SAMPLES + i) });
	});
});
