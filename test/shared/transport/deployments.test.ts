/**
 * Deployment endpoints of the shared transport (list/get/create/update/delete, inference with the v2→v1
 * fallback, request status/result/cancel/delete, instance proxy, balance) against the sandbox over loopback.
 */
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import {
	callInstanceProxy,
	cancelDeploymentRequest,
	createDeployment,
	deleteDeployment,
	deleteDeploymentRequest,
	getBalance,
	getDeployment,
	getDeploymentRequestResult,
	getDeploymentRequestStatus,
	listDeployments,
	submitDeploymentInference,
	updateDeployment,
} from '../../../nodes/shared/transport';
import { resetQueueVersionCache } from '../../../nodes/shared/transport/endpoints/deployments';
import type { RequestLogEntry } from '../../../sandbox';
import { useTransportSandbox } from '../../helpers/transportSetup';

const T2I = '5f0c3a52-6b1e-4c8e-9a0d-2d4f7b8e1a01';
const I2I = '5f0c3a52-6b1e-4c8e-9a0d-2d4f7b8e1a02';
const PAUSED = '5f0c3a52-6b1e-4c8e-9a0d-2d4f7b8e1a03';
const OVERRIDES = { overrides: { '6': { inputs: { text: 'a lighthouse at dusk' } } } };

const { sb, run, caught } = useTransportSandbox({
	config: { runDurationMs: 50, queueMs: 10 },
	credentials: (box) => ({ serverlessApiBaseUrl: `${box.urls.serverless}//` }),
	beforeEach: resetQueueVersionCache,
});

const entries = (): RequestLogEntry[] => sb.log().filter((e) => e.api === 'serverless');

describe('deployments', () => {
	it('lists deployments from the contract form { deployments: [...] }', async () => {
		const list = await run(async (ctx) => await listDeployments(ctx));
		expect(list.map((d) => d.id)).toEqual(expect.arrayContaining([T2I, I2I, PAUSED]));
		expect(entries()[0]).toMatchObject({ method: 'GET', path: '/prod/v2/deployments', query: {}, status: 200 });
	});

	it('lists deployments from the live form (a bare array)', async () => {
		sb.configure({ quirks: { bareDeploymentList: true } });
		const list = await run(async (ctx) => await listDeployments(ctx));
		expect(list.map((d) => d.id)).toEqual(expect.arrayContaining([T2I, I2I, PAUSED]));
	});

	it('sends ids and includes as repeated query parameters', async () => {
		const list = await run(
			async (ctx) => await listDeployments(ctx, { ids: [T2I, ` ${I2I} `], includePayload: true, includeReadme: true }),
		);
		expect(list.map((d) => d.id).sort()).toEqual([T2I, I2I].sort());
		expect(list[0].payload).toBeDefined();
		expect(entries()[0].query).toEqual({
			ids: [T2I, I2I],
			includes: ['payload', 'readme'],
			include_payload: 'true',
			include_readme: 'true',
		});
	});

	it('refuses an invalid id in the ids filter before sending', async () => {
		const error = await caught(async (ctx) => await listDeployments(ctx, { ids: ['a/b'] }));
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(entries()).toHaveLength(0);
	});

	it('gets one deployment, with the payload when asked', async () => {
		const [plain, withPayload] = await run(async (ctx) => [
			await getDeployment(ctx, T2I),
			await getDeployment(ctx, T2I, { includePayload: true }),
		]);
		expect(plain.id).toBe(T2I);
		expect(plain.payload).toBeUndefined();
		expect(withPayload.payload).toBeDefined();
		const [a, b] = entries();
		expect(a).toMatchObject({ method: 'GET', path: `/prod/v2/deployments/${T2I}`, query: {} });
		expect(b).toMatchObject({
			method: 'GET',
			path: `/prod/v2/deployments/${T2I}`,
			query: { includes: 'payload', include_payload: 'true' },
		});
	});

	it('maps an unknown deployment to a 404 naming the deployment id', async () => {
		const error = await caught(async (ctx) => await getDeployment(ctx, 'no-such-deployment'));
		expect(error.httpCode).toBe('404');
		expect(error.description).toMatch(/No deployment "no-such-deployment"/);
	});

	it('creates a deployment (hardware given as one SKU becomes a one-element array)', async () => {
		const body = {
			name: 'my-sdxl',
			workflow_id: '00000000-0000-4000-8000-000000000001',
			workflow_version: 'v1',
			hardware: 'AMPERE_48',
			min_instances: 0,
			max_instances: 1,
			queue_size: 1,
			keep_warm_duration_in_seconds: 60,
		};
		const created = await run(async (ctx) => await createDeployment(ctx, body));
		expect(typeof created.id).toBe('string');
		expect(created.name).toBe('my-sdxl');
		expect(entries()[0]).toMatchObject({
			method: 'POST',
			path: '/prod/v2/deployments',
			body: { ...body, hardware: ['AMPERE_48'] },
			status: 200,
		});
		expect(sb.state().deployments.map((d) => d.id)).toContain(created.id);
	});

	it('updates with the name filled in from a GET when the patch lacks it (live: PATCH requires name)', async () => {
		sb.configure({ quirks: { patchRequiresName: true } });
		const updated = await run(async (ctx) => await updateDeployment(ctx, T2I, { is_enabled: false }));
		expect(updated.is_enabled).toBe(false);
		const [get, patch] = entries();
		expect(get).toMatchObject({ method: 'GET', path: `/prod/v2/deployments/${T2I}` });
		expect(patch).toMatchObject({
			method: 'PATCH',
			path: `/prod/v2/deployments/${T2I}`,
			body: { is_enabled: false, name: 'sdxl-text-to-image' },
			status: 200,
		});
	});

	it('updates without the extra GET when the name is given', async () => {
		await run(async (ctx) => await updateDeployment(ctx, T2I, { name: 'renamed', max_instances: 2 }));
		expect(entries()).toHaveLength(1);
		expect(entries()[0]).toMatchObject({ method: 'PATCH', body: { name: 'renamed', max_instances: 2 } });
	});

	it('refuses an empty update before sending', async () => {
		const error = await caught(async (ctx) => await updateDeployment(ctx, T2I, { name: undefined }));
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toBe('Nothing to update');
		expect(entries()).toHaveLength(0);
	});

	it('deletes a deployment', async () => {
		const out = await run(async (ctx) => await deleteDeployment(ctx, I2I));
		expect(out).toMatchObject({ deleted: true });
		expect(entries()[0]).toMatchObject({ method: 'DELETE', path: `/prod/v2/deployments/${I2I}`, status: 200 });
		expect(sb.state().deployments.map((d) => d.id)).not.toContain(I2I);
	});
});

