/**
 * The poll that the learned plan expects to see a run ended asks for the result directly (WaitJob.pollResult):
 * one request instead of a status request followed by a result fetch. On the virtual clock.
 */
import type { PollResult, WaitJob } from '../../../nodes/shared/wait';
import { DurationStore, timingKey, waitForAll } from '../../../nodes/shared/wait';
import { VirtualClock, apiError, opts } from './helpers';

const KEY = timingKey('model', 'acme/image');

/** A store that learned runs of about 2 s (from the service's timestamps, so no poll at the lower end). */
function learned2s(): DurationStore {
	const store = new DurationStore();
	for (const ms of [1_950, 2_000, 2_050, 1_980, 2_020]) {
		const sample = store.record(KEY, 'total', { lo: ms - 1, hi: ms + 400 });
		store.narrow(KEY, sample as { lo: number; hi: number }, { lo: ms - 1, hi: ms + 1 });
	}
	return store;
}

interface Requests {
	status: number[];
	result: number[];
	/** Which kind each request was, in order. */
	order: Array<'status' | 'result'>;
}

/**
 * One run queued until `queuedUntilMs` and ending `endMs` after its submit; `resultBeforeEnd` replaces the
 * result request's answer before the end (default: the in_queue / in_progress record the spec describes).
 */
async function waitFor(
	endMs: number,
	store: DurationStore,
	job: Partial<WaitJob> & { resultBeforeEnd?: () => PollResult; queuedUntilMs?: number } = {},
) {
	const clock = new VirtualClock();
	const requests: Requests = { status: [], result: [], order: [] };
	const { resultBeforeEnd, queuedUntilMs = 0, ...rest } = job;
	const stateAt = () => (clock.now() < queuedUntilMs ? 'queued' : clock.now() < endMs ? 'running' : 'succeeded');
	const going = (state: 'queued' | 'running'): PollResult => ({
		state,
		record: state === 'queued' ? { status: 'in_queue', queue_position: 1 } : { status: 'in_progress' },
	});
	const timed: WaitJob = {
		itemIndex: 0,
		id: 'run1',
		timingKey: KEY,
		submittedAt: 0,
		poll: async () => {
			requests.status.push(clock.now());
			requests.order.push('status');
			const state = stateAt();
			return state === 'succeeded' ? { state, record: { status: 'completed' } } : going(state);
		},
		pollResult: async () => {
			requests.result.push(clock.now());
			requests.order.push('result');
			const state = stateAt();
			if (state === 'succeeded')
				return { state, record: { status: 'succeeded' }, result: { status: 'succeeded', output: { images: ['x'] } } };
			return resultBeforeEnd ? resultBeforeEnd() : going(state);
		},
		...rest,
	};
	const [outcome] = await clock.run(waitForAll([timed], opts({ durations: store, firstPollDelayMs: 1000 }), undefined, clock));
	return { outcome, requests, seenAt: clock.now() };
}

describe('result requests as polls', () => {
	it('a learned run is seen with one request, the result request, which brings the result', async () => {
		const { outcome, requests } = await waitFor(2_000, learned2s());
		expect(outcome).toMatchObject({ kind: 'done', state: 'succeeded', polls: 1, result: { output: { images: ['x'] } } });
		expect(requests).toEqual({ status: [], result: [expect.any(Number)], order: ['result'] });
		expect(requests.result[0]).toBeGreaterThanOrEqual(2_000);
	});

	it('a run that outlasts what was learned: one result request finds it going, then status polls until it ends', async () => {
		const { outcome, requests, seenAt } = await waitFor(3_000, learned2s());
		expect(outcome.kind).toBe('done');
		expect(requests.result).toHaveLength(1);
		expect(requests.status.length).toBeGreaterThanOrEqual(1);
		expect(Math.min(...requests.status)).toBeGreaterThan(requests.result[0]);
		// Seen by a status poll: the result is fetched afterwards by the job flow, as without result requests.
		expect(outcome).not.toHaveProperty('result');
		expect(seenAt).toBeGreaterThanOrEqual(3_000);
	});

	it.each([400, 404, 409])(
		'a result request refused with %i (the live service may say "not completed yet") counts as going: status polls follow',
		async (code) => {
			const { outcome, requests } = await waitFor(3_000, learned2s(), {
				resultBeforeEnd: () => {
					throw apiError(code, { error_code: 400005 });
				},
			});
			expect(outcome).toMatchObject({ kind: 'done', state: 'succeeded' });
			expect(requests.result).toHaveLength(1);
			expect(requests.status.length).toBeGreaterThanOrEqual(1);
		},
	);

	it('a job without result requests (a deployment), or with nothing learned, polls its status', async () => {
		const withoutResultPolls = await waitFor(2_000, learned2s(), { pollResult: undefined });
		expect(withoutResultPolls.requests.result).toEqual([]);
		expect(withoutResultPolls.outcome).toMatchObject({ kind: 'done', polls: 1 });

		const nothingLearned = await waitFor(2_000, new DurationStore());
		expect(nothingLearned.requests.result).toEqual([]);
		expect(nothingLearned.requests.status.length).toBeGreaterThanOrEqual(2);
	});

	it('a server error on a result request is retried like one on a status request', async () => {
		let failures = 0;
		const store = learned2s();
		const clock = new VirtualClock();
		const results: number[] = [];
		const job: WaitJob = {
			itemIndex: 0,
			id: 'run1',
			timingKey: KEY,
			submittedAt: 0,
			poll: async () => ({ state: 'running', record: {} }),
			pollResult: async () => {
				results.push(clock.now());
				if (failures++ === 0) throw apiError(503);
				return { state: 'succeeded', record: { status: 'succeeded' }, result: { status: 'succeeded' } };
			},
		};
		const [outcome] = await clock.run(waitForAll([job], opts({ durations: store, firstPollDelayMs: 1000 }), undefined, clock));
		expect(outcome).toMatchObject({ kind: 'done', result: { status: 'succeeded' } });
		expect(results).toHaveLength(2);
	});
});

describe('result requests and the queue', () => {
	it('a run found still queued by its result request asks for the result again where its plan from the start expects the end', async () => {
		// Learned: 2 s from the start of the run (the `run` source) and 2 s from the submit (`total`).
		const store = learned2s();
		for (const ms of [1_990, 2_010, 2_000]) store.record(KEY, 'run', { lo: ms - 1, hi: ms + 1 });
		const { outcome, requests } = await waitFor(8_000, store, { queuedUntilMs: 6_000 });
		expect(outcome).toMatchObject({ kind: 'done', result: { status: 'succeeded' } });
		// The first result request found it queued; status polls while queued; the end seen by a result request.
		expect(requests.order[0]).toBe('result');
		expect(requests.order.slice(1, -1).every((kind) => kind === 'status')).toBe(true);
		expect(requests.order.at(-1)).toBe('result');
		expect(requests.result.at(-1)).toBeGreaterThanOrEqual(8_000);
	});
});
