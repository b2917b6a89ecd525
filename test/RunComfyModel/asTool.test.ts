/**
 * RunComfy Model as an AI agent's tool (run_model, get_model_request_result, get_model_request_status,
 * list_models, get_balance of the tool server): compact JSON with ids, statuses, URLs and a one-line summary,
 * no binary, and waits bounded to 120 s (a longer run comes back as still running).
 */
import type { IDataObject } from 'n8n-workflow';

import type { Sandbox } from '../../sandbox';
import { TOOL_MAX_WAIT_SECONDS } from '../../nodes/shared/jobs';
import { MODEL_OK, runReaches, runState, submitModelRun } from '../helpers/sandboxCalls';
import { callTool, expectCompact, expectSummary, fromAI, virtualWaitClock } from '../helpers/toolSetup';
import { node, openSandbox } from './setup';

/** Run with the model and the flat inputs chosen by the agent; otherwise the node's defaults. */
const RUN = {
	resource: 'model',
	operation: 'run',
	model: { __rl: true, mode: 'id', value: fromAI('model_id', 'The model to run') },
	inputMode: 'json',
	inputsJson: "={{ JSON.stringify($fromAI('inputs', 'The flat inputs of the model', 'json')) }}",
	waitOptions: { pollIntervalSeconds: 0.02, maxPollIntervalSeconds: 0.05 },
};

