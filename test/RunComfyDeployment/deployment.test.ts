/**
 * RunComfy Deployment node → Deployment resource (List, Get, Create, Update, Pause, Resume, Delete) and the
 * deployment picker, in the real n8n engine against the sandbox. Bad input is refused with a clear error
 * and nothing changes on the service.
 */
import type { INodeParameters } from 'n8n-workflow';

import { listSearch, runNode } from '../helpers/engine';
import { FAST, credentialsFor, deploymentId, locator, node, useSandbox } from './setup';

const sb = useSandbox();
beforeEach(() => sb.reset(FAST));

const serverless = () => sb.log().filter((e) => e.api === 'serverless');
const writes = () => serverless().filter((e) => e.method !== 'GET');

describe('Deployment → List', () => {
	it.each([
		['wrapped {deployments: [...]} (contract)', false],
		['bare array (live service)', true],
	])('returns one item per deployment when the list is %s', async (_label, bare) => {
		sb.configure({ quirks: { bareDeploymentList: bare } });
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: { resource: 'deployment', operation: 'getAll' },
		});
		expect(result.error).toBeUndefined();
		const names = result.items.map((i) => i.json.name).sort();
		expect(names).toEqual(['flux-image-to-image', 'paused-text-to-image', 'sdxl-text-to-image', 'wan-image-to-video']);
		for (const item of result.items) {
			expect(item.json).toMatchObject({ id: expect.any(String), hardware: expect.any(Array), is_enabled: expect.any(Boolean) });
			expect(item.json.payload).toBeUndefined();
			expect(item.pairedItem).toEqual({ item: 0 });
		}
	});

	it('Limit keeps the first deployments; Return All keeps every one; a bad Limit is refused', async () => {
		const getMany = async (extra: object) =>
			await runNode({ node, credentials: credentialsFor(sb), parameters: { resource: 'deployment', operation: 'getAll', ...extra } });
		const all = await getMany({ returnAll: true });
		expect(all.items).toHaveLength(4);
		const two = await getMany({ limit: 2 });
		expect(two.items.map((i) => i.json.id)).toEqual(all.items.slice(0, 2).map((i) => i.json.id));
		const bad = await getMany({ limit: '=two' });
		expect(bad.status).toBe('error');
		expect(bad.error?.message).toMatch(/"Limit" of item 0 must be a number, but is "two"/);
	});

	it('filters by ids and adds the saved workflow and readme when asked (Simplify off: the whole record)', async () => {
		const t2i = deploymentId(sb, 'sdxl-text-to-image');
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: {
				resource: 'deployment',
				operation: 'getAll',
				ids: ` ${t2i} `,
				includePayload: true,
				includeReadme: true,
				simple: false,
			},
		});
		expect(result.items).toHaveLength(1);
		const [item] = result.items;
		expect(item.json.id).toBe(t2i);
		expect(item.json.readme).toEqual(expect.stringContaining('SDXL'));
		expect((item.json.payload as { workflow_api_json: object }).workflow_api_json).toHaveProperty('6');
		expect(item.json.workflow_nodes).toContainEqual({
			node_id: '6',
			title: 'CLIP Text Encode (Prompt)',
			class_type: 'CLIPTextEncode',
			inputs: ['text'],
		});
		const [call] = serverless();
		expect(call.query).toMatchObject({ ids: t2i });
	});
});

describe('Deployment → Get', () => {
	it('returns the deployment, with payload and readme on request', async () => {
		const id = deploymentId(sb, 'flux-image-to-image');
		const plain = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: { resource: 'deployment', operation: 'get', deploymentId: locator(id, 'id') },
		});
		expect(plain.items[0].json).toMatchObject({ id, name: 'flux-image-to-image', hardware: ['ADA_48_PLUS'] });
		expect(plain.items[0].json.payload).toBeUndefined();

		const full = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: { resource: 'deployment', operation: 'get', deploymentId: locator(id), includePayload: true, includeReadme: true },
		});
		const json = full.items[0].json;
		expect(json.readme).toEqual(expect.stringContaining('LoadImage'));
		expect(json.workflow_nodes).toContainEqual(
			expect.objectContaining({ node_id: '10', title: 'Load Image', inputs: ['image', 'upload'] }),
		);
	});

	it.each([false, true])('an unknown id says so plainly (errors as HTTP 200: %s)', async (http200) => {
		sb.configure({ quirks: { errorsAsHttp200: http200 } });
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: { resource: 'deployment', operation: 'get', deploymentId: locator('no-such-deployment', 'id') },
		});
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe('No deployment with ID "no-such-deployment" exists on this RunComfy account');
		expect(result.error?.description).toMatch(/List returns every ID/);
	});
});

