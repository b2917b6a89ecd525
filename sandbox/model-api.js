'use strict';
/** Model API: catalog, submit, status, result, cancel (served on urls.modelApi). */
const { apiError, validationError, notFound, iso } = require('./util');
const { validateInputs } = require('./schema');
const { createRun, runState, queuePosition, setCancel, spellCancelled } = require('./runs');
const { meanRunMs, drawRunMs, queueSplit } = require('./timing');
const { modelPictureSpec } = require('./picture-spec');

const KINDS = ['model', 'workflow', 'inference'];

function modelNotFound(id) {
	return apiError(404, 404001, `Model '${id}' not found`, { name: 'ResourceNotFound' });
}

function parseIntParam(query, name, def, min, max, detail) {
	const raw = query[name];
	if (raw === undefined || raw === '') return def;
	const str = Array.isArray(raw) ? raw[raw.length - 1] : raw;
	const n = Number(str);
	if (!/^-?\d+$/.test(String(str).trim()) || !Number.isSafeInteger(n)) {
		detail.push({ loc: ['query', name], msg: 'Input should be a valid integer', type: 'int_parsing' });
		return def;
	}
	if (n < min || (max !== undefined && n > max)) {
		detail.push({
			loc: ['query', name],
			msg: max !== undefined ? `Input should be between ${min} and ${max}` : `Input should be greater than or equal to ${min}`,
			type: n < min ? 'greater_than_equal' : 'less_than_equal',
		});
		return def;
	}
	return n;
}

function parseBool(query, name, detail) {
	const raw = query[name];
	if (raw === undefined || raw === '') return false;
	const v = String(Array.isArray(raw) ? raw[raw.length - 1] : raw).toLowerCase();
	if (['true', '1', 'yes'].includes(v)) return true;
	if (['false', '0', 'no'].includes(v)) return false;
	detail.push({ loc: ['query', name], msg: 'Input should be a valid boolean', type: 'bool_parsing' });
	return false;
}

const publicEntry = (model, withSchema) => {
	if (withSchema) return model;
	const { input_schema: _omit, ...rest } = model;
	return rest;
};

function listModels(sb, rq) {
	const q = rq.query;
	const detail = [];
	const limit = parseIntParam(q, 'limit', 100, 1, 500, detail);
	const offset = parseIntParam(q, 'offset', 0, 0, undefined, detail);
	const includeSchema = parseBool(q, 'include_schema', detail);
	const kind = q.kind ? String(q.kind) : undefined;
	if (kind && !KINDS.includes(kind)) {
		detail.push({ loc: ['query', 'kind'], msg: `Input should be ${KINDS.map((k) => `'${k}'`).join(', ')}`, type: 'enum' });
	}
	if (detail.length) throw validationError(detail);
	const search = q.search ? String(q.search).toLowerCase() : '';
	const category = q.category ? String(q.category) : '';
	const matches = sb.catalog.list.filter(
		(m) =>
			(!search ||
				m.model_id.toLowerCase().includes(search) ||
				m.display_name.toLowerCase().includes(search) ||
				m.description.toLowerCase().includes(search)) &&
			(!category || m.categories.includes(category)) &&
			(!kind || m.kind === kind),
	);
	return {
		body: {
			models: matches.slice(offset, offset + limit).map((m) => publicEntry(m, includeSchema)),
			total: matches.length,
			limit,
			offset,
		},
	};
}

function handle(sb, run) {
	const base = `${sb.urls.modelApi}/v1/requests/${run.id}`;
	return { request_id: run.id, status_url: `${base}/status`, result_url: `${base}/result`, cancel_url: `${base}/cancel` };
}

function buildOutput(sb, model, sim, runId, body) {
	const host = sb.config.httpsOutputUrls ? sb.urls.files.replace(/^http:/, 'https:') : sb.urls.files;
	const files = `${host}/files/outputs/${runId}`;
	let ext = sim.ext;
	if (sim.output === 'images' || sim.output === 'image') {
		// Like the service: an output_format left out means the model's default.
		const fmt = body.output_format ?? model.input_schema?.properties?.output_format?.default;
		if (fmt === 'jpeg' || fmt === 'jpg') ext = 'jpg';
		else if (fmt === 'png' || fmt === 'webp') ext = fmt;
	}
	const url = (i) => (sim.large ? `${host}/files/gen/${sb.config.largeOutputBytes}/${runId}_${i}.${ext}` : `${files}/output_${i}.${ext}`);
	const count = Math.max(1, Math.min(8, Number(body.num_images || body.max_images || body.batch_size || 1) || 1));
	let output;
	switch (sim.output) {
		case 'images':
			output = { images: Array.from({ length: count }, (_, i) => url(i)) };
			break;
		case 'image':
			output = { image: url(0) };
			break;
		case 'videos':
			output = { videos: [url(0)] };
			break;
		case 'audio':
			output = { audio: url(0) };
			break;
		case 'string':
			output = url(0);
			break;
		default:
			output = { video: url(0) };
	}
	if (sim.foreignThumbnail && output && typeof output === 'object') {
		output.thumbnail = `${sb.urls.foreignFiles}/files/outputs/${runId}/thumbnail.jpg`;
	}
	return output;
}

