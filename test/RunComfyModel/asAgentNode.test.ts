/**
 * RunComfy Model called the way AI Agent 3.x (n8n's default agent) calls a tool: as an ordinary workflow node of
 * type `<type>Tool`, `isToolExecution()` false (as on every n8n before n8n-core 2.3). The agent form must apply
 * there too: compact JSON with a summary, no downloads, a wait bounded to 120 s that returns the job as still
 * running. Before, this path got the full record, both files as binary and the node's own Max Wait.
 */
import type { IDataObject } from 'n8n-workflow';

import type { Sandbox } from '../../sandbox';
import { TOOL_MAX_WAIT_SECONDS } from '../../nodes/shared/jobs';
import { MODEL_OK, runReaches, runState, submitModelRun } from '../helpers/sandboxCalls';
import { callTool, expectCompact, expectSummary, fromAI, virtualWaitClock } from '../helpers/toolSetup';
import { node, openSandbox } from './setup';

const RUN = {
	resource: 'model',
	operation: 'run',
	model: { __rl: true, mode: 'id', value: fromAI('model_id', 'The model to run') },
	inputMode: 'json',
	inputsJson: "={{ JSON.stringify($fromAI('inputs', 'The flat inputs of the model', 'json')) }}",
	waitOptions: { pollIntervalSeconds: 0.02, maxPollIntervalSeconds: 0.05 },
};

describe('RunComfy Model as an AI Agent 3.x tool node (isToolExecution() false)', () => {
	let sb: Sandbox;
	beforeAll(async () => {
		sb = await openSandbox();
	});
	afterAll(async () => await sb.close());
	beforeEach(() => sb.reset());

	it('Run: compact JSON with the output URL and a summary, nothing downloaded', async () => {
		const result = await callTool(sb, node, RUN, { model_id: MODEL_OK, inputs: { prompt: 'a red fox' } }, 'agentNode');
		const [item] = expectCompact(sb, result);
		const requestId = String(item.json.request_id);
		expect(sb.state().runs.map((r) => r.id)).toEqual([requestId]);
		expect(item.json).toMatchObject({ model_id: MODEL_OK, status: 'succeeded' });
		const urls = item.json.output_urls as IDataObject[];
		expectSummary(item.json, requestId, 'succeeded', String(urls[0].url));
	});

	it('Run: a run longer than the 120 s cap comes back as still running', async () => {
		sb.configure({ modelDurations: { [MODEL_OK]: 3_600_000 } });
		const clock = virtualWaitClock();
		try {
			const result = await callTool(
				sb,
				node,
				{ ...RUN, waitOptions: {} },
				{ model_id: MODEL_OK, inputs: { prompt: 'a slow fox' } },
				'agentNode',
			);
			const [item] = expectCompact(sb, result);
			const requestId = String(item.json.request_id);
			expect(item.json).toMatchObject({ status: 'running', still_running: true });
			expect(runState(sb, requestId).status).toBe('in_progress');
			expect(clock.elapsedMs()).toBeLessThanOrEqual((TOOL_MAX_WAIT_SECONDS + 10) * 1000);
		} finally {
			clock.restore();
		}
	});

	it('Get Result: compact, no binary even with Download Outputs on', async () => {
		const requestId = await submitModelRun(sb);
		await runReaches(sb, requestId, 'completed');
		const result = await callTool(
			sb,
			node,
			{ resource: 'model', operation: 'getResult', requestId: fromAI('request_id'), downloadOutputs: true },
			{ request_id: requestId },
			'agentNode',
		);
		const [item] = expectCompact(sb, result);
		expectSummary(item.json, requestId, 'succeeded');
	});
});