describe('Deployment → Create', () => {
	it("sends the clients' defaults and hardware as a one-element array", async () => {
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: { resource: 'deployment', operation: 'create', name: 'my-deploy', workflowId: '0b9f7a8e-1c2d-4e3f-8a9b-000000000001' },
		});
		expect(result.error).toBeUndefined();
		const [post] = writes();
		expect(post.method).toBe('POST');
		expect(post.path).toBe('/prod/v2/deployments');
		expect(post.body).toEqual({
			name: 'my-deploy',
			workflow_id: '0b9f7a8e-1c2d-4e3f-8a9b-000000000001',
			workflow_version: 'v1',
			hardware: ['AMPERE_48'],
			min_instances: 0,
			max_instances: 1,
			queue_size: 1,
			keep_warm_duration_in_seconds: 60,
		});
		expect(result.items[0].json).toMatchObject({ name: 'my-deploy', is_enabled: true, id: expect.any(String) });
		expect(sb.state().deployments.map((d) => d.name)).toContain('my-deploy');
	});

	it('refuses min instances above max, and an unknown hardware SKU, before any call', async () => {
		const base = { resource: 'deployment', operation: 'create', name: 'x', workflowId: 'w' };
		const minMax = await runNode({ node, credentials: credentialsFor(sb), parameters: { ...base, minInstances: 3, maxInstances: 2 } });
		expect(minMax.status).toBe('error');
		expect(minMax.error?.message).toBe('Min Instances (3) is above Max Instances (2)');
		expect(minMax.error?.description).toMatch(/Nothing was changed/);

		const sku = await runNode({ node, credentials: credentialsFor(sb), parameters: { ...base, hardware: '={{ "RTX_4090" }}' } });
		expect(sku.status).toBe('error');
		expect(sku.error?.message).toBe('"RTX_4090" is not a known hardware SKU');
		expect(sku.error?.description).toContain('AMPERE_48');
		expect(serverless()).toEqual([]);
	});
});

