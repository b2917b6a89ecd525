'use strict';
/**
 * Serverless API on urls.serverless, part 1: the deployments (seeded from fixtures/deployments.json, CRUD
 * under /prod/v2/deployments) and the account balance (/prod/v2/balance). Inference lives in inference.js.
 */
const { validationError, notFound, iso, uuid, isPlainObject } = require('./util');
const workflows = require('./workflows');
const SEEDS = require('./fixtures/deployments.json');

const HARDWARE_SKUS = ['TURING_16', 'AMPERE_24', 'AMPERE_48', 'ADA_48_PLUS', 'AMPERE_80', 'ADA_80_PLUS', 'HOPPER_141'];

/** Stable ids of the seeded deployments. */
const STABLE_DEPLOYMENTS = {
	textToImage: '5f0c3a52-6b1e-4c8e-9a0d-2d4f7b8e1a01',
	imageToImage: '5f0c3a52-6b1e-4c8e-9a0d-2d4f7b8e1a02',
	paused: '5f0c3a52-6b1e-4c8e-9a0d-2d4f7b8e1a03',
	largeVideo: '5f0c3a52-6b1e-4c8e-9a0d-2d4f7b8e1a04',
};

function makeDeployment(sb, seed, now) {
	return {
		id: seed.id || uuid(),
		name: seed.name,
		workflow_id: seed.workflow_id,
		workflow_version: seed.workflow_version || 'v1',
		hardware: seed.hardware || ['AMPERE_48'],
		min_instances: seed.min_instances ?? 0,
		max_instances: seed.max_instances ?? 1,
		queue_size: seed.queue_size ?? 1,
		keep_warm_duration_in_seconds: seed.keep_warm_duration_in_seconds ?? 60,
		is_enabled: seed.is_enabled ?? true,
		created_at: now,
		updated_at: now,
		graph: workflows.graph(seed.workflow),
		overrides: JSON.parse(JSON.stringify(seed.overrides || {})),
		readme: seed.readme || `# ${seed.name}\n`,
		large: !!seed.large,
		instanceId: uuid(),
	};
}

/** Fresh seeded deployments (start and reset). */
function seedDeployments(sb) {
	sb.deployments = new Map();
	sb.deletedDeployments = new Set();
	const now = Date.now();
	for (const s of SEEDS) sb.deployments.set(s.id, makeDeployment(sb, s, now));
}

function includesOf(query) {
	const raw = query.includes;
	const list = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
	const set = new Set(list.flatMap((v) => String(v).split(',')).map((s) => s.trim()));
	const truthy = (v) => ['true', '1'].includes(String(Array.isArray(v) ? v[v.length - 1] : v || '').toLowerCase());
	return {
		payloadNested: set.has('payload'),
		payloadTop: truthy(query.include_payload),
		readme: set.has('readme') || truthy(query.include_readme),
	};
}

function view(sb, d, inc = {}) {
	const out = {
		id: d.id,
		name: d.name,
		workflow_id: d.workflow_id,
		workflow_version: d.workflow_version,
		hardware: [...d.hardware],
		min_instances: d.min_instances,
		max_instances: d.max_instances,
		queue_size: d.queue_size,
		keep_warm_duration_in_seconds: d.keep_warm_duration_in_seconds,
		status: d.is_enabled ? 'standby' : 'paused',
		is_enabled: d.is_enabled,
		created_at: iso(d.created_at),
		updated_at: iso(d.updated_at),
	};
	if (inc.payloadNested || inc.payloadTop) {
		out.payload = {
			workflow_api_json: JSON.parse(JSON.stringify(d.graph)),
			overrides: JSON.parse(JSON.stringify(d.overrides)),
			object_info_url: `${sb.urls.files}/files/deployments/${d.id}/object_info.json`,
		};
	}
	if (inc.payloadTop) out.workflow_api_json = JSON.parse(JSON.stringify(d.graph));
	if (inc.readme) out.readme = d.readme;
	return out;
}

function getDeployment(sb, id) {
	const d = sb.deployments.get(id);
	if (!d) throw notFound(`Deployment '${id}'`);
	return d;
}

// ---------- CRUD ----------
function list(sb, rq) {
	const inc = includesOf(rq.query);
	const idsRaw = rq.query.ids;
	const ids = idsRaw === undefined ? null : new Set((Array.isArray(idsRaw) ? idsRaw : [idsRaw]).flatMap((s) => String(s).split(',')));
	const items = [...sb.deployments.values()].filter((d) => !ids || ids.has(d.id)).map((d) => view(sb, d, inc));
	return { body: sb.config.quirks.bareDeploymentList ? items : { deployments: items } };
}

const INT_FIELDS = {
	min_instances: [0, 30],
	max_instances: [1, 60],
	queue_size: [0, 1000],
	keep_warm_duration_in_seconds: [0, 86400],
};

/** The fields a create must give (is_enabled is optional). */
const CREATE_REQUIRED = [
	'name',
	'workflow_id',
	'workflow_version',
	'hardware',
	'min_instances',
	'max_instances',
	'queue_size',
	'keep_warm_duration_in_seconds',
];

