/**
 * The RunComfy Webhook Trigger in the in-process engine: deliveries shaped as RunComfy sends them (docs
 * `serverless/webhooks`) for real sandbox requests (the trigger confirms final events with the sandbox's API),
 * through n8n-core's WebhookContext, with the workflow's static data loaded and saved around each delivery as n8n
 * does (see ../helpers/engine-trigger.ts). Forged final events: ./forged.test.ts.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { Sandbox } from '../../sandbox';
import { deliveryItem, parseDelivery } from '../../nodes/RunComfyWebhookTrigger/delivery';
import { ledgerKeyOf } from '../../nodes/RunComfyWebhookTrigger/handle';
import { storedStages } from './storedCopy';
import { DEFAULT_WEBHOOK_ID, deliver } from '../helpers/engine-trigger';
import type { DeliveryResult, StaticDataStore } from '../helpers/engine-trigger';
import { cancelledRequest, credentialsFor, failedRequest, finishedRequests, openSandbox, resultOf, webhookTrigger } from './setup';

const ROUTE_SEGMENT = 'k7Qz2vX9mT4pR8sLw3nYb6cH';

let workflowCounter = 0;
/** Each test its own workflow: the trigger's in-memory ledger is per workflow and node. */
const newWorkflowId = () => `webhook-test-${++workflowCounter}`;

const baseParams: INodeParameters = { event: 'deploymentRequest', pathToken: ROUTE_SEGMENT };

