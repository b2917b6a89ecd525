/**
 * RunComfy Model node → Run over many items: submit all first, wait together, one result fetch per run;
 * the three timeout behaviours; Stop cancelling queued runs on the service. Proven from the sandbox log.
 */
import { sharedDurations, timingKey } from '../../nodes/shared/wait';
import { runNode } from '../helpers/engine';
import {
	FAST_WAIT,
	MODELS,
	credentialsFor,
	isCancel,
	isResult,
	isStatus,
	isSubmit,
	node,
	requestIdOf,
	runParams,
	submits,
	until,
	useSandbox,
} from './setup';

const sb = useSandbox();

describe('a batch of many items', () => {
	const N = 36;

	it('submits every item before the first result, never twice, and fetches each result once', async () => {
		sb.reset({ runDurationMs: 150, queueMs: 20 });
		const inputItems = Array.from({ length: N }, (_, i) => ({ json: { prompt: `item ${i}` } }));
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			inputItems,
			parameters: runParams(
				MODELS.flash,
				{},
				{
					inputsJson: '={{ JSON.stringify({ prompt: $json.prompt }) }}',
					downloadOutputs: false,
					waitOptions: { ...FAST_WAIT, concurrency: 8 },
				},
			),
		});
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(N);

		const log = sb.log();
		const submitted = log.filter(isSubmit);
		expect(submitted).toHaveLength(N);
		const createdIds = submitted.map((e) => e.createdId);
		expect(new Set(createdIds).size).toBe(N);
		// no body submitted twice: every prompt exactly once
		expect(new Set(submitted.map((e) => (e.body as { prompt: string }).prompt)).size).toBe(N);

		const lastSubmit = Math.max(...submitted.map((e) => e.seq));
		const results = log.filter(isResult);
		expect(Math.min(...results.map((e) => e.seq))).toBeGreaterThan(lastSubmit);
		// one result fetch per run
		expect(results.map(requestIdOf).sort()).toEqual([...createdIds].sort());
		// waiting starts only once everything is submitted (all runs are then waited for together)
		// (a cold batch polls as one until its first run ends, so how many status requests it sends depends on timing;
		// test/shared/wait/coldBatch*.test.ts count them on a virtual clock)
		for (const e of log.filter(isStatus)) expect(e.seq).toBeGreaterThan(lastSubmit);

		// each output item belongs to its input item
		const runs = new Map(sb.state().runs.map((r) => [r.id, r]));
		result.items.forEach((item, i) => {
			expect(item.pairedItem).toEqual({ item: i });
			expect(item.json.status).toBe('succeeded');
			expect((runs.get(String(item.json.request_id))?.body as { prompt: string }).prompt).toBe(`item ${i}`);
		});
	});
});

/**
 * The runs of the tests above taught the process that this model takes milliseconds; a learned plan would make
 * the first poll a result request (the poll expected to see the end asks for the result). These tests are about
 * what happens to runs that are still going, so they start from nothing learned (the plain status polls).
 */
const forgetRunTimes = () => sharedDurations.forget(timingKey('model', MODELS.flash, ''));

