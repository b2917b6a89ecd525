'use strict';
/**
 * Serverless API on urls.serverless, part 2: the inference queue on both /prod/v1 and /prod/v2 paths
 * (submit, status, result, cancel, delete), webhook registration, and the instance proxy.
 */
const { apiError, validationError, notFound, iso, isPlainObject } = require('./util');
const { createRun, runState, queuePosition, setCancel, spellCancelled } = require('./runs');
const { meanRunMs, drawRunMs, queueSplit } = require('./timing');
const { getDeployment } = require('./deployments');
const { validateGraph, validateOverrides, applyOverrides, buildOutputs } = require('./overrides');
const { webhookRequest } = require('./webhooks');
const { graphPictureSpec } = require('./picture-spec');

function checkVersion(sb, rq) {
	const allowed = sb.config.quirks.inferencePaths || 'both';
	if (allowed !== 'both' && allowed !== rq.params.ver) {
		throw apiError(404, 404001, `Not Found: inference is served under /prod/${allowed} on this host`);
	}
}

function usableDeployment(sb, id) {
	if (sb.deletedDeployments.has(id)) throw apiError(410, 10003, `DeletedDeployment: deployment '${id}' was deleted`);
	const d = getDeployment(sb, id);
	if (!d.is_enabled) {
		throw apiError(
			403,
			10002,
			`DisabledDeployment: deployment '${d.name}' (${id}) is paused. Enable it (PATCH is_enabled=true) and retry.`,
		);
	}
	return d;
}

