/**
 * RunComfy Deployment node → Inference: Get Status, Get Result, Cancel, Delete Request and Call Instance
 * Proxy for a request submitted earlier (Run without waiting). Real n8n engine, sandbox on loopback.
 */
import type { INodeParameters } from 'n8n-workflow';

import { runNode } from '../helpers/engine';
import {
	FAST,
	FAST_WAIT,
	credentialsFor,
	deploymentId,
	isCancel,
	isRequestDelete,
	isStatus,
	locator,
	node,
	runJson,
	until,
	useSandbox,
} from './setup';

const sb = useSandbox();
beforeEach(() => sb.reset(FAST));

/** Submits one request without waiting; resolves with its ids. */
async function submit(name: Parameters<typeof deploymentId>[1] = 'sdxl-text-to-image'): Promise<{ id: string; requestId: string }> {
	const id = deploymentId(sb, name);
	const result = await runNode({
		node,
		credentials: credentialsFor(sb),
		parameters: runJson(id, { 6: { inputs: { text: 'a fox' } } }, { waitForCompletion: false }),
	});
	return { id, requestId: String(result.items[0].json.request_id) };
}

const op = (operation: string, id: string, requestId: string, extra: INodeParameters = {}): INodeParameters => ({
	resource: 'inference',
	operation,
	deploymentId: locator(id),
	requestId,
	...extra,
});

/** The state of a request as the sandbox sees it. */
const stateOf = (requestId: string) => sb.state().runs.find((r) => r.id === requestId)?.status;

/** Waits (bounded) until the sandbox says the request reached `status`, by asking the sandbox's state. */
async function untilState(requestId: string, status: string): Promise<void> {
	await until(() => stateOf(requestId) === status, `request ${requestId} to reach ${status}`);
}

describe('Get Status', () => {
	it('shows the queue position while queued and the live instance id while running', async () => {
		sb.configure({ queueMs: 60_000, runDurationMs: 60_000, workers: 1 });
		await submit();
		const second = await submit();
		const queued = await runNode({ node, credentials: credentialsFor(sb), parameters: op('getStatus', second.id, second.requestId) });
		expect(queued.items[0].json).toMatchObject({
			deployment_id: second.id,
			request_id: second.requestId,
			status: 'queued',
			service_status: 'in_queue',
			queue_position: 2,
		});

		sb.reset({ runDurationMs: 60_000, queueMs: 0 });
		const running = await submit();
		const status = await runNode({ node, credentials: credentialsFor(sb), parameters: op('getStatus', running.id, running.requestId) });
		expect(status.items[0].json).toMatchObject({ status: 'running', service_status: 'in_progress', instance_id: expect.any(String) });
	});

	it('an unknown request id is a 404 that says which ids belong together', async () => {
		const id = deploymentId(sb, 'sdxl-text-to-image');
		const result = await runNode({ node, credentials: credentialsFor(sb), parameters: op('getStatus', id, 'not-a-request') });
		expect(result.status).toBe('error');
		expect(result.error?.httpCode).toBe('404');
		expect(result.error?.description).toMatch(/kept for 7 days/);
	});

	it('an empty or malformed request id is refused before any call', async () => {
		const id = deploymentId(sb, 'sdxl-text-to-image');
		const empty = await runNode({ node, credentials: credentialsFor(sb), parameters: op('getStatus', id, '  ') });
		expect(empty.error?.message).toBe('The Request ID is empty');
		const bad = await runNode({ node, credentials: credentialsFor(sb), parameters: op('getStatus', id, '../x') });
		expect(bad.error?.message).toMatch(/The Request ID "\.\.\/x" is not valid/);
		expect(sb.log().filter(isStatus)).toEqual([]);
	});
});

describe('Get Result', () => {
	it.each(['both', 'v1'] as const)('returns outputs_flat and downloads the files (inference paths: %s)', async (paths) => {
		sb.configure({ quirks: { inferencePaths: paths } });
		const { id, requestId } = await submit('flux-image-to-image');
		await untilState(requestId, 'completed');
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: op('getResult', id, requestId, { options: { deleteRequestAfterDownload: true } }),
		});
		expect(result.error).toBeUndefined();
		const [item] = result.items;
		expect(item.json).toMatchObject({ deployment_id: id, request_id: requestId, status: 'succeeded', request_deleted: true });
		expect((item.json.outputs_flat as unknown[]).length).toBe(2);
		expect(item.binary?.data.mimeType).toBe('image/png');
		expect(sb.log().filter(isRequestDelete)).toHaveLength(1);
	});

	it('before completion it returns the current record without downloading or deleting', async () => {
		sb.configure({ runDurationMs: 60_000 });
		const { id, requestId } = await submit();
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: op('getResult', id, requestId, { options: { deleteRequestAfterDownload: true } }),
		});
		expect(result.items[0].json).toMatchObject({ status: 'running', service_status: 'in_progress', outputs_flat: [] });
		expect(result.items[0].binary).toBeUndefined();
		expect(result.items[0].json.request_deleted).toBeUndefined();
		expect(sb.log().filter(isRequestDelete)).toEqual([]);
	});
});