describe('RunComfy Webhook Trigger: deliveries', () => {
	let sb: Sandbox;
	let dep: string;
	/** Finished requests, each test taking the ones it needs (`take`). */
	let pool: string[];
	const take = (n = 1): string[] => {
		if (pool.length < n) throw new Error('not enough finished requests in the pool');
		return pool.splice(0, n);
	};
	beforeAll(async () => {
		sb = await openSandbox();
		dep = sb.stable.deployments.textToImage;
		pool = await finishedRequests(sb, dep, 70);
	});
	afterAll(async () => await sb.close());

	function setup(parameters: INodeParameters = {}, mode: 'webhook' | 'manual' = 'webhook') {
		// The workflow row; counts n8n's write-backs of static data (each an UPDATE of the row before it answers).
		let row: IDataObject = {};
		let writes = 0;
		const store: StaticDataStore = {
			get data() {
				return row;
			},
			set data(value: IDataObject) {
				writes++;
				row = value;
			},
		};
		const workflowId = newWorkflowId();
		const send = async (body: unknown, url?: string): Promise<DeliveryResult> =>
			await deliver({
				node: webhookTrigger,
				parameters: { ...baseParams, ...parameters },
				credentials: credentialsFor(sb),
				store,
				body,
				url,
				workflowId,
				mode,
			});
		return { store, send, writes: () => writes };
	}

	const event = (requestId: string, status: string, extra: IDataObject = {}): IDataObject => ({
		request_id: requestId,
		deployment_id: dep,
		status,
		created_at: '2026-11-25T10:00:00Z',
		...(['succeeded', 'failed', 'cancelled', 'canceled'].includes(status) ? { finished_at: '2026-11-25T10:00:09Z' } : {}),
		...extra,
	});
	/** A request's final event as RunComfy delivers it: its result record plus the deployment. */
	const success = (requestId: string): IDataObject => ({ outputs: { '9': { images: [] } }, ...event(requestId, 'succeeded') });
	const started = (results: DeliveryResult[]) => results.filter((r) => r.started);

	it('starts the workflow with the result the API confirms; answers at once', async () => {
		const { send } = setup();
		const [rid] = take();
		const truth = await resultOf(sb, dep, rid);
		const result = await send(success(rid));
		expect(result.status).toBe(200);
		expect(result.body).toEqual({ received: true, started: true, request_id: rid, event: 'request.succeeded' });
		expect(result.started).toBe(true);
		expect(result.items).toHaveLength(1);
		const json = result.items[0].json;
		expect(json).toMatchObject({
			event: 'request.succeeded',
			source: 'webhook',
			request_type: 'deployment',
			request_id: rid,
			deployment_id: dep,
			status: 'succeeded',
			created_at: truth.created_at,
			finished_at: truth.finished_at,
			outputs: truth.outputs,
		});
		expect(json.output_urls).toEqual([
			{ path: 'outputs["9"].images[0].url', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/files\//) },
		]);
		expect(result.items[0].binary).toBeUndefined();
	});

	it('refuses a delivery to a URL without the secret path token, and starts nothing', async () => {
		const { send } = setup();
		const [rid] = take();
		for (const url of [`/webhook/${DEFAULT_WEBHOOK_ID}/wrong-token-0123456789`, `/webhook/${DEFAULT_WEBHOOK_ID}`, '/webhook/x/']) {
			const refused = await send(success(rid), url);
			expect(refused).toMatchObject({ status: 403, started: false });
			expect(refused.body).toEqual({ received: false, error: "This URL does not carry the trigger's secret path token" });
		}
		// The token in the query is not the path: refused too.
		expect((await send(success(rid), `/webhook/${DEFAULT_WEBHOOK_ID}/x?token=${ROUTE_SEGMENT}`)).status).toBe(403);
		// The right URL still works for the same request (the refused ones recorded nothing).
		expect((await send(success(rid))).started).toBe(true);
	});

	it('fires each request once: 200 parallel deliveries of 50 requests (4 copies each) start 50 workflows, asking the API once per request', async () => {
		const { send, store, writes } = setup();
		const ids = take(50);
		sb.clearLog();
		const deliveries = ids.flatMap((id) => [success(id), success(id), success(id), success(id)]);
		// The clock stands still during the burst: how many saves it takes must not depend on how long a loaded
		// machine takes for it (a save not seen to land is issued again after SAVE_RETRY_MS of wall time).
		const clock = jest.spyOn(Date, 'now').mockReturnValue(Date.now());
		let results;
		try {
			results = await Promise.all(deliveries.map(async (body) => await send(body)));
		} finally {
			clock.mockRestore();
		}
		expect(results.every((r) => r.status === 200)).toBe(true);
		const fired = started(results).map((r) => r.items[0].json.request_id);
		expect(fired).toHaveLength(50);
		expect(new Set(fired)).toEqual(new Set(ids));
		const duplicates = results.filter((r) => !r.started);
		expect(duplicates).toHaveLength(150);
		expect(duplicates[0].body).toMatchObject({ received: true, started: false, reason: 'already delivered' });
		// Later retries of any of them start nothing either.
		expect(started(await Promise.all(ids.slice(0, 10).map(async (id) => await send(success(id)))))).toHaveLength(0);
		// The copies of one request shared one result fetch; the repeats asked nothing.
		const asked = sb
			.log()
			.filter((e) => e.api === 'serverless')
			.map((e) => `${e.method} ${e.path}`);
		expect([...asked].sort()).toEqual(ids.map((id) => `GET /prod/v2/deployments/${dep}/requests/${id}/result`).sort());
		// The parallel ones all loaded the same copy and one save was in flight at a time (a further one only per
		// SAVE_RETRY_MS), then one retry completed it: a few writes of the workflow row, not one per fired delivery
		// (which made n8n answer a burst late).
		expect(writes() * 10).toBeLessThanOrEqual(ids.length);
		// The copy in static data (what survives a restart, see node.test.ts) lacked the requests fired after its
		// save; the later deliveries saved it whole again.
		const stored = (store.data.global as IDataObject)[ledgerKeyOf({ id: 'trigger-node', name: 'RunComfy Webhook Trigger' })] as IDataObject;
		expect(Object.keys(storedStages(stored, ids)).sort()).toEqual([...ids].sort());
	});

	it('ignores queued and running events unless "Include Queued and Running Events" is on', async () => {
		const { send } = setup();
		const [rid] = take();
		for (const status of ['in_queue', 'in_progress']) {
			const ignored = await send(event(rid, status));
			expect(ignored).toMatchObject({ status: 200, started: false });
			expect(ignored.body).toMatchObject({ reason: expect.stringMatching(/Include Queued and Running Events/) });
		}
		expect((await send(success(rid))).started).toBe(true);
	});

	it('with queued and running events on: each stage fires once, in order; a late or repeated one starts nothing', async () => {
		const { send } = setup({ includeIntermediate: true });
		const [a, b] = take(2);
		const fired = async (body: IDataObject) => {
			const r = await send(body);
			return r.started ? r.items[0].json.event : (r.body as IDataObject).reason;
		};
		expect(await fired(event(a, 'in_queue'))).toBe('request.queued');
		expect(await fired(event(a, 'in_queue'))).toBe('already delivered');
		expect(await fired(event(a, 'in_progress'))).toBe('request.running');
		expect(await fired(success(a))).toBe('request.succeeded');
		// Out of order, after the end: nothing.
		expect(await fired(event(a, 'in_progress'))).toBe('the request is already further along (late delivery)');
		expect(await fired(event(a, 'in_queue'))).toBe('the request is already further along (late delivery)');
		expect(await fired(success(a))).toBe('already delivered');
		// Another request whose "running" arrives after its end: only the end fires.
		expect(await fired(success(b))).toBe('request.succeeded');
		expect(await fired(event(b, 'in_progress'))).toBe('the request is already further along (late delivery)');
	});

	it('reads failed, cancelled / canceled and "outcome" next to "status", each as the API confirms it', async () => {
		const { send } = setup();
		const failedId = await failedRequest(sb, dep);
		const failed = await send(event(failedId, 'failed', { error: 'whatever the delivery says' }));
		expect(failed.items[0].json).toMatchObject({ event: 'request.failed', status: 'failed', output_urls: [] });
		// The API's error, not the delivery's.
		expect(failed.items[0].json.error).toEqual([expect.objectContaining({ errorCode: 1, error: 'CUDA error: out of memory' })]);
		const cancelled = await cancelledRequest(sb, dep);
		expect((await send(event(cancelled, 'cancelled'))).items[0].json).toMatchObject({ event: 'request.cancelled', status: 'cancelled' });
		const outcomeId = await failedRequest(sb, dep);
		const outcome = await send(event(outcomeId, 'completed', { outcome: 'failed', error: 'boom' }));
		expect(outcome.items[0].json).toMatchObject({ event: 'request.failed', status: 'failed' });
	});

	it('reads "output" (LoRA deployments) instead of "outputs"', () => {
		const parsed = parseDelivery({
			request_id: 'r-lora',
			deployment_id: dep,
			status: 'succeeded',
			output: { images: [`${sb.urls.files}/files/lora.png`] },
		});
		if (!parsed.ok) throw new Error('not parsed');
		expect(deliveryItem(parsed.delivery).output_urls).toEqual([{ path: 'output.images[0]', url: `${sb.urls.files}/files/lora.png` }]);
	});

	it('reads "canceled" (the American spelling some answers use)', async () => {
		sb.configure({ quirks: { americanCanceled: true } });
		try {
			const { send } = setup();
			const canceled = await cancelledRequest(sb, dep);
			expect((await send(event(canceled, 'canceled'))).items[0].json).toMatchObject({
				event: 'request.cancelled',
				status: 'cancelled',
				service_status: 'canceled',
			});
		} finally {
			sb.configure({ quirks: { americanCanceled: false } });
		}
	});

	it('answers 400 to a delivery it cannot read and 200 to a status that is no event; starts nothing', async () => {
		const { send } = setup();
		expect(await send({ status: 'succeeded' })).toMatchObject({
			status: 400,
			started: false,
			body: { error: 'The delivery has no request_id' },
		});
		expect(await send('not json')).toMatchObject({ status: 400, started: false });
		const rid = await cancelledRequest(sb, dep);
		const requested = await send(event(rid, 'cancellation_requested'));
		expect(requested).toMatchObject({ status: 200, started: false });
		expect((await send(event(rid, 'cancelled'))).started).toBe(true);
	});

	it('"Listen for test event" shows every delivery, repeats too, and records nothing', async () => {
		const { send, store } = setup({}, 'manual');
		const [rid] = take();
		expect((await send(success(rid))).started).toBe(true);
		expect((await send(success(rid))).started).toBe(true);
		expect(store.data).toEqual({});
	});
});