function submit(sb, rq) {
	const id = rq.params.id;
	const model = sb.catalog.byId.get(id);
	if (!model) throw modelNotFound(id);
	const body = rq.body === undefined ? {} : rq.body;
	const detail = validateInputs(model.input_schema, body);
	if (detail.length) throw validationError(detail);
	const price = Math.round(model.base_price_usd * 1e6);
	if (sb.wallet < price) {
		throw apiError(
			400,
			400002,
			`InsufficientResources: this run costs $${(price / 1e6).toFixed(6)} but the balance is $${(sb.wallet / 1e6).toFixed(6)}. Top up your RunComfy balance.`,
			{ name: 'InsufficientResources' },
		);
	}
	const sim = sb.catalog.sims.get(id);
	const failure = sim.fails || (sb.config.failingModels && sb.config.failingModels[id]) || null;
	const meanMs = meanRunMs(sb.config, [id]);
	const run = createRun(sb, {
		kind: 'model',
		target: id,
		capacityKeys: [id],
		body,
		failure,
		chargedMicro: price,
		meanMs,
		...queueSplit(sb.config, [id], drawRunMs(sb, id, meanMs)),
		picture: modelPictureSpec(body, model.input_schema),
	});
	sb.wallet -= price;
	run.output = buildOutput(sb, model, sim, run.id, body);
	return { body: handle(sb, run), createdId: run.id };
}

function findRun(sb, id) {
	const run = sb.runs.get(id);
	if (!run || run.kind !== 'model' || run.deleted) throw notFound(`Request '${id}'`);
	return run;
}

function statusOf(sb, rq) {
	const run = findRun(sb, rq.params.id);
	const st = runState(sb, run);
	const h = handle(sb, run);
	const body = { request_id: run.id, status: st.status === 'cancelled' ? spellCancelled(sb) : st.status };
	if (st.status === 'in_queue') body.queue_position = queuePosition(sb, run);
	if (st.status === 'completed' && run.failure && sb.config.quirks.statusSaysFailed) {
		body.status = 'failed';
		body.error = run.failure;
	}
	body.status_url = h.status_url;
	body.result_url = h.result_url;
	return { body };
}

function resultOf(sb, rq) {
	const run = findRun(sb, rq.params.id);
	const st = runState(sb, run);
	const includeCost = ['true', '1'].includes(String(rq.query.include_cost || '').toLowerCase());
	const body = { request_id: run.id };
	if (st.status === 'in_queue' || st.status === 'in_progress') {
		if (sb.config.quirks.resultNotReady400) {
			throw apiError(400, 400005, `Request '${run.id}' is not completed yet (status ${st.status}).`);
		}
		body.status = st.status;
	} else if (st.status === 'cancelled') {
		body.status = spellCancelled(sb);
	} else if (run.failure) {
		body.status = 'failed';
		body.error = run.failure;
		body.output = null;
	} else {
		body.status = sb.config.quirks.resultSaysCompleted ? 'completed' : 'succeeded';
		body.output = run.output;
	}
	body.created_at = iso(run.createdAt);
	body.finished_at = iso(st.finishedAt);
	if (includeCost) body.cost = run.chargedMicro / 1e6;
	return { body };
}

function cancel(sb, rq) {
	const run = findRun(sb, rq.params.id);
	const st = runState(sb, run);
	if (st.status === 'in_queue') {
		setCancel(sb, run, Date.now());
		sb.wallet += run.chargedMicro;
		run.chargedMicro = 0;
		return { status: 202, body: { request_id: run.id, status: spellCancelled(sb), outcome: 'cancelled' } };
	}
	if (st.status === 'cancelled') {
		return { status: 202, body: { request_id: run.id, status: spellCancelled(sb), outcome: 'cancelled' } };
	}
	return { status: 202, body: { request_id: run.id, status: st.status, outcome: 'not_cancellable' } };
}

const routes = [
	{ method: 'GET', path: '/v1/models', handler: listModels },
	{ method: 'GET', path: '/v1/models/categories', handler: (sb) => ({ body: { categories: sb.catalog.categories } }) },
	{
		method: 'GET',
		path: '/v1/models/*id',
		handler: (sb, rq) => {
			const model = sb.catalog.byId.get(rq.params.id);
			if (!model) throw modelNotFound(rq.params.id);
			return { body: model };
		},
	},
	{ method: 'POST', path: '/v1/models/*id', paid: true, handler: submit },
	{ method: 'GET', path: '/v1/requests/:id/status', handler: statusOf },
	{ method: 'GET', path: '/v1/requests/:id/result', handler: resultOf },
	{ method: 'POST', path: '/v1/requests/:id/cancel', handler: cancel },
].map((r) => ({ ...r, api: 'model' }));

module.exports = { routes };