describe('timeouts', () => {
	beforeEach(forgetRunTimes);
	const slow = { runDurationMs: 60_000, queueMs: 0 };
	const timeoutParams = (onTimeout: string, extra = {}) =>
		runParams(MODELS.flash, { prompt: 'slow' }, { waitOptions: { ...FAST_WAIT, maxWaitSeconds: 0.3, onTimeout }, ...extra });

	it('fail: an error naming the request id and how to pick it up', async () => {
		sb.reset(slow);
		const result = await runNode({ node, credentials: credentialsFor(sb), parameters: timeoutParams('fail') });
		expect(result.status).toBe('error');
		const id = submits(sb)[0].createdId as string;
		expect(result.error?.message).toContain(id);
		expect(result.error?.message).toContain('did not finish within 0.3 s');
		expect(result.error?.description).toContain('Get Result');
		expect(result.error?.description).toContain('Max Wait');
		expect(sb.log().filter(isCancel)).toHaveLength(0);
		expect(sb.log().filter(isResult)).toHaveLength(0);
	});

	it('fail, several runs: one error listing every request id', async () => {
		sb.reset(slow);
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			inputItems: [{ json: {} }, { json: {} }, { json: {} }],
			parameters: timeoutParams('fail'),
		});
		expect(result.status).toBe('error');
		for (const e of submits(sb)) expect(result.error?.message).toContain(e.createdId);
	});

	it('fail under Continue on Fail: an error item that keeps the request id', async () => {
		sb.reset(slow);
		const result = await runNode({
			node,
			continueOnFail: true,
			credentials: credentialsFor(sb),
			parameters: timeoutParams('fail'),
		});
		expect(result.status).toBe('success');
		const [item] = result.items;
		expect(item.json.request_id).toBe(submits(sb)[0].createdId);
		expect(item.json.error).toContain('did not finish');
		expect(item.json.still_running).toBe(true);
		expect(item.pairedItem).toEqual({ item: 0 });
	});

	it('returnRunning: the item says still running, with its status and URLs', async () => {
		sb.reset(slow);
		const result = await runNode({ node, credentials: credentialsFor(sb), parameters: timeoutParams('returnRunning') });
		expect(result.status).toBe('success');
		const [item] = result.items;
		expect(item.json).toMatchObject({
			model_id: MODELS.flash,
			request_id: submits(sb)[0].createdId,
			status: 'running',
			service_status: 'in_progress',
			still_running: true,
			status_url: expect.stringMatching(/\/status$/),
			result_url: expect.stringMatching(/\/result$/),
		});
		expect(item.binary).toBeUndefined();
		expect(sb.log().filter(isCancel)).toHaveLength(0);
	});

	it('cancel: a queued run is cancelled; a running one is reported not cancellable', async () => {
		// one worker: the first run executes, the second waits in the queue
		sb.reset({ runDurationMs: 60_000, queueMs: 0, workers: 1 });
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			inputItems: [{ json: {} }, { json: {} }],
			parameters: timeoutParams('cancel'),
		});
		expect(result.status).toBe('success');
		const [running, queued] = result.items;
		expect(running.json).toMatchObject({ timed_out: true, cancel_outcome: 'not_cancellable', still_running: true });
		expect(queued.json).toMatchObject({ timed_out: true, cancel_outcome: 'cancelled', still_running: false });
		const cancels = sb.log().filter(isCancel).map(requestIdOf).sort();
		expect(cancels).toEqual(
			submits(sb)
				.map((e) => e.createdId)
				.sort(),
		);
		const states = new Map(sb.state().runs.map((r) => [r.id, r.status]));
		expect(states.get(String(queued.json.request_id))).toBe('cancelled');
		expect(states.get(String(running.json.request_id))).toBe('in_progress');
	});
});

describe('Stop (execution cancelled)', () => {
	beforeEach(forgetRunTimes);
	it('cancels every queued run on the service; the one already running is left, not cancellable', async () => {
		sb.reset({ runDurationMs: 60_000, queueMs: 0, workers: 1 });
		const N = 5;
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			inputItems: Array.from({ length: N }, () => ({ json: {} })),
			parameters: runParams(MODELS.flash, { prompt: 'queued' }, { waitOptions: { ...FAST_WAIT, maxWaitSeconds: 60 } }),
			onStart: (stop) => {
				// Stop once the node is waiting: every run submitted and polled at least once.
				void until(() => {
					const log = sb.log();
					const ids = log.filter(isSubmit).map((e) => e.createdId);
					const polled = new Set(log.filter(isStatus).map(requestIdOf));
					return ids.length === N && ids.every((id) => polled.has(id as string));
				}, 'all runs submitted and polled').then(stop);
			},
		});
		expect(result.stopped).toBe(true);
		await until(() => sb.log().filter(isCancel).length >= N, 'cancel requests after Stop');
		const ids = submits(sb).map((e) => e.createdId as string);
		expect(sb.log().filter(isCancel).map(requestIdOf).sort()).toEqual([...ids].sort());
		const states = new Map(sb.state().runs.map((r) => [r.id, r.status]));
		expect(ids.map((id) => states.get(id))).toEqual(['in_progress', 'cancelled', 'cancelled', 'cancelled', 'cancelled']);
		// nothing was fetched or downloaded after Stop
		expect(sb.log().filter(isResult)).toHaveLength(0);
	});
});
