'use strict';
/**
 * Webhook-started workflows of the real-n8n suites and benchmarks:
 *
 *   Webhook (POST /webhook/<path>) → Items (Split Out body.items) → one RunComfy node on each item → a No Op
 *
 * `deploymentBatchWorkflow` is the deployment batch that the parking and fire-and-forget workflows share
 * (Inference → Run on each item's `deployment`, its `prompt` as node 6's text); `webhookItemsWorkflow` takes
 * any RunComfy node (scripts/e2e/polling.js: Model → Run, Training → Submit). Each caller gives the Webhook's
 * answer, the node's own parameters and the node ids, so the workflows differ only where they really do.
 * `callWebhook` POSTs a body and reads the answer of a Webhook that answers with its last node's items.
 */
const { NODE_TYPES } = require('./constants');

/** The Webhook's body, as the Run node's expressions read it. */
const BODY = "$('Webhook').first().json.body";

/**
 * `ids`: { webhook, webhookId, items, run, last }; `webhookAnswer`: the Webhook node's response parameters;
 * `run`: the RunComfy node's `type` and `parameters`; `last`: the No Op's name. The RunComfy node is named 'Run'.
 */
function webhookItemsWorkflow({ name, path, credential, ids, webhookAnswer, run, last }) {
	return {
		name,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: ids.webhook,
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: ids.webhookId,
				parameters: { httpMethod: 'POST', path, ...webhookAnswer, options: {} },
			},
			{
				id: ids.items,
				name: 'Items',
				type: 'n8n-nodes-base.splitOut',
				typeVersion: 1,
				position: [220, 0],
				parameters: { fieldToSplitOut: 'body.items', options: {} },
			},
			{
				id: ids.run,
				name: 'Run',
				type: run.type,
				typeVersion: 1,
				position: [440, 0],
				parameters: run.parameters,
				credentials: { runComfyApi: { id: credential.id, name: credential.name } },
			},
			{ id: ids.last, name: last, type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [660, 0], parameters: {} },
		],
		connections: {
			Webhook: { main: [[{ node: 'Items', type: 'main', index: 0 }]] },
			Items: { main: [[{ node: 'Run', type: 'main', index: 0 }]] },
			Run: { main: [[{ node: last, type: 'main', index: 0 }]] },
		},
	};
}

/** `runParameters`: added to the Inference → Run node's (how it waits or delivers); otherwise as above. */
function deploymentBatchWorkflow({ runParameters, ...rest }) {
	return webhookItemsWorkflow({
		...rest,
		run: {
			type: NODE_TYPES.deployment,
			parameters: {
				resource: 'inference',
				operation: 'run',
				deploymentId: { __rl: true, mode: 'id', value: '={{ $json.deployment }}' },
				inputMode: 'json',
				overridesJson: '={{ JSON.stringify({ "6": { "inputs": { "text": $json.prompt } } }) }}',
				...runParameters,
			},
		},
	});
}

/** How long a webhook may answer 404 after n8n started: n8n 2.x registers a published workflow's webhooks after it is ready. */
const REGISTRATION_MS = 60_000;

/**
 * POSTs `body` (JSON) to the Webhook at `<baseUrl>/webhook/<path>`, which answers with its last node's items
 * (`responseMode: 'lastNode', responseData: 'allEntries'`); resolves with them and when the call started and
 * ended (ms since the epoch). A 404 (the webhook is not registered yet, so no execution started) is sent again
 * for up to REGISTRATION_MS; any other answer but 200 throws with its text.
 */
async function callWebhook(baseUrl, path, body) {
	const registeredBy = Date.now() + REGISTRATION_MS;
	for (;;) {
		const startedAt = Date.now();
		const res = await fetch(`${baseUrl}/webhook/${path}`, {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify(body),
		});
		const text = await res.text();
		const endedAt = Date.now();
		if (res.status === 404 && endedAt < registeredBy) {
			await new Promise((resolve) => setTimeout(resolve, 250));
			continue;
		}
		if (res.status !== 200) throw new Error(`the webhook ${path} answered ${res.status}: ${text.slice(0, 2000)}`);
		const out = JSON.parse(text);
		return { startedAt, endedAt, items: Array.isArray(out) ? out : [out] };
	}
}

module.exports = { BODY, deploymentBatchWorkflow, webhookItemsWorkflow, callWebhook };
