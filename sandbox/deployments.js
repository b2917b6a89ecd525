'use strict';
/**
 * Serverless API on urls.serverless: deployments CRUD (/prod/v2/deployments), inference queue on both
 * /prod/v1 and /prod/v2 paths, instance proxy and the account balance (/prod/v2/balance).
 */
const { apiError, validationError, notFound, iso, uuid, isPlainObject } = require('./util');
const { createRun, runState, queuePosition, setCancel, spellCancelled } = require('./runs');
const workflows = require('./workflows');

const HARDWARE_SKUS = ['TURING_16', 'AMPERE_24', 'AMPERE_48', 'ADA_48_PLUS', 'AMPERE_80', 'ADA_80_PLUS', 'HOPPER_141'];

/** Stable ids of the seeded deployments. */
const STABLE_DEPLOYMENTS = {
	textToImage: '5f0c3a52-6b1e-4c8e-9a0d-2d4f7b8e1a01',
	imageToImage: '5f0c3a52-6b1e-4c8e-9a0d-2d4f7b8e1a02',
	paused: '5f0c3a52-6b1e-4c8e-9a0d-2d4f7b8e1a03',
	largeVideo: '5f0c3a52-6b1e-4c8e-9a0d-2d4f7b8e1a04',
};

const SEEDS = [
	{
		id: STABLE_DEPLOYMENTS.textToImage,
		name: 'sdxl-text-to-image',
		workflow_id: '0b9f7a8e-1c2d-4e3f-8a9b-000000000001',
		graph: workflows.textToImage,
		overrides: { 6: { inputs: { text: 'beautiful scenery nature glass bottle landscape, purple galaxy bottle,' } }, 3: { inputs: { seed: 156680208700286 } } },
		hardware: ['AMPERE_48'],
		readme: '# SDXL text to image\n\nOverride node `6` input `text` with your prompt, node `7` for the negative prompt, node `3` for `seed`/`steps`/`cfg` and node `5` for `width`/`height`/`batch_size`. Output: node `9` images.\n',
	},
	{
		id: STABLE_DEPLOYMENTS.imageToImage,
		name: 'flux-image-to-image',
		workflow_id: '0b9f7a8e-1c2d-4e3f-8a9b-000000000002',
		graph: workflows.imageToImage,
		overrides: { 10: { inputs: { image: 'https://playgrounds-storage-public.runcomfy.net/tools/7063/media/files/example.png' } }, 6: { inputs: { text: 'a watercolor painting of the same scene, soft light' } } },
		hardware: ['ADA_48_PLUS'],
		readme: '# FLUX image to image\n\nNode `10` (LoadImage) input `image` takes a public HTTPS URL or a data: URI. Node `6` is the prompt. Outputs: node `9` images and node `13` text (tags of the input image).\n',
	},
	{
		id: STABLE_DEPLOYMENTS.paused,
		name: 'paused-text-to-image',
		workflow_id: '0b9f7a8e-1c2d-4e3f-8a9b-000000000001',
		graph: workflows.textToImage,
		overrides: {},
		hardware: ['AMPERE_24'],
		is_enabled: false,
		readme: '# Paused\n\nThis deployment is paused; inference is refused until it is enabled again.\n',
	},
	{
		id: STABLE_DEPLOYMENTS.largeVideo,
		name: 'wan-image-to-video',
		workflow_id: '0b9f7a8e-1c2d-4e3f-8a9b-000000000003',
		graph: workflows.imageToVideo,
		overrides: { 52: { inputs: { image: 'https://playgrounds-storage-public.runcomfy.net/tools/7063/media/files/start.png' } } },
		hardware: ['ADA_80_PLUS'],
		large: true,
		readme: '# Wan 2.2 image to video\n\nNode `52` input `image` is the start frame, node `6` the prompt. Output: node `58` (`gifs`, an MP4 of `largeOutputBytes`).\n',
	},
];

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
		graph: seed.graph(),
		overrides: JSON.parse(JSON.stringify(seed.overrides || {})),
		readme: seed.readme || `# ${seed.name}\n`,
		large: !!seed.large,
		instanceId: uuid(),
	};
}