describe('inference', () => {
	it('submits on /prod/v2 with the webhook as query parameters; status/result/cancel/delete use v2', async () => {
		sb.configure({ queueMs: 60_000 });
		const out = await run(async (ctx) => {
			const handle = await submitDeploymentInference(ctx, T2I, OVERRIDES, {
				webhookUrl: 'https://example.com/hook?x=1',
				webhookIntermediateStatus: true,
				itemIndex: 0,
			});
			const status = await getDeploymentRequestStatus(ctx, T2I, handle.request_id);
			const result = await getDeploymentRequestResult(ctx, T2I, handle.request_id);
			const cancel = await cancelDeploymentRequest(ctx, T2I, handle.request_id);
			const deleted = await deleteDeploymentRequest(ctx, T2I, handle.request_id);
			return { handle, status, result, cancel, deleted };
		});
		expect(out.status.status).toBe('in_queue');
		expect(out.cancel.outcome ?? out.cancel.status).toBeDefined();
		expect(out.deleted).toMatchObject({ deleted: true });
		const rid = out.handle.request_id;
		const log = entries();
		expect(log.map((e) => `${e.method} ${e.path}`)).toEqual([
			`POST /prod/v2/deployments/${T2I}/inference`,
			`GET /prod/v2/deployments/${T2I}/requests/${rid}/status`,
			`GET /prod/v2/deployments/${T2I}/requests/${rid}/result`,
			`POST /prod/v2/deployments/${T2I}/requests/${rid}/cancel`,
			`DELETE /prod/v2/deployments/${T2I}/requests/${rid}`,
		]);
		expect(log[0]).toMatchObject({
			query: { webhook: 'https://example.com/hook?x=1', webhook_intermediate_status: 'true' },
			body: OVERRIDES,
			createdId: rid,
		});
	});

	it('falls back to /prod/v1 when the v2 route is absent, creating exactly one run, and keeps using v1', async () => {
		sb.configure({ quirks: { inferencePaths: 'v1' } });
		const out = await run(async (ctx) => {
			const handle = await submitDeploymentInference(ctx, T2I, OVERRIDES);
			const status = await getDeploymentRequestStatus(ctx, T2I, handle.request_id);
			return { handle, status };
		});
		expect(typeof out.handle.request_id).toBe('string');
		const log = entries();
		expect(log.map((e) => `${e.method} ${e.path} ${e.status}`)).toEqual([
			`POST /prod/v2/deployments/${T2I}/inference 404`,
			`POST /prod/v1/deployments/${T2I}/inference 200`,
			`GET /prod/v1/deployments/${T2I}/requests/${out.handle.request_id}/status 200`,
		]);
		expect(sb.state().runs).toHaveLength(1);
	});

	it('falls back for status reads too when v2 is absent', async () => {
		sb.configure({ quirks: { inferencePaths: 'v1' } });
		const rid = await run(async (ctx) => (await submitDeploymentInference(ctx, T2I, OVERRIDES)).request_id);
		resetQueueVersionCache();
		sb.clearLog();
		const status = await run(async (ctx) => await getDeploymentRequestStatus(ctx, T2I, rid));
		expect(status.request_id).toBe(rid);
		expect(entries().map((e) => `${e.path} ${e.status}`)).toEqual([
			`/prod/v2/deployments/${T2I}/requests/${rid}/status 404`,
			`/prod/v1/deployments/${T2I}/requests/${rid}/status 200`,
		]);
	});

	it('reports the missing request, not the missing route, when both versions answer 404', async () => {
		sb.configure({ quirks: { inferencePaths: 'v1' } });
		const error = await caught(async (ctx) => await getDeploymentRequestStatus(ctx, T2I, 'no-such-request'));
		expect(error.httpCode).toBe('404');
		expect(error.description).toMatch(/No request "no-such-request" was found on this deployment/);
		expect(entries()).toHaveLength(2);
	});

	it('maps a paused deployment (10002 DisabledDeployment) to "enable it"', async () => {
		const error = await caught(async (ctx) => await submitDeploymentInference(ctx, PAUSED, OVERRIDES));
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toContain('10002 DisabledDeployment');
		expect(error.description).toMatch(/Resume it \(Deployment → Resume\)/);
		expect(sb.state().runs).toHaveLength(0);
	});

	it('maps InsufficientFunds (10001) to "top up the balance"', async () => {
		sb.configure({ walletMicrodollars: 0 });
		const error = await caught(async (ctx) => await submitDeploymentInference(ctx, T2I, OVERRIDES));
		expect(error.message).toContain('10001 InsufficientFunds');
		expect(error.description).toMatch(/Top up the balance/);
	});

	it('renders which overrides failed (422 detail)', async () => {
		const error = await caught(
			async (ctx) => await submitDeploymentInference(ctx, T2I, { overrides: { '999': { inputs: { text: 'x' } } } }),
		);
		expect(error.httpCode).toBe('422');
		expect(error.description).toMatch(/These inputs were rejected: .*999/);
	});

	it('refuses a bad webhook URL and bad ids before sending', async () => {
		const e1 = await caught(async (ctx) => await submitDeploymentInference(ctx, T2I, OVERRIDES, { webhookUrl: 'not a url' }));
		const e2 = await caught(async (ctx) => await submitDeploymentInference(ctx, '../balance', OVERRIDES));
		const e3 = await caught(async (ctx) => await getDeploymentRequestResult(ctx, T2I, 'x?y'));
		for (const e of [e1, e2, e3]) expect(e).toBeInstanceOf(NodeOperationError);
		expect(entries()).toHaveLength(0);
	});
});

