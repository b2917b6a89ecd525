/**
 * examples/fire-and-forget-submit.json and examples/fire-and-forget-receive.json in the in-process engine, as a
 * pair: the submit workflow's Inference → Run node as the example sets it, once as shipped (Deliver Results To
 * empty: it waits for the results itself) and once with the receive workflow's Production URL pasted in (it
 * returns the ids at once); the sandbox delivers each result to that URL, where the receive workflow's RunComfy
 * Webhook Trigger, with the example's parameters and a Secret Path Token set, starts once per request with its
 * image. The real-n8n run of the submit example is the e2e suite's (every example with a manual trigger).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import receiveExample from '../../examples/fire-and-forget-receive.json';
import submitExample from '../../examples/fire-and-forget-submit.json';
import type { Sandbox } from '../../sandbox';
import { RunComfyDeployment } from '../../nodes/RunComfyDeployment/RunComfyDeployment.node';
import { runNode } from '../helpers/engine';
import { deliver } from '../helpers/engine-trigger';
import type { DeliveryResult } from '../helpers/engine-trigger';
import { until } from '../helpers/sandboxSetup';
import { startReceiver } from '../sandbox/webhook-receiver';
import type { Receiver } from '../sandbox/webhook-receiver';
import { credentialsFor, openSandbox, webhookTrigger } from './setup';

type ExampleNode = (typeof submitExample.nodes)[number] | (typeof receiveExample.nodes)[number];

const nodeNamed = (example: { nodes: ExampleNode[] }, name: string): ExampleNode => {
	const found = example.nodes.find((n) => n.name === name);
	if (!found) throw new Error(`the example has no node "${name}"`);
	return found;
};

const submitNode = nodeNamed(submitExample, 'Submit Requests');
const triggerNode = nodeNamed(receiveExample, 'RunComfy Webhook Trigger') as ExampleNode & { webhookId: string };
const TOKEN = 'f1e5-example-token-0123456789';
const PROMPTS = ['a red fox', 'a lighthouse', 'a tiny robot'];

/** The submit example's Run parameters, with fast polling for the sandbox and `deliverTo` as Deliver Results To. */
function submitParams(deliverTo?: string): INodeParameters {
	const parameters = submitNode.parameters as INodeParameters;
	return {
		...parameters,
		waitOptions: { maxWaitSeconds: 20, pollIntervalSeconds: 0.02, maxPollIntervalSeconds: 0.05 },
		...(deliverTo === undefined ? {} : { options: { ...(parameters.options as IDataObject), webhookUrl: deliverTo } }),
	};
}

describe('examples/fire-and-forget-submit.json and fire-and-forget-receive.json', () => {
	let sb: Sandbox;
	let receiver: Receiver;
	beforeAll(async () => {
		sb = await openSandbox({ runDurationMs: 50 });
		receiver = await startReceiver();
	});
	afterAll(async () => {
		await receiver.close();
		await sb.close();
	});
	beforeEach(() => {
		sb.reset({ runDurationMs: 50, queueMs: 0 });
		receiver.deliveries.length = 0;
	});

	const run = async (deliverTo?: string) =>
		await runNode({
			node: new RunComfyDeployment(),
			credentials: credentialsFor(sb),
			inputItems: PROMPTS.map((prompt) => ({ json: { prompt } })),
			parameters: submitParams(deliverTo),
			nodeName: submitNode.name,
		});

	it('submit: prompts → one item per prompt → Inference → Run with Deliver Results To left for the user; receive: the trigger (no token shipped) → succeeded or not', () => {
		expect(submitExample.connections).toEqual({
			'When clicking ‘Execute workflow’': { main: [[{ node: 'Prompts', type: 'main', index: 0 }]] },
			Prompts: { main: [[{ node: 'One Item per Prompt', type: 'main', index: 0 }]] },
			'One Item per Prompt': { main: [[{ node: 'Submit Requests', type: 'main', index: 0 }]] },
		});
		expect(submitNode.parameters).toMatchObject({
			resource: 'inference',
			operation: 'run',
			deploymentId: { value: sb.stable.deployments.textToImage },
			options: { webhookUrl: '' },
		});
		// A token in a public example would be everyone's: the user sets one, and publishing refuses none.
		expect(triggerNode.parameters).toEqual({
			event: 'deploymentRequest',
			pathToken: '',
			includeIntermediate: false,
			downloadOutputs: true,
		});
		expect(receiveExample.connections).toEqual({
			'RunComfy Webhook Trigger': { main: [[{ node: 'Succeeded?', type: 'main', index: 0 }]] },
			'Succeeded?': {
				main: [[{ node: 'Use the Images', type: 'main', index: 0 }], [{ node: 'Handle the Failure', type: 'main', index: 0 }]],
			},
		});
		expect(JSON.stringify(nodeNamed(receiveExample, 'Succeeded?').parameters)).toContain(
			'"leftValue":"={{ $json.status }}","rightValue":"succeeded"',
		);
		for (const node of [submitNode, triggerNode]) expect(node.credentials).toEqual({ runComfyApi: { id: null, name: 'RunComfy account' } });
	});

	it('as shipped (Deliver Results To empty), the submit workflow waits for its results itself', async () => {
		const result = await run();
		expect(result.error).toBeUndefined();
		expect(result.items.map((i) => i.json.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
		expect(receiver.deliveries).toEqual([]);
	});

	it('with the receive workflow’s Production URL pasted in, submit returns the ids at once and receive starts once per request with its image', async () => {
		const productionPath = `/webhook/${triggerNode.webhookId}/${TOKEN}`;
		const submitted = await run(receiver.url(productionPath));
		expect(submitted.error).toBeUndefined();
		expect(submitted.items.map((i) => i.json.status)).toEqual(['queued', 'queued', 'queued']);
		const ids = submitted.items.map((i) => String(i.json.request_id));

		await until(() => receiver.deliveries.filter((d) => d.body?.status === 'succeeded').length === ids.length, 'every result delivered');
		const store = { data: {} as IDataObject };
		const started: DeliveryResult[] = [];
		// Every delivery (copies included) reaches the receive workflow's trigger, as n8n would hand it over.
		for (const delivery of receiver.deliveries) {
			expect(delivery.path).toBe(productionPath);
			const result = await deliver({
				node: webhookTrigger,
				parameters: { ...(triggerNode.parameters as INodeParameters), pathToken: TOKEN },
				credentials: credentialsFor(sb),
				store,
				body: delivery.body,
				url: delivery.path,
				webhookId: triggerNode.webhookId,
				workflowId: 'fire-and-forget-receive',
			});
			expect(result.status).toBe(200);
			if (result.started) started.push(result);
		}
		expect(started.map((r) => r.items[0].json.request_id).sort()).toEqual([...ids].sort());
		for (const { items } of started) {
			expect(items[0].json).toMatchObject({ status: 'succeeded', event: 'request.succeeded' });
			expect(items[0].binary?.data).toMatchObject({ mimeType: 'image/png' });
		}
	});
});