describe('RunComfy Model as a tool', () => {
	let sb: Sandbox;
	beforeAll(async () => {
		sb = await openSandbox();
	});
	afterAll(async () => await sb.close());
	beforeEach(() => sb.reset());

	it('run_model: waits for the run and answers with the request id, status, output URLs, cost and a summary', async () => {
		const result = await callTool(sb, node, RUN, { model_id: MODEL_OK, inputs: { prompt: 'a red fox' } });
		const [item] = expectCompact(sb, result);
		const requestId = String(item.json.request_id);
		expect(sb.state().runs.map((r) => r.id)).toEqual([requestId]);
		expect(item.json).toMatchObject({ model_id: MODEL_OK, status: 'succeeded', cost: 0.04 });
		const urls = item.json.output_urls as IDataObject[];
		expect(urls).toHaveLength(1);
		expect(String(urls[0].url)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/files\/outputs\//);
		expectSummary(item.json, requestId, 'succeeded', String(urls[0].url));
		// Downloads are off for agents even though the node's default is on.
		expect(sb.log().filter((e) => e.api === 'files')).toEqual([]);
	});

	it('run_model: inputs sent as JSON text instead of an object run the same (one submit, the same body)', async () => {
		const result = await callTool(sb, node, RUN, { model_id: MODEL_OK, inputs: JSON.stringify({ prompt: 'a red fox' }) });
		const [item] = expectCompact(sb, result);
		expect(item.json).toMatchObject({ model_id: MODEL_OK, status: 'succeeded' });
		const submits = sb.log().filter((e) => e.method === 'POST' && e.path === `/v1/models/${MODEL_OK}`);
		expect(submits.map((e) => e.body)).toEqual([{ prompt: 'a red fox' }]);
	});

	it('run_model: a run longer than the 120 s cap comes back as still running, not as an error or a hang', async () => {
		sb.configure({ modelDurations: { [MODEL_OK]: 3_600_000 } });
		const clock = virtualWaitClock();
		try {
			// The node's own Max Wait is 600 s; as a tool it is capped.
			const result = await callTool(sb, node, { ...RUN, waitOptions: {} }, { model_id: MODEL_OK, inputs: { prompt: 'a slow fox' } });
			const [item] = expectCompact(sb, result);
			const requestId = String(item.json.request_id);
			expect(item.json).toMatchObject({ status: 'running', still_running: true });
			expect(runState(sb, requestId).status).toBe('in_progress');
			expectSummary(item.json, requestId, 'still running');
			// Virtual time: the wait stopped at the cap, not at the node's 600 s default.
			expect(clock.elapsedMs()).toBeGreaterThanOrEqual((TOOL_MAX_WAIT_SECONDS - 10) * 1000);
			expect(clock.elapsedMs()).toBeLessThanOrEqual((TOOL_MAX_WAIT_SECONDS + 10) * 1000);
		} finally {
			clock.restore();
		}
		// Nothing was cancelled: the agent can fetch the result later.
		expect(sb.log().filter((e) => e.path.endsWith('/cancel'))).toEqual([]);
	});

	it('run_model: "On Timeout: Fail" set explicitly in the node still applies, at the 120 s cap', async () => {
		sb.configure({ modelDurations: { [MODEL_OK]: 3_600_000 } });
		const clock = virtualWaitClock();
		try {
			const result = await callTool(
				sb,
				node,
				{ ...RUN, waitOptions: { maxWaitSeconds: 600, onTimeout: 'fail' } },
				{ model_id: MODEL_OK, inputs: { prompt: 'a slow fox' } },
			);
			expect(result.status).toBe('error');
			const requestId = sb.state().runs[0].id;
			expect(result.error?.message).toBe(`Run ${requestId} did not finish within ${TOOL_MAX_WAIT_SECONDS / 60} min (status: in_progress)`);
		} finally {
			clock.restore();
		}
	});

	it('run_model without waiting: the request handle and a summary', async () => {
		const result = await callTool(sb, node, { ...RUN, waitForCompletion: false }, { model_id: MODEL_OK, inputs: { prompt: 'x' } });
		const [item] = expectCompact(sb, result);
		expect(item.json.request_id).toBe(sb.state().runs[0].id);
		expectSummary(item.json, String(item.json.request_id));
	});

	it('get_model_request_result: status, output URLs, cost and a summary', async () => {
		const requestId = await submitModelRun(sb);
		await runReaches(sb, requestId, 'completed');
		const result = await callTool(
			sb,
			node,
			{ resource: 'model', operation: 'getResult', requestId: fromAI('request_id'), downloadOutputs: true },
			{ request_id: requestId },
		);
		const [item] = expectCompact(sb, result);
		expect(item.json).toMatchObject({ request_id: requestId, status: 'succeeded' });
		expect((item.json.output_urls as IDataObject[]).length).toBe(1);
		expectSummary(item.json, requestId, 'succeeded');
	});

	it('get_model_request_status: the request id and its status', async () => {
		const requestId = await submitModelRun(sb);
		await runReaches(sb, requestId, 'completed');
		const result = await callTool(
			sb,
			node,
			{ resource: 'model', operation: 'getStatus', requestId: fromAI('request_id') },
			{ request_id: requestId },
		);
		const [item] = expectCompact(sb, result);
		expect(item.json).toMatchObject({ request_id: requestId, status: 'completed' });
		expectSummary(item.json, requestId, 'completed');
	});

	it("list_models: the models matching the agent's search, without input schemas", async () => {
		const result = await callTool(
			sb,
			node,
			{ resource: 'catalog', operation: 'getManyModels', limit: 5, filters: { search: fromAI('search', 'Text to look for') } },
			{ search: 'kling' },
		);
		const items = expectCompact(sb, result);
		expect(items.length).toBeGreaterThan(0);
		expect(items.length).toBeLessThanOrEqual(5);
		for (const { json } of items) {
			expect(String(json.model_id)).toMatch(/kling/);
			expect(json.input_schema).toBeUndefined();
			expectSummary(json, String(json.model_id));
		}
	});

	it('get_balance: the balance in USD and microdollars', async () => {
		sb.configure({ walletMicrodollars: 4_830_000 });
		const result = await callTool(sb, node, { resource: 'account', operation: 'getBalance' });
		const [item] = expectCompact(sb, result);
		expect(item.json).toMatchObject({ balance_usd: 4.83, balance_microdollars: 4_830_000, currency: 'USD' });
		expectSummary(item.json, '4.83', 'USD');
	});
});
