/**
 * RunComfy Model node → Get Status, Get Result, Cancel for a request id (a run picked up later), and the
 * request id checks that happen before any call.
 */
import type { INodeParameters } from 'n8n-workflow';

import { runNode } from '../helpers/engine';
import { MODELS, credentialsFor, isResult, node, runParams, useSandbox } from './setup';

const sb = useSandbox();

/** Submits a run without waiting and returns its request id. */
async function submitRun(model: string = MODELS.flash, body: object = { prompt: 'later' }): Promise<string> {
	const result = await runNode({
		node,
		credentials: credentialsFor(sb),
		parameters: runParams(model, body, { waitForCompletion: false }),
	});
	expect(result.error).toBeUndefined();
	return String(result.items[0].json.request_id);
}

const op = (operation: string, requestId: string, extra: INodeParameters = {}) =>
	runNode({ node, credentials: credentialsFor(sb), parameters: { resource: 'model', operation, requestId, ...extra } });

describe('Get Status / Get Result / Cancel', () => {
	it('Get Status reports the service status', async () => {
		sb.reset({ runDurationMs: 60_000, queueMs: 60_000 });
		const id = await submitRun();
		const result = await op('getStatus', id);
		expect(result.items[0].json).toMatchObject({ request_id: id, status: 'queued', service_status: 'in_queue', queue_position: 1 });
	});

	it('Get Result before completion returns the current record, not an error', async () => {
		sb.reset({ runDurationMs: 60_000, queueMs: 0 });
		const id = await submitRun();
		const result = await op('getResult', id);
		expect(result.status).toBe('success');
		expect(result.items[0].json).toMatchObject({ request_id: id, status: 'running', service_status: 'in_progress', output_urls: [] });
		expect(result.items[0].binary).toBeUndefined();
	});

	it('Get Result of a finished run gives output, cost, output_urls and the files', async () => {
		sb.reset({ runDurationMs: 0, queueMs: 0 });
		const id = await submitRun(MODELS.flash, { prompt: 'done', num_images: 2 });
		sb.clearLog();
		const result = await op('getResult', id);
		const [item] = result.items;
		expect(item.json).toMatchObject({ request_id: id, status: 'succeeded', cost: 0.04 });
		expect(item.json.output_urls).toHaveLength(2);
		expect(Object.keys(item.binary ?? {})).toEqual(['data', 'data_1']);
		expect(sb.log().filter(isResult)[0].query.include_cost).toBe('true');
	});

	it('Get Result without cost and without downloads', async () => {
		sb.reset({ runDurationMs: 0, queueMs: 0 });
		const id = await submitRun();
		sb.clearLog();
		const result = await op('getResult', id, { options: { includeCost: false }, downloadOutputs: false });
		expect(result.items[0].json.cost).toBeUndefined();
		expect(result.items[0].binary).toBeUndefined();
		expect(sb.log().filter(isResult)[0].query.include_cost).not.toBe('true');
		expect(sb.log().filter((e) => e.api === 'files')).toHaveLength(0);
	});

	it('Get Result of a failed run returns the record with the service error', async () => {
		sb.reset({ runDurationMs: 0, queueMs: 0 });
		const id = await submitRun(MODELS.fails, { prompt: 'x' });
		const result = await op('getResult', id);
		expect(result.items[0].json).toMatchObject({ request_id: id, status: 'failed' });
		expect(String(result.items[0].json.error)).toContain('CUDA error');
	});

	it('Cancel: a queued run is cancelled, a running one is not cancellable', async () => {
		sb.reset({ runDurationMs: 60_000, queueMs: 0, workers: 1 });
		const running = await submitRun();
		const queued = await submitRun();
		const a = await op('cancel', queued);
		expect(a.items[0].json).toMatchObject({ request_id: queued, outcome: 'cancelled' });
		const b = await op('cancel', running);
		expect(b.items[0].json).toMatchObject({ request_id: running, outcome: 'not_cancellable' });
		const states = new Map(sb.state().runs.map((r) => [r.id, r.status]));
		expect(states.get(queued)).toBe('cancelled');
		expect(states.get(running)).toBe('in_progress');
	});

	it("an unknown request id is the service's not-found error, naming the id", async () => {
		sb.reset({});
		const result = await op('getStatus', '00000000-0000-4000-8000-000000000000');
		expect(result.status).toBe('error');
		expect(`${result.error?.message} ${result.error?.description}`).toContain('00000000-0000-4000-8000-000000000000');
	});
});

describe('request id checks (before any call)', () => {
	it.each([
		['empty', '', /empty/],
		['whitespace only', '   ', /empty/],
		['a slash', 'abc/def', /not valid/],
		['..', '..', /not valid/],
		['a .. inside', 'abc..def', /not valid/],
		['a space inside', 'abc def', /not valid/],
		['a query', 'abc?x=1', /not valid/],
	])('%s is refused for every operation', async (_label, id, pattern) => {
		for (const operation of ['getStatus', 'getResult', 'cancel']) {
			sb.clearLog();
			// given by an expression, as when it comes from an earlier node (a typed empty id is already
			// refused by n8n as a missing required parameter)
			const result = await runNode({
				node,
				credentials: credentialsFor(sb),
				inputItems: [{ json: { id } }],
				parameters: { resource: 'model', operation, requestId: '={{ $json.id }}' },
			});
			expect(result.status).toBe('error');
			expect(result.error?.message).toMatch(pattern);
			expect(result.error?.description).toContain('request_id');
			expect(sb.log().filter((e) => e.api === 'model')).toHaveLength(0);
		}
	});

	it('under Continue on Fail a bad id is an error item; good ids still run', async () => {
		sb.reset({ runDurationMs: 0, queueMs: 0 });
		const id = await submitRun();
		const result = await runNode({
			node,
			continueOnFail: true,
			credentials: credentialsFor(sb),
			inputItems: [{ json: { id } }, { json: { id: '../etc' } }],
			parameters: { resource: 'model', operation: 'getStatus', requestId: '={{ $json.id }}' },
		});
		expect(result.items).toHaveLength(2);
		expect(result.items[0].json).toMatchObject({ request_id: id, status: 'completed' });
		expect(result.items[1].json.error).toMatch(/not valid/);
		expect(result.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
	});
});
