/**
 * Inference → Run with Options → Deliver Results To: each request is submitted with that URL as RunComfy's
 * webhook and the node returns at once with the request ids (no status polls); RunComfy (here the sandbox)
 * POSTs each result there. Items without the option in the same batch are waited for as usual.
 */
import { runNode } from '../helpers/engine';
import { startReceiver } from '../sandbox/webhook-receiver';
import type { Receiver } from '../sandbox/webhook-receiver';
import { FAST, credentialsFor, deploymentId, inferences, isStatus, node, runJson, until, useSandbox } from './setup';

const sb = useSandbox();
let receiver: Receiver;
beforeAll(async () => {
	receiver = await startReceiver();
});
afterAll(async () => await receiver.close());
beforeEach(() => {
	sb.reset(FAST);
	receiver.deliveries.length = 0;
});

const PROMPT = { 6: { inputs: { text: 'a lighthouse at dusk' } } };

describe('Deliver Results To', () => {
	it('submits with the URL as the webhook, returns the ids at once without polling, and RunComfy delivers each result there', async () => {
		const id = deploymentId(sb, 'sdxl-text-to-image');
		const url = receiver.url('/webhook/trigger-id/secret-token-0123456789');
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			inputItems: [{ json: {} }, { json: {} }, { json: {} }],
			parameters: runJson(id, PROMPT, { options: { webhookUrl: url } }),
		});
		expect(result.error).toBeUndefined();
		const calls = inferences(sb);
		expect(calls).toHaveLength(3);
		for (const call of calls) expect(call.query).toMatchObject({ webhook: url });
		expect(result.items.map((i) => i.json.request_id)).toEqual(calls.map((c) => c.createdId));
		for (const item of result.items) expect(item.json).toMatchObject({ deployment_id: id, status: 'queued' });
		expect(result.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		// Nothing was waited for: no status request at all.
		expect(sb.log().filter(isStatus)).toEqual([]);

		await until(() => receiver.deliveries.filter((d) => d.body?.status === 'succeeded').length === 3, 'all three results delivered');
		const delivered = receiver.deliveries.filter((d) => d.body?.status === 'succeeded').map((d) => d.body.request_id);
		expect(delivered.sort()).toEqual(calls.map((c) => c.createdId).sort());
	});

	it('in a mixed batch, items delivered elsewhere return at once and the others are waited for', async () => {
		const id = deploymentId(sb, 'sdxl-text-to-image');
		const url = receiver.url('/deliveries');
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			inputItems: [{ json: { url } }, { json: { url: '' } }],
			parameters: runJson(id, PROMPT, { options: { webhookUrl: '={{ $json.url }}' } }),
		});
		expect(result.error).toBeUndefined();
		const [delivered, waited] = result.items;
		expect(delivered.json).toMatchObject({ status: 'queued' });
		expect(waited.json).toMatchObject({ status: 'succeeded' });
		const [first, second] = inferences(sb);
		expect(first.query).toMatchObject({ webhook: url });
		expect(second.query.webhook).toBeUndefined();
		// Only the waited request was polled.
		const polled = new Set(
			sb
				.log()
				.filter(isStatus)
				.map((e) => e.path.split('/requests/')[1]?.split('/')[0]),
		);
		expect([...polled]).toEqual([second.createdId]);
	});

	it('cannot be combined with parking (refused before anything is paid)', async () => {
		const id = deploymentId(sb, 'sdxl-text-to-image');
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: runJson(id, PROMPT, { waitMode: 'park', options: { webhookUrl: receiver.url('/x') } }),
		});
		expect(result.error?.message).toMatch(/"Deliver Results To" cannot be used with the Wait Mode "Park Until RunComfy Calls Back"/);
		expect(inferences(sb)).toEqual([]);
	});
});
