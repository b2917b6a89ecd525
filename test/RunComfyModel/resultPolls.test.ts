/**
 * Model → Run against the sandbox: once the run time of a model is learned, the poll expected to see the run
 * ended is the result request itself (one request instead of a status request and a result fetch), in both
 * forms the service may answer a result asked for too early (the in-progress record, or 400 `400005`).
 */
import { sharedDurations, timingKey } from '../../nodes/shared/wait';
import { runNode } from '../helpers/engine';
import { FAST_WAIT, MODELS, credentialsFor, isResult, isStatus, node, requestIdOf, runParams, useSandbox } from './setup';

const key = timingKey('model', MODELS.flash, '');

describe('Model → Run: the poll expected to see the end asks for the result', () => {
	const sb = useSandbox({ runDurationMs: 500, queueMs: 0 });
	beforeEach(() => sharedDurations.forget(key));
	afterAll(() => sharedDurations.forget(key));

	const run = async (learnRunTimes = true) => {
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			inputItems: [{ json: {} }],
			parameters: runParams(
				MODELS.flash,
				{ prompt: 'a lighthouse' },
				{ downloadOutputs: false, waitOptions: { ...FAST_WAIT, learnRunTimes } },
			),
		});
		expect(result.error).toBeUndefined();
		const json = result.items[0].json;
		const id = String(json.request_id);
		const mine = sb.log().filter((e) => requestIdOf(e) === id);
		return { json, status: mine.filter(isStatus).length, result: mine.filter(isResult).length };
	};

	it('the first run polls its status, then fetches the result; the next is seen by its one result request', async () => {
		const first = await run();
		expect(first.status).toBeGreaterThanOrEqual(1);
		expect(first.result).toBe(1);

		// The next run ends sooner than learned, so the planned result request finds it ended however late it is
		// sent; without the learning the node would still ask for its status first.
		sb.configure({ runDurationMs: 250 });
		let next;
		try {
			next = await run();
		} finally {
			sb.configure({ runDurationMs: 500 });
		}
		expect({ status: next.status, result: next.result }).toEqual({ status: 0, result: 1 });
		// The same output as a fetched result: status, outputs and the cost the result request asked for.
		expect(next.json).toMatchObject({ status: 'succeeded', model_id: MODELS.flash, cost: expect.any(Number) });
		expect(Object.keys(next.json).sort()).toEqual(Object.keys(first.json).sort());
	});

	it.each([false, true])(
		'a run slower than learned (result asked for too early, 400 form: %s) is still seen and fetched',
		async (notReady400) => {
			await run();
			// far slower than learned, so the learned result request finds it going even when a loaded machine sends it late
			sb.configure({ runDurationMs: 7_000, quirks: { resultNotReady400: notReady400 } });
			try {
				const slow = await run();
				expect(slow.json).toMatchObject({ status: 'succeeded', cost: expect.any(Number) });
				// One result request found it going; status polls followed; one result fetch at the end. A machine busy
				// enough to pass the plan's polls (seen in CI while n8n installed beside the tests) sends only status
				// polls, then the one fetch; never more than two.
				expect(slow.status).toBeGreaterThanOrEqual(1);
				expect(slow.result).toBeGreaterThanOrEqual(1);
				expect(slow.result).toBeLessThanOrEqual(2);
			} finally {
				sb.configure({ runDurationMs: 500, quirks: { resultNotReady400: false } });
			}
		},
	);

	it('Learn Run Times off: the run teaches nothing, and the next run of a learned model polls its status first', async () => {
		const off = await run(false);
		expect(off.json).toMatchObject({ status: 'succeeded' });
		expect(sharedDurations.has(key)).toBe(false);
		await run(); // learned
		const learned = sharedDurations.learnedCount(key, 'total');
		sb.configure({ runDurationMs: 250 });
		let next;
		try {
			next = await run(false);
		} finally {
			sb.configure({ runDurationMs: 500 });
		}
		// Without the learned plan the end is seen by a status request, then the result is fetched once.
		expect(next.status).toBeGreaterThanOrEqual(1);
		expect(next.result).toBe(1);
		expect(sharedDurations.learnedCount(key, 'total')).toBe(learned);
	});
});
