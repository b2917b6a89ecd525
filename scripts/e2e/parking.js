'use strict';
/**
 * Parked Inference → Run in a real n8n, shared by test/e2e/parking.test.ts, test/e2e/queue/parking.test.ts and
 * the benchmark (bench/lib/parking.js): a webhook-started workflow
 *
 *   Webhook (POST /webhook/<path>, answers at once) → Items (Split Out body.items) →
 *   Run (RunComfy Deployment, Inference → Run, Wait Mode "Park Until RunComfy Calls Back") → After (No Op)
 *
 * whose Run node takes each item's `deployment` and `prompt`, and from the body `maxWait` (seconds),
 * `onTimeout`, `intermediate` (webhook_intermediate_status) and `download` (Download Outputs); plus waiting
 * on executions through n8n's REST API (bounded polling, no sleeps as synchronisation). Plain CommonJS.
 */
const { BODY, deploymentBatchWorkflow } = require('./lib/workflows');

const IDS = {
	webhook: 'c7a1e000-0000-4000-8000-000000000001',
	webhookId: 'c7a1e000-0000-4000-8000-0000000000aa',
	items: 'c7a1e000-0000-4000-8000-000000000002',
	run: 'c7a1e000-0000-4000-8000-000000000003',
	after: 'c7a1e000-0000-4000-8000-000000000004',
};

/** The workflow (see the file comment); `path` is the Webhook node's path. */
function parkingWorkflow({ credential, path = 'runcomfy-park', name = 'Parked deployment runs' }) {
	return deploymentBatchWorkflow({
		name,
		path,
		credential,
		ids: { webhook: IDS.webhook, webhookId: IDS.webhookId, items: IDS.items, run: IDS.run, last: IDS.after },
		webhookAnswer: { responseMode: 'onReceived' },
		runParameters: {
			waitMode: 'park',
			waitOptions: {
				maxWaitSeconds: `={{ ${BODY}.maxWait ?? 600 }}`,
				onTimeout: `={{ ${BODY}.onTimeout ?? "fail" }}`,
			},
			downloadOutputs: `={{ ${BODY}.download !== false }}`,
			options: { webhookIntermediateStatus: `={{ ${BODY}.intermediate === true }}` },
		},
		last: 'After',
	});
}

/**
 * Two parks in one execution: the parking workflow with a second Inference → Run node, "Run Again", between Run
 * and After, parking as well. It runs each item again on the item's `again` deployment (the Items node's item,
 * not Run's output), with the same prompt and wait options.
 */
function twoParksWorkflow({ credential, path = 'runcomfy-park-twice', name = 'Two parks in one execution' }) {
	const wf = parkingWorkflow({ credential, path, name });
	const run = wf.nodes.find((n) => n.name === 'Run');
	const again = {
		...run,
		id: 'c7a1e000-0000-4000-8000-000000000005',
		name: 'Run Again',
		position: [660, 0],
		parameters: {
			...run.parameters,
			deploymentId: { __rl: true, mode: 'id', value: "={{ $('Items').item.json.again }}" },
			overridesJson: `={{ JSON.stringify({ "6": { "inputs": { "text": $('Items').item.json.prompt } } }) }}`,
		},
	};
	// its own webhook id, so both workflows can be published in one n8n
	wf.nodes.find((n) => n.name === 'Webhook').webhookId = 'c7a1e000-0000-4000-8000-0000000000ab';
	const after = wf.nodes.find((n) => n.name === 'After');
	after.position = [880, 0];
	wf.nodes.splice(wf.nodes.indexOf(after), 0, again);
	wf.connections.Run = { main: [[{ node: 'Run Again', type: 'main', index: 0 }]] };
	wf.connections['Run Again'] = { main: [[{ node: 'After', type: 'main', index: 0 }]] };
	return wf;
}

/**
 * Polls `check` (async) every `intervalMs` until it returns a truthy value; throws after `limitMs`. A busy n8n
 * may answer its REST API with 503 for a moment ("Database is not ready!"): such errors are retried too.
 */
async function waitFor(what, check, { limitMs = 60_000, intervalMs = 250 } = {}) {
	const started = Date.now();
	let lastError;
	for (;;) {
		let value;
		try {
			value = await check();
		} catch (error) {
			if (error.status !== 503) throw error;
			lastError = error;
		}
		if (value) return value;
		if (Date.now() - started > limitMs)
			throw new Error(`Timed out after ${limitMs} ms waiting for ${what}${lastError ? ` (last error: ${lastError.message})` : ''}`);
		await new Promise((resolve) => setTimeout(resolve, intervalMs));
	}
}

/**
 * POSTs `body` to the workflow's webhook on `baseUrl` and resolves with the id of the execution it started
 * (the one execution of `workflowId` not in `known`, a Set that is updated).
 */
async function startRun(rest, baseUrl, { path = 'runcomfy-park', workflowId, known, body }) {
	const res = await fetch(`${baseUrl}/webhook/${path}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(body),
	});
	if (res.status !== 200) throw new Error(`the webhook answered ${res.status}: ${await res.text()}`);
	const id = await waitFor('the execution the webhook started', async () => {
		const list = await rest.listExecutions({ workflowId, limit: 100 });
		return list.map((e) => String(e.id)).find((x) => !known.has(x));
	});
	known.add(id);
	return id;
}

/** The execution's summary (status, waitTill, ...) from the executions list. */
async function executionSummary(rest, workflowId, id) {
	const list = await rest.listExecutions({ workflowId, limit: 100 });
	return list.find((e) => String(e.id) === String(id));
}

/** Waits until the execution's status is one of `statuses` (e.g. ['waiting']); resolves with its summary. */
async function waitForStatus(rest, workflowId, id, statuses, opts = {}) {
	return await waitFor(
		`execution ${id} to be ${statuses.join(' or ')}`,
		async () => {
			const e = await executionSummary(rest, workflowId, id);
			return e && statuses.includes(e.status) ? e : undefined;
		},
		opts,
	);
}

/**
 * A webhook delivery in the sandbox's request log still waiting for its answer (an answered one has `status`,
 * a failed one `error`, a refused one `refused`).
 */
const deliveryInFlight = (e) => e.api === 'webhook' && !e.status && !e.error && !e.refused;

/**
 * The parked node's requests among the sandbox's runs, in item order: each callback URL names its item
 * (`&item=<i>`); runs without one (the holders of a queue) are left out.
 */
function requestsByItem(runs) {
	const item = (r) => Number(new URL(String(r.webhook)).searchParams.get('item'));
	return runs.filter((r) => r.webhook).sort((a, b) => item(a) - item(b));
}

module.exports = {
	parkingWorkflow,
	twoParksWorkflow,
	waitFor,
	startRun,
	waitForStatus,
	deliveryInFlight,
	requestsByItem,
};
