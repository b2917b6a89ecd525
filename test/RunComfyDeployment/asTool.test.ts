/**
 * RunComfy Deployment as an AI agent's tool (submit_request, get_request_status, get_request_result,
 * list_deployments of the tool server): compact JSON with ids, statuses, URLs and a one-line summary, no binary,
 * waits bounded to 120 s.
 */
import type { Sandbox } from '../../sandbox';
import { runReaches, runState, submitInference } from '../helpers/sandboxCalls';
import { callTool, expectCompact, expectSummary, fromAI, virtualWaitClock } from '../helpers/toolSetup';
import { node, openSandbox } from './setup';

const deployment = { __rl: true, mode: 'id', value: fromAI('deployment_id', 'The deployment') };
const RUN = {
	resource: 'inference',
	operation: 'run',
	deploymentId: deployment,
	inputMode: 'json',
	overridesJson: "={{ JSON.stringify($fromAI('overrides', 'Node id to inputs', 'json')) }}",
	waitOptions: { pollIntervalSeconds: 0.02, maxPollIntervalSeconds: 0.05 },
};
const OVERRIDES = { '6': { inputs: { text: 'a red fox' } } };

describe('RunComfy Deployment as a tool', () => {
	let sb: Sandbox;
	let dep: string;
	beforeAll(async () => {
		sb = await openSandbox();
		dep = sb.stable.deployments.textToImage;
	});
	afterAll(async () => await sb.close());
	beforeEach(() => sb.reset());

	it('submit_request with waiting: request id, status, output URLs and a summary', async () => {
		const result = await callTool(sb, node, RUN, { deployment_id: dep, overrides: OVERRIDES });
		const [item] = expectCompact(sb, result);
		const requestId = String(item.json.request_id);
		expect(sb.state().runs.map((r) => r.id)).toEqual([requestId]);
		expect(item.json).toMatchObject({ deployment_id: dep, status: 'succeeded' });
		expect(item.json.output_urls).toEqual([expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/files\/outputs\/.*\.png$/)]);
		expectSummary(item.json, requestId, dep, 'succeeded');
		// The overrides the agent chose were sent as they are.
		const submit = sb.log().find((e) => e.method === 'POST' && e.path.endsWith('/inference'));
		expect(submit?.body).toEqual({ overrides: OVERRIDES });
	});

	it('submit_request: overrides sent as JSON text instead of an object run the same (one submit, the same body)', async () => {
		const result = await callTool(sb, node, RUN, { deployment_id: dep, overrides: JSON.stringify(OVERRIDES) });
		const [item] = expectCompact(sb, result);
		expect(item.json).toMatchObject({ deployment_id: dep, status: 'succeeded' });
		const submits = sb.log().filter((e) => e.method === 'POST' && e.path.endsWith('/inference'));
		expect(submits.map((e) => e.body)).toEqual([{ overrides: OVERRIDES }]);
	});

	it('submit_request: a request longer than the 120 s cap comes back as still running', async () => {
		sb.configure({ modelDurations: { [dep]: 3_600_000 } });
		const clock = virtualWaitClock();
		try {
			const result = await callTool(sb, node, { ...RUN, waitOptions: {} }, { deployment_id: dep, overrides: OVERRIDES });
			const [item] = expectCompact(sb, result);
			const requestId = String(item.json.request_id);
			expect(item.json).toMatchObject({ status: 'running', still_running: true });
			expect(runState(sb, requestId).status).toBe('in_progress');
			expectSummary(item.json, requestId, 'still running');
			expect(clock.elapsedMs()).toBeGreaterThanOrEqual(110_000);
			expect(clock.elapsedMs()).toBeLessThanOrEqual(130_000);
		} finally {
			clock.restore();
		}
		expect(sb.log().filter((e) => e.path.endsWith('/cancel'))).toEqual([]);
	});

	it('get_request_status and get_request_result: ids, status, URLs and a summary', async () => {
		const requestId = await submitInference(sb, dep);
		await runReaches(sb, requestId, 'completed');
		const args = { deployment_id: dep, request_id: requestId };
		const status = await callTool(
			sb,
			node,
			{ resource: 'inference', operation: 'getStatus', deploymentId: deployment, requestId: fromAI('request_id') },
			args,
		);
		const [s] = expectCompact(sb, status);
		expect(s.json).toMatchObject({ deployment_id: dep, request_id: requestId, status: 'completed' });
		expectSummary(s.json, requestId, 'completed');

		const result = await callTool(
			sb,
			node,
			{ resource: 'inference', operation: 'getResult', deploymentId: deployment, requestId: fromAI('request_id'), downloadOutputs: true },
			args,
		);
		const [r] = expectCompact(sb, result);
		expect(r.json).toMatchObject({ request_id: requestId, status: 'succeeded', output_urls: [expect.stringMatching(/\.png$/)] });
		expectSummary(r.json, requestId, 'succeeded');
	});

	it('list_deployments: the deployments of the account', async () => {
		const result = await callTool(sb, node, { resource: 'deployment', operation: 'getAll' });
		const items = expectCompact(sb, result);
		expect(items.map((i) => i.json.id)).toContain(dep);
		for (const { json } of items) {
			expect(json.workflow_api_json).toBeUndefined();
			expectSummary(json, String(json.name));
		}
	});
});