describe('instance proxy', () => {
	it('posts to the backend path of a running instance; empty and JSON answers both come back', async () => {
		sb.configure({ queueMs: 0, runDurationMs: 60_000 });
		const out = await run(async (ctx) => {
			const handle = await submitDeploymentInference(ctx, T2I, OVERRIDES);
			const status = await getDeploymentRequestStatus(ctx, T2I, handle.request_id);
			const iid = String(status.instance_id);
			const free = await callInstanceProxy(ctx, T2I, iid, '/api/free', { unload_models: true, free_memory: true });
			const stats = await callInstanceProxy(ctx, T2I, iid, 'api/system_stats');
			return { iid, free, stats };
		});
		expect(out.free).toBeNull();
		expect(out.stats).toMatchObject({ system: expect.any(Object) });
		const proxied = entries().filter((e) => e.path.includes('/proxy/'));
		expect(proxied[0]).toMatchObject({
			method: 'POST',
			path: `/prod/v2/deployments/${T2I}/instances/${out.iid}/proxy/api/free`,
			body: { unload_models: true, free_memory: true },
		});
		expect(proxied[1]).toMatchObject({ path: `/prod/v2/deployments/${T2I}/instances/${out.iid}/proxy/api/system_stats` });
	});

	it('maps a gone instance to the "instance ids are ephemeral" hint', async () => {
		const error = await caught(async (ctx) => await callInstanceProxy(ctx, T2I, 'old-instance', 'api/free'));
		expect(error.httpCode).toBe('404');
		expect(error.description).toMatch(/only valid while the instance runs/);
	});

	it('refuses a path that would leave the proxy route', async () => {
		const error = await caught(async (ctx) => await callInstanceProxy(ctx, T2I, 'i-1', 'api/../../../balance'));
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(entries()).toHaveLength(0);
	});
});

describe('balance', () => {
	it('reads the balance on the serverless host', async () => {
		const balance = await run(async (ctx) => await getBalance(ctx));
		expect(balance).toMatchObject({ balance_usd: 5, balance_microdollars: 5_000_000 });
		expect(entries()[0]).toMatchObject({ method: 'GET', path: '/prod/v2/balance', status: 200 });
	});

	it('treats a zero balance as a normal answer', async () => {
		sb.configure({ walletMicrodollars: 0 });
		const balance = await run(async (ctx) => await getBalance(ctx));
		expect(balance).toMatchObject({ balance_usd: 0, balance_microdollars: 0 });
	});
});
