/**
 * RunComfy Webhook Trigger's entry points (RunComfyWebhookTrigger.node.ts): the one webhook n8n registers has its
 * methods, every delivery reaches handle.ts with the webhook's context, and publishing checks the Secret Path
 * Token (a weak one refused with a NodeOperationError that says how to make one). Small fake contexts
 * (parameters from a plain object) run the node's real methods; handleDelivery is a spy.
 */
import type { IHookFunctions, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import * as handle from '../../nodes/RunComfyWebhookTrigger/handle';
import { testNode } from '../helpers/testNode';
import { webhookTrigger } from './setup';

const node = testNode({
	id: 'webhook-trigger-under-test',
	name: 'RunComfy Webhook Trigger',
	type: 'n8n-nodes-runcomfy.runComfyWebhookTrigger',
});

function fakeContext<T extends IHookFunctions | IWebhookFunctions>(pathToken: string): T {
	const parameters: Record<string, unknown> = { event: 'deploymentRequest', pathToken };
	const ctx = {
		getNode: () => node,
		getNodeParameter: (name: string, fallback?: unknown) => (name in parameters ? parameters[name] : fallback),
	};
	return ctx as unknown as T;
}

const ROUTE_SEGMENT = 'k7Qz2vX9mT4pR8sLw3nYb6cH';
const methods = webhookTrigger.webhookMethods.default;

afterEach(() => jest.restoreAllMocks());

describe('RunComfy Webhook Trigger: entry points', () => {
	it('registers one POST webhook, "default", and has its methods', () => {
		expect((webhookTrigger.description.webhooks ?? []).map((w) => [w.name, w.httpMethod])).toEqual([['default', 'POST']]);
		expect(Object.keys(webhookTrigger.webhookMethods)).toEqual(['default']);
	});

	it("every delivery reaches handleDelivery with the webhook's context; its answer is the node's", async () => {
		const answer = { webhookResponse: { received: true } };
		const spy = jest.spyOn(handle, 'handleDelivery').mockResolvedValue(answer);
		const ctx = fakeContext<IWebhookFunctions>(ROUTE_SEGMENT);
		await expect(webhookTrigger.webhook.call(ctx)).resolves.toBe(answer);
		expect(spy.mock.calls).toEqual([[ctx]]);
	});

	it('publishing accepts a strong Secret Path Token; unpublishing removes nothing at RunComfy', async () => {
		const ctx = fakeContext<IHookFunctions>(ROUTE_SEGMENT);
		await expect(methods.checkExists.call(ctx)).resolves.toBe(true);
		await expect(methods.create.call(ctx)).resolves.toBe(true);
		await expect(methods.delete.call(ctx)).resolves.toBe(true);
	});

	it.each(['', 'short', 'has spaces in it 0123456789'])('publishing refuses the token %j with a fix', async (pathToken) => {
		for (const method of [methods.checkExists, methods.create]) {
			const error = await method.call(fakeContext<IHookFunctions>(pathToken)).then(
				() => undefined,
				(e: unknown) => e,
			);
			expect(error).toBeInstanceOf(NodeOperationError);
			expect(error).toMatchObject({
				message: 'The Secret Path Token is missing or too weak',
				description: expect.stringContaining('Enter 16 to 128 letters, digits, "-" or "_" in "Secret Path Token"'),
			});
		}
	});
});
