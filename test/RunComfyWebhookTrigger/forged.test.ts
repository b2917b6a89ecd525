/**
 * Forged final events at the RunComfy Webhook Trigger (issue 24, item 6). Deliveries are not signed: anyone
 * holding the URL can post one. A final event starts the workflow only when RunComfy's API (the sandbox here,
 * asked with the credential) says the request ended the same way, and the item is the API's result, never the
 * delivery's body. An event the API contradicts is answered 200 and recorded nowhere, so the real one still fires.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { Sandbox } from '../../sandbox';
import { RETENTION_MS } from '../../nodes/RunComfyWebhookTrigger/ledger';
import { deliver } from '../helpers/engine-trigger';
import type { DeliveryResult, StaticDataStore } from '../helpers/engine-trigger';
import type { RunComfyCredentialData } from '../helpers/engine';
import {
	client,
	credentialsFor,
	failedRequest,
	finishedRequests,
	openSandbox,
	resultOf,
	runReaches,
	submitInference,
	webhookTrigger,
} from './setup';

const ROUTE_SEGMENT = 'Fq8rT2vX9mK4pR7sLw3nYb6c';
const params: INodeParameters = { event: 'deploymentRequest', pathToken: ROUTE_SEGMENT };

let workflowCounter = 0;

describe('RunComfy Webhook Trigger: forged final events are confirmed with the API', () => {
	let sb: Sandbox;
	let dep: string;
	let pool: string[];
	const take = (): string => {
		const id = pool.shift();
		if (!id) throw new Error('not enough finished requests in the pool');
		return id;
	};
	beforeAll(async () => {
		sb = await openSandbox();
		dep = sb.stable.deployments.textToImage;
		pool = await finishedRequests(sb, dep, 8);
	});
	afterAll(async () => await sb.close());

	/** One workflow (its own ledger and static data); `send` delivers to its production URL. */
	function workflow(parameters: INodeParameters = {}) {
		const store: StaticDataStore = { data: {} };
		const workflowId = `forged-${++workflowCounter}`;
		const send = async (body: IDataObject, credentials: RunComfyCredentialData = credentialsFor(sb)): Promise<DeliveryResult> =>
			await deliver({ node: webhookTrigger, parameters: { ...params, ...parameters }, credentials, store, body, workflowId });
		return { send, store };
	}

	const forgedUrl = () => `${sb.urls.foreignFiles}/files/forged.png`;
	const event = (requestId: string, status: string, extra: IDataObject = {}): IDataObject => ({
		request_id: requestId,
		deployment_id: dep,
		status,
		created_at: '2026-11-25T10:00:00Z',
		finished_at: '2026-11-25T10:00:09Z',
		...extra,
	});
	const forgedOutputs = () => ({ '9': { images: [{ filename: 'forged.png', subfolder: '', type: 'output', url: forgedUrl() }] } });

	it('a forged "failed" for a request that succeeded starts nothing, and the real "succeeded" that follows fires', async () => {
		const { send } = workflow();
		const rid = take();
		const forged = await send(event(rid, 'failed', { error: 'forged failure' }));
		expect(forged).toMatchObject({ status: 200, started: false });
		expect((forged.body as IDataObject).reason).toMatch(/API says the request is "succeeded", not "failed"/);

		const real = await send(event(rid, 'succeeded', { outputs: (await resultOf(sb, dep, rid)).outputs }));
		expect(real.started).toBe(true);
		expect(real.items[0].json).toMatchObject({ request_id: rid, event: 'request.succeeded', status: 'succeeded' });
	});

	it('a forged "failed" and the real "succeeded" arriving together: the real one fires, once', async () => {
		const { send } = workflow();
		const rid = take();
		const real = event(rid, 'succeeded');
		const results = await Promise.all([send(event(rid, 'failed')), send(real), send(event(rid, 'cancelled')), send(real)]);
		const started = results.filter((r) => r.started);
		expect(started).toHaveLength(1);
		expect(started[0].items[0].json).toMatchObject({ request_id: rid, event: 'request.succeeded' });
	});

	it('a made-up request id, or a real one named with another deployment, starts nothing', async () => {
		const { send } = workflow();
		const madeUp = await send(event('9b2f6c1e-0000-4000-8000-00000000f0f0', 'succeeded', { outputs: forgedOutputs() }));
		expect(madeUp).toMatchObject({ status: 200, started: false });
		expect((madeUp.body as IDataObject).reason).toMatch(/does not know this request/);
		const rid = take();
		const elsewhere = await send(event(rid, 'succeeded', { deployment_id: sb.stable.deployments.imageToImage }));
		expect(elsewhere).toMatchObject({ status: 200, started: false });
		const noDeployment = await send({ request_id: rid, status: 'succeeded' });
		expect(noDeployment).toMatchObject({ status: 200, started: false });
		expect((noDeployment.body as IDataObject).reason).toMatch(/names no deployment_id/);
	});

	it('a "succeeded" carrying someone else\'s files fires with the request\'s own result; the forged file is never fetched', async () => {
		const { send } = workflow({ downloadOutputs: true });
		const rid = take();
		const truth = await resultOf(sb, dep, rid);
		sb.clearLog();
		const result = await send(event(rid, 'succeeded', { outputs: forgedOutputs(), note: 'forged' }));
		expect(result.started).toBe(true);
		const item = result.items[0];
		expect(item.json).toMatchObject({ request_id: rid, status: 'succeeded', outputs: truth.outputs });
		expect(JSON.stringify(item.json)).not.toContain(forgedUrl());
		expect(item.json.note).toBeUndefined();
		expect(item.binary?.data).toMatchObject({ mimeType: 'image/png' });
		expect(sb.log().filter((e) => e.api === 'foreign')).toHaveLength(0);
	});

	it('an end the API does not show yet starts nothing and is answered 503, so RunComfy delivers again; the real end fires', async () => {
		const { send } = workflow();
		sb.configure({ modelDurations: { [dep]: 600_000 } });
		const rid = await submitInference(sb, dep);
		sb.configure({ modelDurations: { [dep]: undefined as unknown as number } });
		const early = await send(event(rid, 'succeeded', { outputs: forgedOutputs() }));
		expect(early).toMatchObject({ status: 503 });
		expect((early.body as IDataObject).error).toMatch(/does not show the request as ended yet \(it says "in_(queue|progress)"\)/);

		expect((await client(sb).post(`${sb.urls.serverless}/prod/v2/deployments/${dep}/requests/${rid}/cancel`)).status).toBeLessThan(300);
		await runReaches(sb, rid, 'cancelled');
		const real = await send(event(rid, 'cancelled'));
		expect(real.started).toBe(true);
		expect(real.items[0].json).toMatchObject({ request_id: rid, event: 'request.cancelled' });
	});

	it('the same where the result of a running request is refused (400, as the live service answers): its status tells', async () => {
		sb.configure({ quirks: { resultNotReady400: true } });
		try {
			const { send } = workflow();
			sb.configure({ modelDurations: { [dep]: 600_000 } });
			const rid = await submitInference(sb, dep);
			sb.configure({ modelDurations: { [dep]: undefined as unknown as number } });
			const early = await send(event(rid, 'failed'));
			expect(early).toMatchObject({ status: 503 });
			expect((early.body as IDataObject).error).toMatch(/does not show the request as ended yet \(it says "in_(queue|progress)"\)/);
			expect((await client(sb).post(`${sb.urls.serverless}/prod/v2/deployments/${dep}/requests/${rid}/cancel`)).status).toBeLessThan(300);
		} finally {
			sb.configure({ quirks: { resultNotReady400: false } });
		}
	});

	it('a forged "succeeded" for a request that failed starts nothing; the real "failed" fires with the API\'s error', async () => {
		const { send } = workflow();
		const rid = await failedRequest(sb, dep);
		expect(await send(event(rid, 'succeeded', { outputs: forgedOutputs() }))).toMatchObject({ status: 200, started: false });
		const real = await send(event(rid, 'failed'));
		expect(real.started).toBe(true);
		expect(real.items[0].json).toMatchObject({
			event: 'request.failed',
			error: [expect.objectContaining({ error: 'CUDA error: out of memory' })],
		});
	});

	it('when the API cannot confirm (a token it refuses), answers 503 so RunComfy delivers again, and records nothing', async () => {
		const { send } = workflow();
		const rid = take();
		const refused = await send(event(rid, 'succeeded'), credentialsFor(sb, { accessToken: 'not-the-token' }));
		expect(refused).toMatchObject({ status: 503, started: false, body: { received: false, retry: true, request_id: rid } });
		expect(JSON.stringify(refused.body)).not.toContain('not-the-token');
		// The retry, once the credential works, fires.
		expect((await send(event(rid, 'succeeded'))).started).toBe(true);
	});

	it('a request that finished more than 48 h ago starts nothing (the window the trigger remembers requests for)', async () => {
		const { send } = workflow();
		const rid = take();
		const finishedAt = Date.parse(String((await resultOf(sb, dep, rid)).finished_at));
		const clock = jest.spyOn(Date, 'now').mockReturnValue(finishedAt + RETENTION_MS + 60_000);
		try {
			const late = await send(event(rid, 'succeeded'));
			expect(late).toMatchObject({ status: 200, started: false });
			expect((late.body as IDataObject).reason).toMatch(/more than 48 hours ago/);
		} finally {
			clock.mockRestore();
		}
		expect((await send(event(rid, 'succeeded'))).started).toBe(true);
	});
});
