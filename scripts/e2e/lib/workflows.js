'use strict';
/**
 * The webhook-started deployment batch that the parking and fire-and-forget workflows share:
 *
 *   Webhook (POST /webhook/<path>) → Items (Split Out body.items) → Run (RunComfy Deployment, Inference → Run on
 *   each item's `deployment`, its `prompt` as node 6's text) → a No Op
 *
 * Each caller gives the Webhook's answer, the Run node's own parameters (how it waits or delivers) and the
 * node ids, so the two workflows differ only where they really do.
 */
const { NODE_TYPES } = require('./constants');

/** The Webhook's body, as the Run node's expressions read it. */
const BODY = "$('Webhook').first().json.body";

/**
 * `ids`: { webhook, webhookId, items, run, last }; `webhookAnswer`: the Webhook node's response parameters;
 * `runParameters`: added to the Run node's; `last`: the No Op's name.
 */
function deploymentBatchWorkflow({ name, path, credential, ids, webhookAnswer, runParameters, last }) {
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
				type: NODE_TYPES.deployment,
				typeVersion: 1,
				position: [440, 0],
				parameters: {
					resource: 'inference',
					operation: 'run',
					deploymentId: { __rl: true, mode: 'id', value: '={{ $json.deployment }}' },
					inputMode: 'json',
					overridesJson: '={{ JSON.stringify({ "6": { "inputs": { "text": $json.prompt } } }) }}',
					...runParameters,
				},
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

module.exports = { BODY, deploymentBatchWorkflow };
