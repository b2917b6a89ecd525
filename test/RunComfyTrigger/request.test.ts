import type { IDataObject } from 'n8n-workflow';

import type { Sandbox } from '../../sandbox';
import { listSearch } from '../helpers/engine';
import {
	MODEL_FAILS,
	client,
	credentialsFor,
	openSandbox,
	pollOnce,
	runReaches,
	runState,
	submitInference,
	submitModelRun,
	trigger,
} from './setup';

// Most tests start from runs that already finished, so they ask the first poll to fire for those too.
const modelParams = (requestIds: string, fireForExisting = true) => ({
	event: 'request',
	requestType: 'model',
	requestIds,
	fireForExisting,
});
const deploymentParams = (deploymentId: string, requestIds: string) => ({
	event: 'request',
	requestType: 'deployment',
	deploymentId: { __rl: true, mode: 'list', value: deploymentId },
	requestIds,
	fireForExisting: true,
});

describe('RunComfy Trigger: request finished', () => {
	let sb: Sandbox;
	beforeAll(async () => {
		sb = await openSandbox();
	});
	afterAll(async () => await sb.close());
	beforeEach(() => sb.reset());

	it('model runs: fires request.succeeded / failed / cancelled once each, with the result', async () => {
		const ok = await submitModelRun(sb);
		const failing = await submitModelRun(sb, MODEL_FAILS);
		sb.configure({ queueMs: 60_000 });
		const queued = await submitModelRun(sb);
		await runReaches(sb, ok, 'completed');
		await runReaches(sb, failing, 'completed');
		const ids = [ok, failing, queued].join(', ');
		const staticData: IDataObject = {};

		const first = await pollOnce(sb, modelParams(ids), staticData);
		expect(first?.map((e) => [e.request_id, e.event])).toEqual([
			[ok, 'request.succeeded'],
			[failing, 'request.failed'],
		]);
		const success = first![0];
		expect(success).toMatchObject({ request_type: 'model', status: 'succeeded', service_status: 'completed' });
		const result = success.result as IDataObject;
		expect(result.status).toBe('succeeded');
		expect(typeof result.cost).toBe('number');
		expect((success.output_urls as IDataObject[]).length).toBeGreaterThan(0);
		expect(String((success.output_urls as IDataObject[])[0].url)).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/files\//);
		expect(first![1]).toMatchObject({ status: 'failed', result: { status: 'failed' } });
		expect((first![1].result as IDataObject).error).toBeTruthy();

		// Still queued: nothing; the finished ones do not fire again.
		expect(await pollOnce(sb, modelParams(ids), staticData)).toBeNull();

		const cancel = await client(sb).post(`${sb.urls.modelApi}/v1/requests/${queued}/cancel`);
		expect(cancel.data.outcome).toBe('cancelled');
		const second = await pollOnce(sb, modelParams(ids), staticData);
		expect(second?.map((e) => [e.request_id, e.event])).toEqual([[queued, 'request.cancelled']]);
		expect(await pollOnce(sb, modelParams(ids), staticData)).toBeNull();
		expect(await pollOnce(sb, modelParams(ids), staticData)).toBeNull();
	});

	it('deployment inference: fires request.succeeded / failed / cancelled once each, with the outputs', async () => {
		const dep = sb.stable.deployments.textToImage;
		const ok = await submitInference(sb, dep);
		await runReaches(sb, ok, 'completed');
		sb.configure({ failingModels: { [dep]: 'CUDA error: out of memory' } });
		const failing = await submitInference(sb, dep);
		await runReaches(sb, failing, 'completed');
		sb.configure({ failingModels: {}, queueMs: 60_000 });
		const queued = await submitInference(sb, dep);
		const ids = [ok, failing, queued].join('\n');
		const staticData: IDataObject = {};

		const first = await pollOnce(sb, deploymentParams(dep, ids), staticData);
		expect(first?.map((e) => [e.request_id, e.event])).toEqual([
			[ok, 'request.succeeded'],
			[failing, 'request.failed'],
		]);
		expect(first![0]).toMatchObject({ request_type: 'deployment', deployment_id: dep, status: 'succeeded' });
		expect((first![0].output_urls as IDataObject[]).map((u) => u.path)).toEqual(['outputs["9"].images[0].url']);
		expect(JSON.stringify((first![1].result as IDataObject).error)).toMatch(/out of memory/);
		expect(await pollOnce(sb, deploymentParams(dep, ids), staticData)).toBeNull();

		const cancel = await client(sb).post(`${sb.urls.serverless}/prod/v2/deployments/${dep}/requests/${queued}/cancel`);
		expect(cancel.status).toBeLessThan(300);
		expect(runState(sb, queued).status).toBe('cancelled');
		const second = await pollOnce(sb, deploymentParams(dep, ids), staticData);
		expect(second?.map((e) => [e.request_id, e.event])).toEqual([[queued, 'request.cancelled']]);
		expect(await pollOnce(sb, deploymentParams(dep, ids), staticData)).toBeNull();
	});

	it('accepts the live service\'s words: result "completed", "canceled", a deployment cancel that is only requested', async () => {
		sb.configure({ quirks: { resultSaysCompleted: true, americanCanceled: true, deploymentCancelRequested: true } });
		const dep = sb.stable.deployments.textToImage;
		const ok = await submitInference(sb, dep);
		await runReaches(sb, ok, 'completed');
		sb.configure({ queueMs: 60_000, cancelDelayMs: 60_000 });
		const queued = await submitInference(sb, dep);
		const cancel = await client(sb).post(`${sb.urls.serverless}/prod/v2/deployments/${dep}/requests/${queued}/cancel`);
		expect(cancel.data.status).toBe('cancellation_requested');
		const staticData: IDataObject = {};
		const ids = `${ok},${queued}`;

		const first = await pollOnce(sb, deploymentParams(dep, ids), staticData);
		expect(first?.map((e) => [e.request_id, e.event])).toEqual([[ok, 'request.succeeded']]);
		// A requested cancel is not an end state; the sandbox ends it after two more status polls.
		let cancelled: IDataObject[] | null = null;
		let polls = 0;
		while (!cancelled && polls < 5) {
			cancelled = await pollOnce(sb, deploymentParams(dep, ids), staticData);
			polls++;
		}
		expect(polls).toBeLessThan(5);
		expect(cancelled?.map((e) => [e.request_id, e.event, e.status])).toEqual([[queued, 'request.cancelled', 'cancelled']]);
		expect(await pollOnce(sb, deploymentParams(dep, ids), staticData)).toBeNull();
	});

	it('manual mode returns the current state of every request without consuming the transition', async () => {
		const ok = await submitModelRun(sb);
		await runReaches(sb, ok, 'completed');
		sb.configure({ queueMs: 60_000 });
		const queued = await submitModelRun(sb);
		const ids = `${queued}, ${ok}`;
		const staticData: IDataObject = {};

		const sample = await pollOnce(sb, modelParams(ids), staticData, 'manual');
		expect(sample?.map((e) => [e.request_id, e.event, e.status])).toEqual([
			[queued, 'request.queued', 'queued'],
			[ok, 'request.succeeded', 'succeeded'],
		]);
		expect(sample![0].result).toBeUndefined();
		expect(staticData).toEqual({});
		expect((await pollOnce(sb, modelParams(ids), staticData))?.map((e) => e.request_id)).toEqual([ok]);
	});

	it('a deployment request watched as a model run is reported as gone (the two APIs do not mix); no deployment is a clear error', async () => {
		const dep = sb.stable.deployments.textToImage;
		const rid = await submitInference(sb, dep);
		const gone = await pollOnce(sb, modelParams(rid), {});
		expect(gone).toEqual([
			expect.objectContaining({ event: 'request.gone', request_type: 'model', request_id: rid, http_code: '404', watching: false }),
		]);
		expect(String(gone![0].error)).toMatch(/not found|404/i);
		await expect(pollOnce(sb, { event: 'request', requestType: 'deployment', requestIds: rid }, {})).rejects.toMatchObject({
			message: 'No deployment chosen',
		});
	});

	it("offers the Deployment node's deployment picker", async () => {
		const found = await listSearch({
			node: trigger,
			method: 'searchDeployments',
			parameters: { event: 'request', requestType: 'deployment' },
			credentials: credentialsFor(sb),
			filter: 'sdxl',
		});
		expect(found.results.map((r) => r.value)).toEqual([sb.stable.deployments.textToImage]);
	});
});