describe('Cancel', () => {
	it('contract: answered cancelled at once', async () => {
		sb.configure({ runDurationMs: 60_000 });
		const { id, requestId } = await submit();
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: op('cancel', id, requestId, { waitOptions: FAST_WAIT }),
		});
		expect(result.items[0].json).toMatchObject({ deployment_id: id, request_id: requestId, cancel_outcome: 'cancelled' });
		expect(stateOf(requestId)).toBe('cancelled');
		expect(sb.log().filter(isStatus)).toEqual([]);
	});

	it.each([false, true])(
		'live service: cancellation_requested, then the status is followed until it is cancelled (American spelling: %s)',
		async (american) => {
			// The sandbox turns the request cancelled at the second status poll (not after cancelDelayMs of wall time, which a
			// busy machine can pass before the first poll), so the follow-up is seen on every run.
			sb.configure({
				runDurationMs: 60_000,
				cancelDelayMs: 60_000,
				quirks: { deploymentCancelRequested: true, americanCanceled: american },
			});
			const { id, requestId } = await submit();
			const result = await runNode({
				node,
				credentials: credentialsFor(sb),
				parameters: op('cancel', id, requestId, { waitOptions: FAST_WAIT }),
			});
			expect(result.error).toBeUndefined();
			expect(result.items[0].json).toMatchObject({
				cancel_outcome: 'cancellation_requested',
				status: 'cancelled',
				still_running: false,
			});
			expect(sb.log().filter(isStatus).length).toBeGreaterThanOrEqual(2);
			expect(sb.log().filter(isCancel)).toHaveLength(1);
		},
	);

	it('without following, the accepted cancellation is returned as is', async () => {
		sb.configure({ runDurationMs: 60_000, quirks: { deploymentCancelRequested: true } });
		const { id, requestId } = await submit();
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: op('cancel', id, requestId, { waitForCompletion: false }),
		});
		expect(result.items[0].json).toMatchObject({
			status: 'cancelling',
			service_status: 'cancellation_requested',
			cancel_outcome: 'cancellation_requested',
		});
		expect(sb.log().filter(isStatus)).toEqual([]);
	});

	it.each([false, true])('a finished request is not cancellable, which is not an error (live: %s)', async (live) => {
		sb.configure({ quirks: { deploymentCancelRequested: live } });
		const { id, requestId } = await submit();
		await untilState(requestId, 'completed');
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: op('cancel', id, requestId, { waitOptions: FAST_WAIT }),
		});
		expect(result.status).toBe('success');
		expect(result.items[0].json.cancel_outcome).toBe('not_cancellable');
		expect(stateOf(requestId)).toBe('completed');
	});
});

describe('Delete Request', () => {
	it("removes the request's inputs and outputs at once; it is gone afterwards", async () => {
		const { id, requestId } = await submit();
		await untilState(requestId, 'completed');
		const result = await runNode({ node, credentials: credentialsFor(sb), parameters: op('deleteRequest', id, requestId) });
		expect(result.items[0].json).toMatchObject({ deployment_id: id, request_id: requestId, deleted: true });
		const after = await runNode({ node, credentials: credentialsFor(sb), parameters: op('getResult', id, requestId) });
		expect(after.error?.httpCode).toBe('404');
	});
});

describe('Call Instance Proxy', () => {
	it('calls a backend path on the live instance taken from the status', async () => {
		sb.configure({ runDurationMs: 60_000 });
		const { id, requestId } = await submit();
		const status = await runNode({ node, credentials: credentialsFor(sb), parameters: op('getStatus', id, requestId) });
		const instanceId = String(status.items[0].json.instance_id);
		const stats = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: {
				resource: 'inference',
				operation: 'callInstanceProxy',
				deploymentId: locator(id),
				instanceId,
				path: '/api/system_stats',
				body: '',
			},
		});
		expect(stats.error).toBeUndefined();
		expect(stats.items[0].json).toMatchObject({
			deployment_id: id,
			instance_id: instanceId,
			path: 'api/system_stats',
			response: { devices: [expect.objectContaining({ type: 'cuda' })] },
		});
		const free = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: { resource: 'inference', operation: 'callInstanceProxy', deploymentId: locator(id), instanceId },
		});
		expect(free.error).toBeUndefined();
		const proxied = sb.log().filter((e) => e.path.includes('/proxy/'));
		expect(proxied.map((e) => [e.path.replace(/^.*\/proxy\//, ''), e.body])).toEqual([
			['api/system_stats', {}],
			['api/free', { unload_models: true, free_memory: true }],
		]);
	});

	it('an instance that is not running is a 404 that explains instance ids are short-lived', async () => {
		const id = deploymentId(sb, 'sdxl-text-to-image');
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: { resource: 'inference', operation: 'callInstanceProxy', deploymentId: locator(id), instanceId: 'old-instance' },
		});
		expect(result.status).toBe('error');
		expect(result.error?.description).toMatch(/only valid while the instance runs/);
	});
});
