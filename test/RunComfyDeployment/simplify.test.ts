/**
 * Deployment → Get and Get Many: Simplify (on by default, as in n8n's own nodes) keeps the fields a user needs,
 * the id first; off gives the service's whole record; an agent gets the simplified form; an expression that gives
 * nothing is refused before any call.
 */
import { runNode } from '../helpers/engine';
import { callTool, expectCompact, expectSummary, fromAI } from '../helpers/toolSetup';
import { FAST, credentialsFor, deploymentId, locator, node, useSandbox } from './setup';

const sb = useSandbox();
beforeEach(() => sb.reset(FAST));

/** The simplified fields of a deployment without the workflow or readme, in order. */
const BASE = ['id', 'name', 'status', 'is_enabled', 'workflow_id', 'workflow_version', 'hardware', 'updated_at'];

const run = async (parameters: object) =>
	await runNode({ node, credentials: credentialsFor(sb), parameters: { resource: 'deployment', ...parameters } });

describe.each([
	['get', (id: string) => ({ operation: 'get', deploymentId: locator(id, 'id') })],
	['getAll', (id: string) => ({ operation: 'getAll', ids: id })],
])('Deployment → %s', (_operation, params) => {
	it('is simplified by default: the id, name, status, workflow, hardware and last change, nothing else', async () => {
		const id = deploymentId(sb, 'flux-image-to-image');
		const result = await run(params(id));
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		const { json } = result.items[0];
		expect(Object.keys(json)).toEqual(BASE);
		expect(json).toMatchObject({ id, name: 'flux-image-to-image', hardware: ['ADA_48_PLUS'], is_enabled: true });
	});

	it('simplified with Include Workflow and Include Readme: their summary and text, not the whole graph', async () => {
		const id = deploymentId(sb, 'flux-image-to-image');
		const { json } = (await run({ ...params(id), includePayload: true, includeReadme: true })).items[0];
		expect(Object.keys(json)).toEqual([...BASE, 'workflow_nodes', 'readme']);
		expect(Object.keys(json).length).toBeLessThanOrEqual(10);
		expect(json.workflow_nodes).toContainEqual(expect.objectContaining({ node_id: '10', title: 'Load Image' }));
		expect(json.payload).toBeUndefined();
	});

	it('Simplify off: the whole record, with the instance limits and the saved workflow', async () => {
		const id = deploymentId(sb, 'flux-image-to-image');
		const { json } = (await run({ ...params(id), includePayload: true, simple: false })).items[0];
		expect(json).toMatchObject({
			id,
			min_instances: expect.any(Number),
			max_instances: expect.any(Number),
			created_at: expect.any(String),
		});
		expect(json.payload).toHaveProperty('workflow_api_json');
		expect(Object.keys(json).length).toBeGreaterThan(10);
	});

	it('an AI agent gets the simplified form with its summary', async () => {
		const id = deploymentId(sb, 'sdxl-text-to-image');
		const parameters = { resource: 'deployment', ...params(fromAI('deployment_id')) };
		const [item] = expectCompact(sb, await callTool(sb, node, parameters, { deployment_id: id }));
		expect(Object.keys(item.json)).toEqual([...BASE, 'summary']);
		expectSummary(item.json, 'sdxl-text-to-image');
		expect(item.json.id).toBe(id);
	});

	it('a Simplify or Include Workflow expression that gives nothing is refused before any call', async () => {
		const id = deploymentId(sb, 'flux-image-to-image');
		sb.clearLog();
		const result = await run({ ...params(id), simple: '={{ $json.simplify }}' });
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe('"Simplify" of item 0 is empty: its expression {{ $json.simplify }} gave undefined');
		expect(sb.log().filter((e) => e.api === 'serverless')).toEqual([]);
		const include = await run({ ...params(id), includePayload: '={{ $json.withWorkflow }}' });
		expect(include.error?.message).toBe('"Include Workflow" of item 0 is empty: its expression {{ $json.withWorkflow }} gave undefined');
		expect(sb.log().filter((e) => e.api === 'serverless')).toEqual([]);
	});
});
