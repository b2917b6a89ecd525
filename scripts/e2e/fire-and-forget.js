'use strict';
/**
 * Fire-and-forget batches in a real n8n, shared by test/e2e/fire-and-forget.test.ts and the benchmark
 * (bench/lib/fire-and-forget.js). Two workflows:
 *
 *   A (submitter)  Webhook (POST /webhook/<path>, answers with every item of the last node) → Items (Split Out
 *                  body.items) → Run (RunComfy Deployment, Inference → Run, Options → Deliver Results To =
 *                  body.deliverTo, Deliver Intermediate Statuses = body.intermediate) → Submitted (No Op)
 *   B (receiver)   RunComfy Webhook Trigger (secret path token, intermediate events off, the credential it confirms
 *                  each finished request with) → Keep Result (No Op)
 *
 * A returns the request ids at once; RunComfy (the sandbox) then POSTs each result to B's production URL, and
 * B starts once per finished request. Also: reading B's executions through n8n's REST API, and what the
 * sandbox's request log says about the deliveries it made. Plain CommonJS.
 */
const h = require('./n8n');
const { deliveryInFlight, waitFor } = require('./parking');
const { BODY, callWebhook, deploymentBatchWorkflow } = require('./lib/workflows');

const IDS = {
	submitWebhook: 'f1f0a000-0000-4000-8000-000000000001',
	submitWebhookId: 'f1f0a000-0000-4000-8000-0000000000aa',
	items: 'f1f0a000-0000-4000-8000-000000000002',
	run: 'f1f0a000-0000-4000-8000-000000000003',
	submitted: 'f1f0a000-0000-4000-8000-000000000004',
	trigger: 'f1f0b000-0000-4000-8000-000000000001',
	triggerWebhookId: 'f1f0b000-0000-4000-8000-0000000000bb',
	keep: 'f1f0b000-0000-4000-8000-000000000002',
};

/** Workflow A (see the file comment); `path` is its Webhook node's path. */
function submitterWorkflow({ credential, path = 'runcomfy-fire', name = 'Fire and forget: submit' }) {
	return deploymentBatchWorkflow({
		name,
		path,
		credential,
		ids: { webhook: IDS.submitWebhook, webhookId: IDS.submitWebhookId, items: IDS.items, run: IDS.run, last: IDS.submitted },
		webhookAnswer: { responseMode: 'lastNode', responseData: 'allEntries' },
		runParameters: {
			downloadOutputs: false,
			options: {
				webhookUrl: `={{ ${BODY}.deliverTo }}`,
				webhookIntermediateStatus: `={{ ${BODY}.intermediate === true }}`,
			},
		},
		last: 'Submitted',
	});
}

/** Workflow B (see the file comment): fires on finished requests only, downloads off. */
function receiverWorkflow({ token, credential, name = 'Fire and forget: receive' }) {
	return {
		name,
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: IDS.trigger,
				name: 'RunComfy Webhook Trigger',
				type: h.NODE_TYPES.webhookTrigger,
				typeVersion: 2,
				position: [0, 0],
				webhookId: IDS.triggerWebhookId,
				parameters: { event: 'deploymentRequest', pathToken: token, includeIntermediate: false },
				credentials: { runComfyApi: { id: credential.id, name: credential.name } },
			},
			{ id: IDS.keep, name: 'Keep Result', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [220, 0], parameters: {} },
		],
		connections: { 'RunComfy Webhook Trigger': { main: [[{ node: 'Keep Result', type: 'main', index: 0 }]] } },
	};
}

/**
 * The same receiver built with n8n's plain Webhook node (POST, answers at once, no dedupe) on the trigger's
 * production path: what n8n does with a burst of deliveries when the workflow does not start with this package.
 */
function plainWebhookReceiverWorkflow({ token, credential, name = 'Fire and forget: receive (plain Webhook node)' }) {
	const wf = receiverWorkflow({ token, credential, name });
	// n8n's Webhook node takes no credential.
	const trigger = { ...wf.nodes[0] };
	delete trigger.credentials;
	wf.nodes[0] = {
		...trigger,
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		parameters: { httpMethod: 'POST', path: `${IDS.triggerWebhookId}/${token}`, responseMode: 'onReceived', options: {} },
	};
	wf.connections = { Webhook: wf.connections['RunComfy Webhook Trigger'] };
	return wf;
}

/** B's production URL on the n8n at `baseUrl` (the trigger's path is <webhook id>/<token>). */
const productionUrl = (baseUrl, token) => `${baseUrl}/webhook/${IDS.triggerWebhookId}/${token}`;

/**
 * Runs workflow A once with `n` items for `deployment`, delivering to `deliverTo`; resolves when A answered,
 * with its items (the last node's output) and the times around the call (ms since the epoch).
 */
async function submitBatch(baseUrl, { path = 'runcomfy-fire', deployment, n, deliverTo, intermediate = true, prefix = 'fire' }) {
	const items = Array.from({ length: n }, (_, i) => ({ deployment, prompt: `${prefix} ${i}` }));
	return await callWebhook(baseUrl, path, { items, deliverTo, intermediate });
}

