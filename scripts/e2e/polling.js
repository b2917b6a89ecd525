'use strict';
/**
 * Polled waiting in a real n8n (test/e2e/polling.test.ts): two webhook-started workflows that answer with the
 * RunComfy node's items once it has waited for them:
 *
 *   model      Webhook (POST /webhook/runcomfy-model-run) → Items (Split Out body.items) →
 *              Run (RunComfy Model, Model → Run on each item's `model` with its `prompt`, no downloads, Wait
 *              Options → Polling Goal from the item's `pollingGoal`, by default Lowest Delay) → Done
 *   training   Webhook (POST /webhook/runcomfy-training) → Items → Run (RunComfy Training, Submit on each item's
 *              `dataset` with `steps` steps, Wait for Completion polling from `pollSeconds` up to
 *              `maxPollSeconds`) → Done
 *
 * Plain CommonJS, like the other e2e helpers.
 */
const { NODE_TYPES } = require('./lib/constants');
const { callWebhook, webhookItemsWorkflow } = require('./lib/workflows');

const ANSWER_WITH_ITEMS = { responseMode: 'lastNode', responseData: 'allEntries' };

/** Model → Run on each item's `model` with its `prompt` (JSON inputs), no downloads. */
const MODEL_RUN_PARAMETERS = {
	resource: 'model',
	operation: 'run',
	model: { __rl: true, mode: 'id', value: '={{ $json.model }}' },
	inputMode: 'json',
	inputsJson: '={{ JSON.stringify({ prompt: $json.prompt }) }}',
	downloadOutputs: false,
};

const WORKFLOWS = {
	model: {
		name: 'Polling: Model → Run',
		path: 'runcomfy-model-run',
		n: '0a',
		type: NODE_TYPES.model,
		parameters: {
			...MODEL_RUN_PARAMETERS,
			waitOptions: {
				pollingGoal: '={{ $json.pollingGoal || "lowestDelay" }}',
			},
		},
	},
	training: {
		name: 'Polling: Training → Submit and wait',
		path: 'runcomfy-training',
		n: '0b',
		type: NODE_TYPES.training,
		parameters: {
			resource: 'trainingJob',
			operation: 'submit',
			configMode: 'simple',
			jobName: '={{ $json.name }}',
			baseModel: 'flux-dev',
			dataset: { __rl: true, mode: 'id', value: '={{ $json.dataset }}' },
			steps: '={{ $json.steps }}',
			triggerWord: 'p3r5on',
			waitForCompletion: true,
			waitOptions: { pollIntervalSeconds: '={{ $json.pollSeconds }}', maxPollIntervalSeconds: '={{ $json.maxPollSeconds }}' },
		},
	},
};

function pollingWorkflow(kind, { credential, name }) {
	const { n, type, parameters, path, ...wf } = WORKFLOWS[kind];
	return webhookItemsWorkflow({
		name: name || wf.name,
		path,
		credential,
		ids: {
			webhook: `a0d1e000-0000-4000-8000-00000000${n}01`,
			webhookId: `a0d1e000-0000-4000-8000-00000000${n}aa`,
			items: `a0d1e000-0000-4000-8000-00000000${n}02`,
			run: `a0d1e000-0000-4000-8000-00000000${n}03`,
			last: `a0d1e000-0000-4000-8000-00000000${n}04`,
		},
		webhookAnswer: ANSWER_WITH_ITEMS,
		run: { type, parameters },
		last: 'Done',
	});
}

const modelRunWorkflow = (opts) => pollingWorkflow('model', opts);
const trainingWorkflow = (opts) => pollingWorkflow('training', opts);

/** Runs the model workflow on `items` ({ model, prompt }); resolves with the Run node's items and the call's times. */
async function runModels(baseUrl, items) {
	return await callWebhook(baseUrl, WORKFLOWS.model.path, { items });
}

/** Runs the training workflow on one job; resolves with the Run node's item and the call's times. */
async function train(baseUrl, job) {
	return await callWebhook(baseUrl, WORKFLOWS.training.path, { items: [job] });
}

const isModelPoll = (kind, e) => e.api === 'model' && e.method === 'GET' && e.path.endsWith(`/${kind}`);

/**
 * Status and result requests per run in the sandbox's request `log`, for the runs of `items` (Model → Run's
 * output, each with its `request_id`), in item order.
 */
function requestsPerRun(log, items) {
	return items.map((item) => {
		const mine = log.filter((e) => e.path.split('/')[3] === String(item.request_id));
		return { status: mine.filter((e) => isModelPoll('status', e)).length, result: mine.filter((e) => isModelPoll('result', e)).length };
	});
}

module.exports = { MODEL_RUN_PARAMETERS, requestsPerRun, modelRunWorkflow, trainingWorkflow, runModels, train };
