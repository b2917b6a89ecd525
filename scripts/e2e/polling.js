'use strict';
/**
 * Polled waiting in a real n8n (test/e2e/polling.test.ts): two webhook-started workflows that answer with the
 * RunComfy node's items once it has waited for them:
 *
 *   model      Webhook (POST /webhook/runcomfy-model-run) → Items (Split Out body.items) →
 *              Run (RunComfy Model, Model → Run on each item's `model` with its `prompt`, no downloads, Wait
 *              Options → Polling Goal from the item's `pollingGoal`, by default Lowest Delay) → Done
 *   beside     the model workflow (POST /webhook/runcomfy-model-beside) with n8n's RSS Feed Trigger beside it, a
 *              polling trigger whose cursor n8n keeps in the workflow's static data
 *   training   Webhook (POST /webhook/runcomfy-training) → Items → Run (RunComfy Training, Submit on each item's
 *              `dataset` with `steps` steps, Wait for Completion polling from `pollSeconds` up to
 *              `maxPollSeconds`) → Done
 *
 * Plain CommonJS, like the other e2e helpers.
 */
const path = require('path');
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
	beside: {
		name: 'Polling: Model → Run beside an RSS Feed Trigger',
		path: 'runcomfy-model-beside',
		n: '0c',
		type: NODE_TYPES.model,
		parameters: MODEL_RUN_PARAMETERS,
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

/** The node name of the RSS Feed Trigger in the `beside` workflow: its cursor is `node:<name>` in static data. */
const RSS_TRIGGER = 'RSS Feed Trigger';

/** The model workflow with an RSS Feed Trigger polling `feedUrl` beside it (not connected to the Run node). */
function besidePollingTriggerWorkflow({ credential, feedUrl }) {
	const wf = pollingWorkflow('beside', { credential });
	wf.nodes.push({
		id: 'a0d1e000-0000-4000-8000-000000000c05',
		name: RSS_TRIGGER,
		type: 'n8n-nodes-base.rssFeedReadTrigger',
		typeVersion: 1,
		position: [0, 300],
		parameters: { pollTimes: { item: [{ mode: 'everyHour' }] }, feedUrl },
	});
	return wf;
}

/**
 * A workflow's static data as n8n saved it in the user folder's SQLite database, read (`data` undefined) or
 * replaced (`data` given, as a poll that moved a cursor would save it), through the sqlite3 module of the n8n
 * install `n8nHome`.
 */
async function staticData(n8nHome, userFolder, workflowId, data) {
	const sqlite3 = require(path.join(n8nHome, 'node_modules', 'sqlite3'));
	const db = new sqlite3.Database(path.join(userFolder.n8nDir, 'database.sqlite'));
	db.configure('busyTimeout', 10_000);
	const call = (method, sql, params) =>
		new Promise((resolve, reject) => db[method](sql, params, (error, row) => (error ? reject(error) : resolve(row))));
	try {
		if (data !== undefined)
			return await call('run', 'UPDATE workflow_entity SET staticData = ? WHERE id = ?', [JSON.stringify(data), workflowId]);
		const row = await call('get', 'SELECT staticData FROM workflow_entity WHERE id = ?', [workflowId]);
		return row && row.staticData ? JSON.parse(row.staticData) : {};
	} finally {
		await new Promise((resolve) => db.close(resolve));
	}
}

/** Runs the `beside` workflow on `items` ({ model, prompt }), as runModels does for the model workflow. */
async function runModelsBeside(baseUrl, items) {
	return await callWebhook(baseUrl, WORKFLOWS.beside.path, { items });
}

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

module.exports = {
	MODEL_RUN_PARAMETERS,
	RSS_TRIGGER,
	requestsPerRun,
	modelRunWorkflow,
	besidePollingTriggerWorkflow,
	trainingWorkflow,
	runModels,
	runModelsBeside,
	staticData,
	train,
};