describe('Deployment → Update, Pause, Resume, Delete', () => {
	it('Update sends only the fields given, with the current name filled in', async () => {
		sb.configure({ quirks: { patchRequiresName: true } });
		const id = deploymentId(sb, 'sdxl-text-to-image');
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: {
				resource: 'deployment',
				operation: 'update',
				deploymentId: locator(id),
				updateFields: { maxInstances: 3, hardware: 'ADA_80_PLUS', keepWarmSeconds: 120 },
			},
		});
		expect(result.error).toBeUndefined();
		const [patch] = writes();
		expect(patch.method).toBe('PATCH');
		expect(patch.body).toEqual({
			name: 'sdxl-text-to-image',
			max_instances: 3,
			hardware: ['ADA_80_PLUS'],
			keep_warm_duration_in_seconds: 120,
		});
		expect(result.items[0].json).toMatchObject({ id, max_instances: 3, hardware: ['ADA_80_PLUS'] });
	});

	it('Update refuses an empty change, min above the current max, an unknown SKU and an unknown id, changing nothing', async () => {
		const id = deploymentId(sb, 'sdxl-text-to-image'); // max_instances 1
		const update = (deployment: string, updateFields: INodeParameters) =>
			runNode({
				node,
				credentials: credentialsFor(sb),
				parameters: { resource: 'deployment', operation: 'update', deploymentId: locator(deployment, 'id'), updateFields },
			});
		const empty = await update(id, {});
		expect(empty.error?.message).toBe('No fields to update');
		const minMax = await update(id, { minInstances: 2 });
		expect(minMax.error?.message).toBe('Min Instances (2) is above Max Instances (1)');
		const sku = await update(id, { hardware: '={{ "H100" }}' });
		expect(sku.error?.message).toBe('"H100" is not a known hardware SKU');
		const missing = await update('gone-deployment', { name: 'renamed' });
		expect(missing.error?.message).toBe('No deployment with ID "gone-deployment" exists on this RunComfy account');
		expect(writes()).toEqual([]);
	});

	it('Pause and Resume switch is_enabled (name filled in automatically)', async () => {
		sb.configure({ quirks: { patchRequiresName: true } });
		const id = deploymentId(sb, 'flux-image-to-image');
		const paused = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: { resource: 'deployment', operation: 'pause', deploymentId: locator(id) },
		});
		expect(paused.items[0].json).toMatchObject({ id, is_enabled: false });
		expect(sb.state().deployments.find((d) => d.id === id)?.is_enabled).toBe(false);

		const resumed = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: { resource: 'deployment', operation: 'resume', deploymentId: locator(id) },
		});
		expect(resumed.items[0].json).toMatchObject({ id, is_enabled: true });
		expect(writes().map((e) => e.body)).toEqual([
			{ is_enabled: false, name: 'flux-image-to-image' },
			{ is_enabled: true, name: 'flux-image-to-image' },
		]);
	});

	it('Pause of an unknown deployment is a clear error', async () => {
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: { resource: 'deployment', operation: 'pause', deploymentId: locator('nope', 'id') },
		});
		expect(result.error?.message).toBe('No deployment with ID "nope" exists on this RunComfy account');
		expect(writes()).toEqual([]);
	});

	it('Delete removes the deployment; deleting it again is a clear error', async () => {
		const id = deploymentId(sb, 'wan-image-to-video');
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: { resource: 'deployment', operation: 'delete', deploymentId: locator(id) },
		});
		expect(result.items[0].json).toMatchObject({ deployment_id: id, deleted: true });
		expect(sb.state().deployments.map((d) => d.id)).not.toContain(id);

		const again = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: { resource: 'deployment', operation: 'delete', deploymentId: locator(id) },
		});
		expect(again.status).toBe('error');
		expect(again.error?.message).toBe(`No deployment with ID "${id}" exists on this RunComfy account`);
		expect(sb.state().deployments).toHaveLength(3);
	});

	it('Continue on Fail: a failing item becomes an error item, the others go through, paired', async () => {
		const id = deploymentId(sb, 'sdxl-text-to-image');
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			continueOnFail: true,
			inputItems: [{ json: { id } }, { json: { id: 'missing' } }, { json: { id } }],
			parameters: { resource: 'deployment', operation: 'get', deploymentId: locator('={{ $json.id }}', 'id') },
		});
		expect(result.status).toBe('success');
		expect(result.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(result.items[0].json.id).toBe(id);
		expect(result.items[1].json.error).toBe('No deployment with ID "missing" exists on this RunComfy account');
		expect(result.items[2].json.id).toBe(id);
	});
});

describe('Deployment picker (listSearch searchDeployments)', () => {
	it('shows name, status and enabled; filters by name on the client', async () => {
		sb.configure({ quirks: { bareDeploymentList: true } });
		const all = await listSearch({ node, method: 'searchDeployments', credentials: credentialsFor(sb), parameters: {} });
		expect(all.results).toContainEqual({ name: 'paused-text-to-image — paused', value: deploymentId(sb, 'paused-text-to-image') });
		expect(all.results).toContainEqual({ name: 'sdxl-text-to-image — standby, enabled', value: deploymentId(sb, 'sdxl-text-to-image') });
		const some = await listSearch({
			node,
			method: 'searchDeployments',
			credentials: credentialsFor(sb),
			parameters: {},
			filter: 'IMAGE-TO',
		});
		expect(some.results.map((r) => r.value).sort()).toEqual(
			[deploymentId(sb, 'flux-image-to-image'), deploymentId(sb, 'wan-image-to-video')].sort(),
		);
	});
});