/**
 * Every execution of the workflow. n8n lists at most 100 per page, newest start first, and its cursor asks for
 * ids below the page's last one, which skips executions that started in another order than their ids were
 * given (queue mode: several processes create and start them); so each next page asks for the executions
 * started at or before the oldest start seen, and the rows already seen are dropped.
 */
async function allExecutions(rest, workflowId) {
	const byId = new Map();
	let startedBefore;
	for (;;) {
		const filter = encodeURIComponent(JSON.stringify(startedBefore ? { workflowId, startedBefore } : { workflowId }));
		const page = await rest.get(`/rest/executions?limit=100&filter=${filter}`);
		const rows = (page && page.results) || [];
		const fresh = rows.filter((e) => !byId.has(String(e.id)));
		for (const e of fresh) byId.set(String(e.id), e);
		// n8n gives a cursor only when the page was full; a page with nothing new ends the walk too.
		if (!(page && page.nextCursor) || fresh.length === 0) break;
		const starts = rows.map((e) => Date.parse(e.startedAt)).filter(Number.isFinite);
		if (!starts.length) break;
		startedBefore = new Date(Math.min(...starts)).toISOString();
	}
	return [...byId.values()];
}

const ended = (e) => !['new', 'running', 'waiting', 'unknown'].includes(e.status);

/** Waits until the workflow has at least `count` executions and all have ended; resolves with them, oldest first. */
async function executionsOf(rest, workflowId, count, { limitMs = 120_000 } = {}) {
	let last = [];
	const list = await waitFor(
		`${count} ended execution(s) of workflow ${workflowId}`,
		async () => {
			last = await allExecutions(rest, workflowId);
			return last.length >= count && last.every(ended) ? last : undefined;
		},
		{ limitMs, intervalMs: 250 },
	).catch((error) => {
		const byStatus = {};
		for (const e of last) byStatus[e.status] = (byStatus[e.status] || 0) + 1;
		throw new Error(`${error.message}; there are ${last.length}: ${JSON.stringify(byStatus)}`);
	});
	return [...list].sort((a, b) => Number(a.id) - Number(b.id));
}

/** B's executions in detail: each one's trigger items and Keep Result items (json only), with its summary. */
async function receivedRuns(rest, executions) {
	const out = [];
	for (const e of executions) {
		const run = await rest.getExecution(e.id);
		out.push({
			id: String(e.id),
			status: e.status,
			mode: e.mode,
			startedAt: Date.parse(e.startedAt),
			stoppedAt: Date.parse(e.stoppedAt),
			fired: (h.nodeItems(run, 'RunComfy Webhook Trigger') || []).map((i) => i.json),
			kept: (h.nodeItems(run, 'Keep Result') || []).map((i) => i.json),
			raw: run,
		});
	}
	return out;
}

// ----- the sandbox's request log (entries of sandbox/log.js) ---------------------------------------------------

const FINAL_EVENTS = new Set(['succeeded', 'failed', 'cancelled', 'canceled']);
const isDelivery = (e) => e.api === 'webhook';
const isFinal = (e) => isDelivery(e) && FINAL_EVENTS.has(String(e.event));
const answered = (e) => e.status >= 200 && e.status < 300;

/**
 * Whether the sandbox is done delivering the requests `ids`: each one's final event was answered 2xx and no
 * attempt is in flight. A duplicate is logged in the same turn as the answer it follows, and a held-back event
 * is logged before its request's final one counts as delivered, so nothing is still to come then.
 */
function deliveriesSettled(log, ids) {
	if (log.some(deliveryInFlight)) return false;
	const done = new Set(log.filter((e) => isFinal(e) && answered(e)).map((e) => e.requestId));
	return ids.every((id) => done.has(id));
}

/** What the sandbox delivered for the requests `ids`. */
function deliveryStats(log, ids) {
	const mine = new Set(ids);
	const attempts = log.filter((e) => isDelivery(e) && mine.has(e.requestId));
	const finals = attempts.filter(isFinal);
	return {
		attempts: attempts.length,
		answered: attempts.filter(answered).length,
		/** Attempts answered with something else than 2xx (n8n busy, ...), each retried. */
		notAnswered: attempts.filter((e) => !answered(e)).length,
		/** The not-2xx answers by kind: the HTTP status, or the error ('timeout': no answer within the sandbox's 10 s). */
		notAnsweredBy: attempts
			.filter((e) => !answered(e))
			.reduce((by, e) => ({ ...by, [e.error || String(e.status)]: (by[e.error || String(e.status)] || 0) + 1 }), {}),
		retries: attempts.filter((e) => (e.attempt || 1) > 1).length,
		finalAnswered: finals.filter(answered).length,
		duplicates: attempts.filter((e) => e.duplicate).length,
		finalDuplicatesAnswered: finals.filter((e) => e.duplicate && answered(e)).length,
		outOfOrder: attempts.filter((e) => e.outOfOrder).length,
		intermediate: attempts.filter((e) => !isFinal(e)).length,
		lastFinalAt: Math.max(0, ...finals.filter(answered).map((e) => e.time)),
	};
}

module.exports = {
	submitterWorkflow,
	receiverWorkflow,
	plainWebhookReceiverWorkflow,
	productionUrl,
	submitBatch,
	allExecutions,
	executionsOf,
	receivedRuns,
	deliveriesSettled,
	deliveryStats,
	isFinal,
};