function inference(sb, rq) {
	checkVersion(sb, rq);
	const d = usableDeployment(sb, rq.params.id);
	const body = rq.body;
	if (body === undefined || (isPlainObject(body) && Object.keys(body).length === 0)) {
		throw validationError(
			[{ loc: ['body'], msg: 'Empty inference body: send {"overrides": {...}} (or a workflow_api_json)', type: 'missing' }],
			'Empty inference body is not accepted',
		);
	}
	if (!isPlainObject(body)) throw validationError([{ loc: ['body'], msg: 'Input should be a valid dictionary', type: 'dict_type' }]);
	const detail = [];
	const allowed = new Set(['overrides', 'workflow_api_json', 'extra_data', 'webhook', 'webhook_intermediate_status']);
	for (const k of Object.keys(body))
		if (!allowed.has(k)) detail.push({ loc: ['body', k], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' });
	let graph = d.graph;
	if (body.workflow_api_json !== undefined) {
		const gd = validateGraph(body.workflow_api_json, ['body', 'workflow_api_json']);
		detail.push(...gd);
		if (!gd.length) graph = body.workflow_api_json;
	}
	if (body.extra_data !== undefined && !isPlainObject(body.extra_data)) {
		detail.push({ loc: ['body', 'extra_data'], msg: 'Input should be a valid dictionary', type: 'dict_type' });
	}
	if (body.overrides !== undefined) detail.push(...validateOverrides(graph, body.overrides));
	if (detail.length) throw validationError(detail);
	const price = Math.round(sb.config.deploymentPriceMicrodollars);
	if (sb.wallet < price) {
		throw apiError(
			402,
			10001,
			`InsufficientFunds: inference costs about $${(price / 1e6).toFixed(4)} but the balance is $${(sb.wallet / 1e6).toFixed(4)}. Top up your balance.`,
		);
	}
	const effective = applyOverrides(graph, body.overrides);
	const failure = (sb.config.failingModels && (sb.config.failingModels[d.id] || sb.config.failingModels[d.name])) || null;
	const meanMs = meanRunMs(sb.config, [d.id, d.name]);
	const hook = webhookRequest(rq.query, body);
	const run = createRun(sb, {
		kind: 'deployment',
		target: d.id,
		capacityKeys: [d.id, d.name],
		body,
		failure,
		chargedMicro: price,
		version: rq.params.ver,
		instanceId: d.instanceId,
		meanMs,
		...queueSplit(sb.config, [d.id, d.name], drawRunMs(sb, d.id, meanMs)),
		picture: graphPictureSpec(effective),
	});
	sb.wallet -= price;
	run.outputs = buildOutputs(sb, d, run.id, effective);
	if (hook) sb.webhooks.track(run, hook, webhookEvent);
	return { body: handle(sb, run), createdId: run.id };
}

function handle(sb, run) {
	const base = `${sb.urls.serverless}/prod/${run.version}/deployments/${run.target}/requests/${run.id}`;
	return { request_id: run.id, status_url: `${base}/status`, result_url: `${base}/result`, cancel_url: `${base}/cancel` };
}

function findRun(sb, rq) {
	checkVersion(sb, rq);
	const run = sb.runs.get(rq.params.rid);
	if (!run || run.kind !== 'deployment' || run.target !== rq.params.id || run.deleted) {
		throw notFound(`Request '${rq.params.rid}' of deployment '${rq.params.id}'`);
	}
	return run;
}

function statusOf(sb, rq) {
	const run = findRun(sb, rq);
	if (run.cancelRequestedAt != null) {
		run.pollsSinceCancelRequest++;
		if (run.pollsSinceCancelRequest >= 2) setCancel(sb, run, Date.now());
	}
	const st = runState(sb, run);
	const h = handle(sb, run);
	const body = { request_id: run.id, status: st.status === 'cancelled' ? spellCancelled(sb) : st.status };
	if (st.status === 'in_queue') body.queue_position = queuePosition(sb, run);
	if (st.status === 'in_progress') body.instance_id = run.instanceId;
	if (st.status === 'completed' && run.failure && sb.config.quirks.statusSaysFailed) body.status = 'failed';
	body.status_url = h.status_url;
	body.result_url = h.result_url;
	return { body };
}

/** The result record of a request in state `st` (also the final webhook event). */
function resultBody(sb, run, st) {
	const body = { request_id: run.id, status: st.status, created_at: iso(run.createdAt) };
	if (st.status === 'in_queue' || st.status === 'in_progress') {
		body.status = st.status;
	} else if (st.status === 'cancelled') {
		body.status = spellCancelled(sb);
		body.finished_at = iso(st.finishedAt);
	} else if (run.failure) {
		body.status = 'failed';
		body.error = [{ errorCode: 1, error: String(run.failure), debugInfo: `Prompt outputs failed validation: ${run.failure}` }];
		body.finished_at = iso(st.finishedAt);
	} else {
		body.status = sb.config.quirks.resultSaysCompleted ? 'completed' : 'succeeded';
		body.outputs = run.outputs;
		body.finished_at = iso(st.finishedAt);
	}
	return body;
}

/**
 * The body of a webhook event: `in_queue` / `in_progress` (intermediate) or the final one, which is the result
 * record plus `deployment_id` and says `succeeded` even under the `resultSaysCompleted` quirk (webhook docs).
 */
function webhookEvent(sb, run, event, st) {
	const ids = { request_id: run.id, deployment_id: run.target };
	if (event === 'in_queue') return { ...ids, status: 'in_queue', queue_position: queuePosition(sb, run), created_at: iso(run.createdAt) };
	if (event === 'in_progress') {
		return { ...ids, status: 'in_progress', instance_id: run.instanceId, created_at: iso(run.createdAt), started_at: iso(st.startedAt) };
	}
	const result = resultBody(sb, run, st);
	if (result.status === 'completed') result.status = 'succeeded';
	return { ...ids, ...result };
}

function resultOf(sb, rq) {
	const run = findRun(sb, rq);
	return { body: resultBody(sb, run, runState(sb, run)) };
}

function cancel(sb, rq) {
	const run = findRun(sb, rq);
	const now = Date.now();
	const st = runState(sb, run, now);
	const q = sb.config.quirks;
	if (st.status === 'completed') {
		return q.deploymentCancelRequested
			? { body: { request_id: run.id, status: 'not_cancellable' } }
			: { body: { request_id: run.id, status: 'completed', outcome: 'not_cancellable' } };
	}
	if (st.status === 'cancelled') {
		return q.deploymentCancelRequested
			? { body: { request_id: run.id, status: 'cancellation_requested' } }
			: { body: { request_id: run.id, status: spellCancelled(sb), outcome: 'cancelled' } };
	}
	const refund = () => {
		sb.wallet += run.chargedMicro;
		run.chargedMicro = 0;
	};
	if (q.deploymentCancelRequested) {
		if (run.cancelRequestedAt == null) {
			run.cancelRequestedAt = now;
			run.pollsSinceCancelRequest = 0;
			setCancel(sb, run, now + Math.max(0, sb.config.cancelDelayMs ?? 100));
			if (st.status === 'in_queue') refund();
		}
		return { body: { request_id: run.id, status: 'cancellation_requested' } };
	}
	setCancel(sb, run, now);
	if (st.status === 'in_queue') refund();
	return { body: { request_id: run.id, status: spellCancelled(sb), outcome: 'cancelled' } };
}

function deleteRequest(sb, rq) {
	const run = findRun(sb, rq);
	setCancel(sb, run, Date.now());
	run.deleted = true;
	return { body: { request_id: run.id, deleted: true } };
}

// ---------- instance proxy ----------
function proxy(sb, rq) {
	const d = getDeployment(sb, rq.params.id);
	const now = Date.now();
	const keepWarm = d.keep_warm_duration_in_seconds * 1000;
	let live = false;
	for (const run of sb.runs.values()) {
		if (run.kind !== 'deployment' || run.target !== d.id || run.instanceId !== rq.params.iid) continue;
		const st = runState(sb, run, now);
		if (st.status === 'in_progress' || (st.finishedAt != null && st.startedAt != null && now - st.finishedAt <= keepWarm)) live = true;
	}
	if (!live)
		throw apiError(404, 404001, `Instance '${rq.params.iid}' is not running (instance ids are valid only while the instance runs)`);
	const path = String(rq.params.path || '')
		.replace(/^\/+/, '')
		.replace(/^api\//, '');
	switch (path) {
		case 'free':
			return { raw: '', status: 200 };
		case 'system_stats':
			return {
				body: {
					system: { os: 'posix', python_version: '3.11.9', comfyui_version: '0.3.60', embedded_python: false },
					devices: [{ name: `cuda:0 ${d.hardware[0]}`, type: 'cuda', index: 0, vram_total: 51527024640, vram_free: 40527024640 }],
				},
			};
		case 'queue':
			return { body: { queue_running: [], queue_pending: [] } };
		case 'object_info':
			return {
				body: Object.fromEntries(
					[...new Set(Object.values(d.graph).map((n) => n.class_type))].map((c) => [c, { name: c, display_name: c, category: 'sandbox' }]),
				),
			};
		case 'history':
			return { body: {} };
		case 'interrupt':
			return { raw: '', status: 200 };
		default:
			return { raw: '404: Not Found', status: 404 };
	}
}

const base = '/prod/:ver/deployments/:id/requests/:rid';
const routes = [
	{ method: 'POST', path: '/prod/:ver/deployments/:id/inference', paid: true, handler: inference },
	{ method: 'GET', path: `${base}/status`, handler: statusOf },
	{ method: 'GET', path: `${base}/result`, handler: resultOf },
	{ method: 'POST', path: `${base}/cancel`, handler: cancel },
	{ method: 'DELETE', path: base, handler: deleteRequest },
	{ method: '*', path: '/prod/v2/deployments/:id/instances/:iid/proxy/*path', handler: proxy },
]
	.map((r) => ({ ...r, api: 'serverless' }))
	.map((r) => {
		if (!r.path.startsWith('/prod/:ver/')) return r;
		const inner = r.handler;
		return {
			...r,
			handler: (sb, rq) => {
				if (rq.params.ver !== 'v1' && rq.params.ver !== 'v2') throw apiError(404, 404001, 'Not Found');
				return inner(sb, rq);
			},
		};
	});

module.exports = { routes };