function seed(sb) {
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

function validateFields(body, { requireAll }) {
	const detail = [];
	const loc = (k) => ['body', k];
	const need = requireAll ? ['name', 'workflow_id', 'workflow_version', 'hardware', 'min_instances', 'max_instances', 'queue_size', 'keep_warm_duration_in_seconds'] : [];
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
	const allowed = new Set(['name', 'workflow_id', 'workflow_version', 'hardware', 'min_instances', 'max_instances', 'queue_size', 'keep_warm_duration_in_seconds', 'is_enabled']);
	const detail = validateFields(body, { requireAll: true });
	for (const k of Object.keys(body)) if (!allowed.has(k)) detail.push({ loc: ['body', k], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' });
	if (!detail.length && body.max_instances < body.min_instances) {
		detail.push({ loc: ['body', 'max_instances'], msg: 'max_instances must be greater than or equal to min_instances', type: 'value_error' });
	}
	if (detail.length) throw validationError(detail);
	const template = SEEDS.find((s) => s.workflow_id === body.workflow_id) || SEEDS[0];
	const d = makeDeployment(sb, { ...template, ...body, id: uuid(), readme: `# ${body.name}\n\nCreated from workflow ${body.workflow_id} ${body.workflow_version}.\n` }, Date.now());
	sb.deployments.set(d.id, d);
	return { body: view(sb, d) };
}

function update(sb, rq) {
	const d = getDeployment(sb, rq.params.id);
	const body = rq.body;
	if (!isPlainObject(body) || Object.keys(body).length === 0) {
		throw validationError([{ loc: ['body'], msg: 'Give at least one field to change', type: 'value_error' }]);
	}
	const allowed = new Set(['name', 'workflow_version', 'hardware', 'min_instances', 'max_instances', 'queue_size', 'keep_warm_duration_in_seconds', 'is_enabled']);
	const detail = validateFields(body, { requireAll: false });
	for (const k of Object.keys(body)) if (!allowed.has(k)) detail.push({ loc: ['body', k], msg: `Field '${k}' cannot be changed`, type: 'extra_forbidden' });
	if (sb.config.quirks.patchRequiresName && body.name === undefined) {
		detail.push({ loc: ['body', 'name'], msg: 'Deployment name is required', type: 'missing' });
	}
	const min = body.min_instances ?? d.min_instances;
	const max = body.max_instances ?? d.max_instances;
	if (!detail.length && max < min) detail.push({ loc: ['body', 'max_instances'], msg: 'max_instances must be greater than or equal to min_instances', type: 'value_error' });
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

// ---------- inference ----------
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
		throw apiError(403, 10002, `DisabledDeployment: deployment '${d.name}' (${id}) is paused. Enable it (PATCH is_enabled=true) and retry.`);
	}
	return d;
}

const DATA_URI = /^data:([a-z]+\/[a-z0-9.+-]+)?(;[a-z0-9-]+=[^;,]+)*;base64,([A-Za-z0-9+/]+={0,2})$/i;

function checkFileValue(value, loc, savedDefault) {
	if (typeof value !== 'string') return { loc, msg: 'A file input takes a public HTTPS URL or a data: URI', type: 'string_type' };
	if (value === savedDefault) return null;
	if (/^data:/i.test(value)) {
		const m = DATA_URI.exec(value.replace(/\s+/g, ''));
		if (!m || !m[1]) return { loc, msg: 'Malformed data URI: expected data:<media type>;base64,<payload>', type: 'value_error.data_uri' };
		return null;
	}
	let url;
	try {
		url = new URL(value);
	} catch {
		return { loc, msg: 'A file input takes a public HTTPS URL or a data: URI', type: 'value_error.url' };
	}
	if (url.protocol !== 'https:') return { loc, msg: `URL scheme '${url.protocol.replace(':', '')}' is not accepted; use HTTPS or a data: URI`, type: 'value_error.url' };
	return null;
}

function validateGraph(graph, locPrefix) {
	const detail = [];
	if (!isPlainObject(graph) || Object.keys(graph).length === 0) {
		return [{ loc: locPrefix, msg: 'workflow_api_json must be a non-empty object keyed by node id', type: 'value_error' }];
	}
	for (const [id, node] of Object.entries(graph)) {
		if (!isPlainObject(node) || typeof node.class_type !== 'string' || !isPlainObject(node.inputs)) {
			detail.push({ loc: [...locPrefix, id], msg: 'Each node needs a string class_type and an inputs object', type: 'value_error' });
		}
	}
	return detail;
}

function validateOverrides(graph, overrides) {
	const detail = [];
	if (!isPlainObject(overrides)) return [{ loc: ['body', 'overrides'], msg: 'overrides must be an object keyed by node id', type: 'dict_type' }];
	for (const [nodeId, patch] of Object.entries(overrides)) {
		const loc = ['body', 'overrides', nodeId];
		const node = graph[nodeId];
		if (!node) {
			detail.push({ loc, msg: `Node '${nodeId}' does not exist in the workflow (node ids: ${Object.keys(graph).join(', ')})`, type: 'value_error.unknown_node' });
			continue;
		}
		if (!isPlainObject(patch) || !isPlainObject(patch.inputs)) {
			detail.push({ loc, msg: 'Each override must be { "inputs": { <input name>: <value> } }', type: 'value_error' });
			continue;
		}
		const extra = Object.keys(patch).filter((k) => k !== 'inputs');
		for (const k of extra) detail.push({ loc: [...loc, k], msg: 'Only "inputs" can be overridden', type: 'extra_forbidden' });
		const fileInputs = workflows.FILE_INPUTS[node.class_type] || [];
		for (const [name, value] of Object.entries(patch.inputs)) {
			const iloc = [...loc, 'inputs', name];
			if (!(name in node.inputs)) {
				detail.push({
					loc: iloc,
					msg: `Node '${nodeId}' (${node.class_type}) has no input '${name}' (inputs: ${Object.keys(node.inputs).join(', ')})`,
					type: 'value_error.unknown_input',
				});
				continue;
			}
			const saved = node.inputs[name];
			if (fileInputs.includes(name)) {
				const d = checkFileValue(value, iloc, saved);
				if (d) detail.push(d);
				continue;
			}
			if (Array.isArray(saved)) continue; // a link: any literal may replace it
			if (typeof saved === 'number') {
				if (typeof value !== 'number' || !Number.isFinite(value)) detail.push({ loc: iloc, msg: 'Input should be a number', type: 'type_error' });
				else if (Number.isInteger(saved) && !Number.isInteger(value) && ['seed', 'steps', 'width', 'height', 'batch_size', 'length'].includes(name)) {
					detail.push({ loc: iloc, msg: 'Input should be an integer', type: 'int_type' });
				}
			} else if (typeof saved === 'string' && typeof value !== 'string') {
				detail.push({ loc: iloc, msg: 'Input should be a string', type: 'string_type' });
			} else if (typeof saved === 'boolean' && typeof value !== 'boolean') {
				detail.push({ loc: iloc, msg: 'Input should be a boolean', type: 'bool_type' });
			}
		}
	}
	return detail;
}

function applyOverrides(graph, overrides) {
	const g = JSON.parse(JSON.stringify(graph));
	for (const [id, patch] of Object.entries(overrides || {})) Object.assign(g[id].inputs, patch.inputs);
	return g;
}

function buildOutputs(sb, d, runId, graph) {
	const outputs = {};
	const base = `${sb.urls.files}/files/outputs/${runId}`;
	let counter = 1;
	const latentBatch = () => {
		for (const n of Object.values(graph)) if (n.class_type === 'EmptyLatentImage' && Number.isInteger(n.inputs.batch_size)) return n.inputs.batch_size;
		return 1;
	};
	for (const [id, node] of Object.entries(graph)) {
		if (node.class_type === 'SaveImage' || node.class_type === 'PreviewImage') {
			const prefix = String(node.inputs.filename_prefix || 'ComfyUI').replace(/[^A-Za-z0-9_-]/g, '_');
			const type = node.class_type === 'SaveImage' ? 'output' : 'temp';
			const n = Math.max(1, Math.min(16, latentBatch()));
			outputs[id] = {
				images: Array.from({ length: n }, () => {
					const filename = `${prefix}_${String(counter++).padStart(5, '0')}_.png`;
					return {
						filename,
						subfolder: '',
						type,
						url: d.large ? `${sb.urls.files}/files/gen/${sb.config.largeOutputBytes}/${runId}_${filename}` : `${base}/${filename}`,
					};
				}),
			};
		} else if (node.class_type === 'VHS_VideoCombine') {
			const prefix = String(node.inputs.filename_prefix || 'AnimateDiff').replace(/[^A-Za-z0-9_-]/g, '_');
			const filename = `${prefix}_${String(counter++).padStart(5, '0')}.mp4`;
			outputs[id] = {
				gifs: [
					{
						filename,
						subfolder: '',
						type: 'output',
						format: 'video/h264-mp4',
						frame_rate: node.inputs.frame_rate,
						url: d.large ? `${sb.urls.files}/files/gen/${sb.config.largeOutputBytes}/${runId}_${filename}` : `${base}/${filename}`,
					},
				],
			};
		} else if (node.class_type === 'ShowText|pysssss') {
			outputs[id] = { text: [['1girl, solo, outdoors, sky, cloud, tree, scenery, watercolor (medium)']] };
		}
	}
	return outputs;
}

function inference(sb, rq) {
	checkVersion(sb, rq);
	const d = usableDeployment(sb, rq.params.id);
	let body = rq.body;
	const quirks = sb.config.quirks;
	if (body === undefined || (isPlainObject(body) && Object.keys(body).length === 0)) {
		if (!quirks.emptyInferenceBodyRunsDefaults) {
			throw validationError([{ loc: ['body'], msg: 'Empty inference body: send {"overrides": {...}} (or a workflow_api_json)', type: 'missing' }], 'Empty inference body is not accepted');
		}
		body = {};
	}
	if (!isPlainObject(body)) throw validationError([{ loc: ['body'], msg: 'Input should be a valid dictionary', type: 'dict_type' }]);
	const detail = [];
	const allowed = new Set(['overrides', 'workflow_api_json', 'extra_data', 'webhook', 'webhook_intermediate_status']);
	for (const k of Object.keys(body)) if (!allowed.has(k)) detail.push({ loc: ['body', k], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' });
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
		throw apiError(402, 10001, `InsufficientFunds: inference costs about $${(price / 1e6).toFixed(4)} but the balance is $${(sb.wallet / 1e6).toFixed(4)}. Top up your balance.`);
	}
	const effective = applyOverrides(graph, body.overrides);
	const failure = (sb.config.failingModels && (sb.config.failingModels[d.id] || sb.config.failingModels[d.name])) || null;
	const duration = sb.config.modelDurations && (sb.config.modelDurations[d.id] ?? sb.config.modelDurations[d.name]);
	const run = createRun(sb, {
		kind: 'deployment',
		target: d.id,
		pool: `deployment:${d.id}`,
		body,
		failure,
		chargedMicro: price,
		version: rq.params.ver,
		instanceId: d.instanceId,
		webhook: rq.query.webhook,
		...(duration != null ? { durationMs: Math.max(0, duration) } : {}),
	});
	sb.wallet -= price;
	run.outputs = buildOutputs(sb, d, run.id, effective);
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

function resultOf(sb, rq) {
	const run = findRun(sb, rq);
	const st = runState(sb, run);
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
	return { body };
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
	if (!live) throw apiError(404, 404001, `Instance '${rq.params.iid}' is not running (instance ids are valid only while the instance runs)`);
	const path = String(rq.params.path || '').replace(/^\/+/, '').replace(/^api\//, '');
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
			return { body: Object.fromEntries([...new Set(Object.values(d.graph).map((n) => n.class_type))].map((c) => [c, { name: c, display_name: c, category: 'sandbox' }])) };
		case 'history':
			return { body: {} };
		case 'interrupt':
			return { raw: '', status: 200 };
		default:
			return { raw: '404: Not Found', status: 404 };
	}
}

function balance(sb) {
	return { body: { balance_usd: sb.wallet / 1e6, balance_microdollars: sb.wallet, currency: 'USD' } };
}

const base = '/prod/:ver/deployments/:id/requests/:rid';
const routes = [
	{ method: 'GET', path: '/prod/v2/balance', handler: balance },
	{ method: 'GET', path: '/prod/v2/deployments', handler: list },
	{ method: 'POST', path: '/prod/v2/deployments', handler: create },
	{ method: 'GET', path: '/prod/v2/deployments/:id', handler: (sb, rq) => ({ body: view(sb, getDeployment(sb, rq.params.id), includesOf(rq.query)) }) },
	{ method: 'PATCH', path: '/prod/v2/deployments/:id', handler: update },
	{ method: 'DELETE', path: '/prod/v2/deployments/:id', handler: remove },
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

module.exports = { routes, seed, STABLE_DEPLOYMENTS, HARDWARE_SKUS };