function validateFields(body, { requireAll }) {
	const detail = [];
	const loc = (k) => ['body', k];
	const need = requireAll ? CREATE_REQUIRED : [];
	for (const k of need) if (body[k] === undefined) detail.push({ loc: loc(k), msg: 'Field required', type: 'missing' });
	for (const k of ['name', 'workflow_id', 'workflow_version']) {
		if (body[k] !== undefined && (typeof body[k] !== 'string' || !body[k].trim())) {
			detail.push({ loc: loc(k), msg: 'Input should be a non-empty string', type: 'string_type' });
		}
	}
	if (body.hardware !== undefined) {
		if (!Array.isArray(body.hardware) || body.hardware.length !== 1) {
			detail.push({ loc: loc('hardware'), msg: 'hardware must be an array with exactly one SKU', type: 'value_error' });
		} else if (!HARDWARE_SKUS.includes(body.hardware[0])) {
			detail.push({ loc: ['body', 'hardware', 0], msg: `Input should be one of ${HARDWARE_SKUS.join(', ')}`, type: 'enum' });
		}
	}
	for (const [k, [min, max]] of Object.entries(INT_FIELDS)) {
		const v = body[k];
		if (v === undefined) continue;
		if (!Number.isInteger(v) || v < min || v > max) {
			detail.push({ loc: loc(k), msg: `Input should be an integer between ${min} and ${max}`, type: 'int_range' });
		}
	}
	if (body.is_enabled !== undefined && typeof body.is_enabled !== 'boolean') {
		detail.push({ loc: loc('is_enabled'), msg: 'Input should be a valid boolean', type: 'bool_type' });
	}
	return detail;
}

function create(sb, rq) {
	const body = rq.body;
	if (!isPlainObject(body)) throw validationError([{ loc: ['body'], msg: 'Input should be a valid dictionary', type: 'dict_type' }]);
	const allowed = new Set([...CREATE_REQUIRED, 'is_enabled']);
	const detail = validateFields(body, { requireAll: true });
	for (const k of Object.keys(body))
		if (!allowed.has(k)) detail.push({ loc: ['body', k], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' });
	if (!detail.length && body.max_instances < body.min_instances) {
		detail.push({
			loc: ['body', 'max_instances'],
			msg: 'max_instances must be greater than or equal to min_instances',
			type: 'value_error',
		});
	}
	if (detail.length) throw validationError(detail);
	const template = SEEDS.find((s) => s.workflow_id === body.workflow_id) || SEEDS[0];
	const d = makeDeployment(
		sb,
		{ ...template, ...body, id: uuid(), readme: `# ${body.name}\n\nCreated from workflow ${body.workflow_id} ${body.workflow_version}.\n` },
		Date.now(),
	);
	sb.deployments.set(d.id, d);
	return { body: view(sb, d) };
}

function update(sb, rq) {
	const d = getDeployment(sb, rq.params.id);
	const body = rq.body;
	if (!isPlainObject(body) || Object.keys(body).length === 0) {
		throw validationError([{ loc: ['body'], msg: 'Give at least one field to change', type: 'value_error' }]);
	}
	// Everything a create takes but the workflow it runs.
	const allowed = new Set([...CREATE_REQUIRED.filter((k) => k !== 'workflow_id'), 'is_enabled']);
	const detail = validateFields(body, { requireAll: false });
	for (const k of Object.keys(body))
		if (!allowed.has(k)) detail.push({ loc: ['body', k], msg: `Field '${k}' cannot be changed`, type: 'extra_forbidden' });
	if (sb.config.quirks.patchRequiresName && body.name === undefined) {
		detail.push({ loc: ['body', 'name'], msg: 'Deployment name is required', type: 'missing' });
	}
	const min = body.min_instances ?? d.min_instances;
	const max = body.max_instances ?? d.max_instances;
	if (!detail.length && max < min)
		detail.push({
			loc: ['body', 'max_instances'],
			msg: 'max_instances must be greater than or equal to min_instances',
			type: 'value_error',
		});
	if (detail.length) throw validationError(detail);
	for (const k of allowed) if (body[k] !== undefined) d[k] = Array.isArray(body[k]) ? [...body[k]] : body[k];
	if (body.is_enabled === false) d.instanceId = uuid();
	d.updated_at = Date.now();
	return { body: view(sb, d) };
}

function remove(sb, rq) {
	const d = getDeployment(sb, rq.params.id);
	sb.deployments.delete(d.id);
	sb.deletedDeployments.add(d.id);
	return { body: { id: d.id, deleted: true } };
}

function balance(sb) {
	return { body: { balance_usd: sb.wallet / 1e6, balance_microdollars: sb.wallet, currency: 'USD' } };
}

const routes = [
	{ method: 'GET', path: '/prod/v2/balance', handler: balance },
	{ method: 'GET', path: '/prod/v2/deployments', handler: list },
	{ method: 'POST', path: '/prod/v2/deployments', handler: create },
	{
		method: 'GET',
		path: '/prod/v2/deployments/:id',
		handler: (sb, rq) => ({ body: view(sb, getDeployment(sb, rq.params.id), includesOf(rq.query)) }),
	},
	{ method: 'PATCH', path: '/prod/v2/deployments/:id', handler: update },
	{ method: 'DELETE', path: '/prod/v2/deployments/:id', handler: remove },
].map((r) => ({ ...r, api: 'serverless' }));

module.exports = { routes, seedDeployments, getDeployment, STABLE_DEPLOYMENTS };
