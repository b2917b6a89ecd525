'use strict';
/**
 * ai-toolkit training jobs on urls.trainer (/prod/v1/trainers/ai-toolkit/jobs...). State is computed from
 * timestamps: each submit/resume is an "attempt" (queued -> running: loading the model for trainingLoadMs at its
 * first step, then trainingStepMs per step -> ends), as ai-toolkit reports RUNNING while it loads.
 *
 * Triggers (see README): config.name containing "fail" -> FAILED every attempt; process[0].model.name_or_path
 * containing "fail" -> FAILED (fixable with edit); config.name containing "preempt" -> the first attempt STOPs
 * at half its steps with result error "Job failed: server was reclaimed.".
 */
const YAML = require('yaml');
const { apiError, validationError, iso, uuid, isPlainObject } = require('./util');

const TRAINING_FOLDER = '/app/ai-toolkit/output';
const DATASET_PREFIX = '/app/ai-toolkit/datasets/';
const GPU_TYPES = ['ADA_80_PLUS', 'HOPPER_141'];
const RECLAIMED = 'Job failed: server was reclaimed.';
const TRAINING_PRICE_MICRODOLLARS = 250_000;

const jobNotFound = (id) => apiError(404, 40451, `JOB_NOT_FOUND: training job '${id}' not found`);
const jobValidation = (detail, message) => validationError(detail, message, 42251);

function getJob(sb, id) {
	const job = sb.jobs.get(id);
	if (!job) throw jobNotFound(id);
	return job;
}

/** Parses and validates a config; returns { doc, cfg, totalSteps, saveEvery, sampleEvery, prompts }. */
function parseConfig(sb, format, text) {
	const loc = ['body', 'config_file'];
	if (format !== 'yaml' && format !== 'json') {
		throw jobValidation([{ loc: ['body', 'config_file_format'], msg: "config_file_format must be 'yaml' or 'json'", type: 'enum' }]);
	}
	if (typeof text !== 'string' || !text.trim())
		throw jobValidation([{ loc, msg: 'config_file must be a non-empty string', type: 'missing' }]);
	let doc;
	try {
		doc = format === 'json' ? JSON.parse(text) : YAML.parse(text);
	} catch (e) {
		throw jobValidation([
			{ loc, msg: `Could not parse the ${format.toUpperCase()} config: ${e.message.split('\n')[0]}`, type: 'value_error.parse' },
		]);
	}
	const detail = [];
	const cfg = isPlainObject(doc) ? doc.config : undefined;
	if (!isPlainObject(cfg)) {
		throw jobValidation([
			{ loc: [...loc, 'config'], msg: 'The ai-toolkit config needs a top-level "config" object with name and process', type: 'missing' },
		]);
	}
	if (typeof cfg.name !== 'string' || !cfg.name.trim())
		detail.push({ loc: [...loc, 'config', 'name'], msg: 'config.name is required (it is the job name)', type: 'missing' });
	if (!Array.isArray(cfg.process) || cfg.process.length === 0) {
		detail.push({ loc: [...loc, 'config', 'process'], msg: 'config.process must be a non-empty list', type: 'missing' });
		throw jobValidation(detail);
	}
	cfg.process.forEach((p, i) => {
		const ploc = [...loc, 'config', 'process', i];
		if (!isPlainObject(p)) {
			detail.push({ loc: ploc, msg: 'Each process entry must be an object', type: 'dict_type' });
			return;
		}
		if (p.training_folder !== TRAINING_FOLDER) {
			detail.push({
				loc: [...ploc, 'training_folder'],
				msg: `training_folder must be '${TRAINING_FOLDER}' (got ${JSON.stringify(p.training_folder)})`,
				type: 'value_error',
			});
		}
		if (!Array.isArray(p.datasets) || p.datasets.length === 0) {
			detail.push({ loc: [...ploc, 'datasets'], msg: 'At least one dataset is required', type: 'missing' });
			return;
		}
		p.datasets.forEach((ds, j) => {
			const dloc = [...ploc, 'datasets', j, 'folder_path'];
			const fp = isPlainObject(ds) ? ds.folder_path : undefined;
			if (
				typeof fp !== 'string' ||
				!fp.startsWith(DATASET_PREFIX) ||
				fp.length === DATASET_PREFIX.length ||
				fp.slice(DATASET_PREFIX.length).includes('/')
			) {
				detail.push({
					loc: dloc,
					msg: `folder_path must be '${DATASET_PREFIX}<dataset name>' (got ${JSON.stringify(fp)})`,
					type: 'value_error',
				});
				return;
			}
			const name = fp.slice(DATASET_PREFIX.length);
			const dataset = [...sb.datasets.values()].find((x) => x.name === name);
			if (!dataset) {
				const byId = sb.datasets.get(name);
				detail.push({
					loc: dloc,
					msg: byId ? `folder_path uses the dataset id; use its name '${byId.name}' instead` : `Dataset '${name}' does not exist`,
					type: 'value_error.dataset',
				});
				return;
			}
			const status = require('./datasets').statusOf(sb, dataset);
			if (status !== 'READY')
				detail.push({
					loc: dloc,
					msg: `Dataset '${name}' is ${status}; only READY datasets can be mounted`,
					type: 'value_error.dataset_not_ready',
				});
		});
	});
	const p0 = cfg.process[0] || {};
	const steps = p0.train && p0.train.steps;
	if (!Number.isInteger(steps) || steps < 1 || steps > 1_000_000) {
		detail.push({
			loc: [...loc, 'config', 'process', 0, 'train', 'steps'],
			msg: 'train.steps must be a positive integer',
			type: 'int_type',
		});
	}
	if (detail.length) throw jobValidation(detail);
	const saveEvery = Number.isInteger(p0.save && p0.save.save_every) && p0.save.save_every > 0 ? p0.save.save_every : 250;
	const sampleEvery =
		Number.isInteger(p0.sample && p0.sample.sample_every) && p0.sample.sample_every > 0 ? p0.sample.sample_every : saveEvery;
	const prompts =
		Array.isArray(p0.sample && p0.sample.prompts) && p0.sample.prompts.length ? p0.sample.prompts.slice(0, 4).map(String) : ['sample'];
	const modelPath = String((p0.model && p0.model.name_or_path) || '');
	return { doc, cfg, totalSteps: steps, saveEvery, sampleEvery, prompts, modelPath };
}

function checkGpu(body, { required }) {
	const detail = [];
	if (body.gpu_type === undefined) {
		if (required) detail.push({ loc: ['body', 'gpu_type'], msg: 'Field required', type: 'missing' });
	} else if (!GPU_TYPES.includes(body.gpu_type)) {
		detail.push({ loc: ['body', 'gpu_type'], msg: `gpu_type must be one of ${GPU_TYPES.join(', ')}`, type: 'enum' });
	}
	if (body.gpu_count !== undefined && body.gpu_count !== 1 && body.gpu_count !== 8) {
		detail.push({ loc: ['body', 'gpu_count'], msg: 'gpu_count must be 1 or 8', type: 'enum' });
	}
	if (body.gpu_count === 8 && body.gpu_type !== undefined && body.gpu_type !== 'ADA_80_PLUS') {
		detail.push({ loc: ['body', 'gpu_count'], msg: 'gpu_count 8 is only available with gpu_type ADA_80_PLUS', type: 'value_error' });
	}
	if (body.gpu_id !== undefined && typeof body.gpu_id !== 'string')
		detail.push({ loc: ['body', 'gpu_id'], msg: 'gpu_id must be a string', type: 'string_type' });
	return detail;
}

function stepMs(sb) {
	return Math.max(0, sb.config.trainingStepMs ?? 10);
}

function failureOf(job) {
	if (/fail/i.test(job.name)) return `RuntimeError: CUDA out of memory while training '${job.name}'. Tried to allocate 2.00 GiB.`;
	if (/fail/i.test(job.parsed.modelPath)) return `OSError: ${job.parsed.modelPath} is not a valid model identifier or local folder.`;
	return null;
}

/** Lazily computed state of the job's current attempt. */
function compute(sb, job, now = Date.now()) {
	const a = job.attempts[job.attempts.length - 1];
	const total = job.parsed.totalSteps;
	if (a.frozen) {
		const f = a.frozen;
		return { ...f, attempt: a, total, finished: f.status === 'STOPPED' && !f.resultError && f.step >= total };
	}
	// Fixed when the attempt was queued, so a later configure() does not change running jobs.
	const ms = a.stepMs ?? stepMs(sb);
	const startAt = a.queuedAt + a.queueMs;
	const failure = failureOf(job);
	let endStep = total;
	let reason = 'done';
	if (failure) {
		const failStep = Math.min(total, a.startStep + Math.max(1, Math.floor((total - a.startStep) * 0.3)));
		endStep = failStep;
		reason = 'fail';
	}
	if (a.preemptStep != null && a.preemptStep > a.startStep && a.preemptStep < endStep) {
		endStep = a.preemptStep;
		reason = 'preempt';
	}
	const stepsFrom = startAt + a.loadMs;
	const endAt = stepsFrom + (endStep - a.startStep) * ms;
	const stepAt = (t) => Math.min(endStep, a.startStep + (ms > 0 ? Math.floor(Math.max(0, t - stepsFrom) / ms) : endStep));
	const base = { attempt: a, total, startAt, endAt };
	if (a.cancelAt != null && a.cancelAt < endAt) {
		if (a.cancelAt < startAt) return { ...base, status: 'CANCELED', step: a.startStep, startedAt: null, finishedAt: a.cancelAt };
		return { ...base, status: 'CANCELED', step: stepAt(a.cancelAt), startedAt: startAt, finishedAt: a.cancelAt };
	}
	if (now < startAt) return { ...base, status: 'IN_QUEUE', step: a.startStep, startedAt: null, finishedAt: null };
	if (now < endAt) return { ...base, status: 'RUNNING', step: stepAt(now), startedAt: startAt, finishedAt: null };
	if (reason === 'fail') return { ...base, status: 'FAILED', step: endStep, startedAt: startAt, finishedAt: endAt, error: failure };
	if (reason === 'preempt')
		return { ...base, status: 'STOPPED', step: endStep, startedAt: startAt, finishedAt: endAt, resultError: RECLAIMED };
	return { ...base, status: 'STOPPED', step: endStep, startedAt: startAt, finishedAt: endAt, finished: true };
}

function checkpointSteps(job, maxStep) {
	const steps = [];
	const { saveEvery, totalSteps } = job.parsed;
	for (let s = saveEvery; s < totalSteps && s <= maxStep; s += saveEvery) steps.push(s);
	return steps;
}

const pad9 = (n) => String(n).padStart(9, '0');

function statusView(sb, job, now = Date.now()) {
	const st = compute(sb, job, now);
	const first = job.attempts[0];
	return {
		id: job.id,
		job_id: job.id,
		name: job.name,
		status: st.status,
		progress: { current_step: st.step, total_steps: st.total, percent: st.total ? Math.floor((st.step * 100) / st.total) : 0 },
		error: st.error || null,
		created_at: iso(job.createdAt),
		started_at: iso(st.startedAt ?? (job.attempts.length > 1 ? first.startedAt : null)),
		finished_at: iso(st.finishedAt),
		gpu_type: job.gpu_type,
		gpu_count: job.gpu_count,
		result_url: `${sb.urls.trainer}/prod/v1/trainers/ai-toolkit/jobs/${job.id}/result`,
	};
}

function resultView(sb, job, now = Date.now()) {
	const st = compute(sb, job, now);
	const maxStep = Math.max(job.stepsBefore, st.step);
	const base = `${sb.urls.files}/files/train/${job.id}`;
	const checkpoints = checkpointSteps(job, maxStep).map((s) => ({ path: `${base}/${job.name}_${pad9(s)}.safetensors`, step: s }));
	if (st.finished) checkpoints.push({ path: `${base}/${job.name}.safetensors`, step: st.total });
	const samples = [];
	const { sampleEvery, prompts, totalSteps } = job.parsed;
	for (let s = sampleEvery; s <= Math.min(maxStep, totalSteps); s += sampleEvery) {
		prompts.forEach((prompt, i) => samples.push({ path: `${base}/samples/${pad9(s)}_${i}.jpg`, step: s, prompt }));
	}
	const out = {
		id: job.id,
		status: st.status,
		artifacts: { checkpoints, samples, config: { path: `${base}/config.${job.format === 'json' ? 'json' : 'yaml'}` } },
	};
	if (st.error) out.error = { message: st.error, code: 'TRAINING_ERROR' };
	else if (st.resultError) out.error = { message: st.resultError, code: 'TRAINING_ERROR' };
	return out;
}

function snapshot(sb, job, now) {
	const st = compute(sb, job, now);
	return { id: job.id, name: job.name, status: st.status, current_step: st.step, total_steps: st.total, attempts: job.attempts.length };
}

function charge(sb) {
	const price = TRAINING_PRICE_MICRODOLLARS;
	if (sb.wallet < price) {
		throw apiError(
			402,
			40251,
			`INSUFFICIENT_FUNDS: a training job needs $${(price / 1e6).toFixed(2)} but the balance is $${(sb.wallet / 1e6).toFixed(2)}. Top up your balance.`,
		);
	}
	sb.wallet -= price;
	return price;
}

function newAttempt(sb, startStep, preemptStep) {
	return {
		queuedAt: Date.now(),
		queueMs: Math.max(0, sb.config.trainingQueueMs ?? sb.config.queueMs ?? 0),
		stepMs: stepMs(sb),
		loadMs: Math.max(0, sb.config.trainingLoadMs ?? 0),
		startStep,
		preemptStep,
		cancelAt: null,
	};
}

function submit(sb, rq) {
	const body = rq.body;
	if (!isPlainObject(body)) throw jobValidation([{ loc: ['body'], msg: 'Input should be a valid dictionary', type: 'dict_type' }]);
	const allowed = new Set(['config_file_format', 'config_file', 'gpu_type', 'gpu_count', 'gpu_id']);
	const detail = [];
	for (const k of Object.keys(body))
		if (!allowed.has(k)) detail.push({ loc: ['body', k], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' });
	detail.push(...checkGpu(body, { required: true }));
	if (detail.length) throw jobValidation(detail);
	const format = body.config_file_format ?? 'yaml';
	const parsed = parseConfig(sb, format, body.config_file);
	const price = charge(sb);
	const name = parsed.cfg.name;
	const preemptStep = /preempt/i.test(name) ? Math.max(1, Math.floor(parsed.totalSteps / 2)) : null;
	const job = {
		id: uuid(),
		name,
		format,
		configText: body.config_file,
		parsed,
		gpu_type: body.gpu_type,
		gpu_count: body.gpu_count ?? 1,
		gpu_id: body.gpu_id,
		createdAt: Date.now(),
		attempts: [newAttempt(sb, 0, preemptStep)],
		stepsBefore: 0,
		chargedMicro: price,
	};
	sb.jobs.set(job.id, job);
	return { body: statusView(sb, job), createdId: job.id };
}

function cancel(sb, rq) {
	const job = getJob(sb, rq.params.id);
	const now = Date.now();
	const st = compute(sb, job, now);
	if (st.status !== 'IN_QUEUE' && st.status !== 'RUNNING') {
		throw apiError(409, 40952, `JOB_NOT_CANCELLABLE: job '${job.id}' is ${st.status}; only IN_QUEUE or RUNNING jobs can be cancelled`);
	}
	st.attempt.cancelAt = now;
	return { body: { id: job.id, name: job.name, status: 'CANCELED' } };
}

function resume(sb, rq) {
	const job = getJob(sb, rq.params.id);
	const body = rq.body === undefined ? {} : rq.body;
	if (!isPlainObject(body)) throw jobValidation([{ loc: ['body'], msg: 'Input should be a valid dictionary', type: 'dict_type' }]);
	const detail = checkGpu(
		{ ...body, gpu_type: body.gpu_type ?? (body.gpu_count !== undefined ? job.gpu_type : undefined) },
		{ required: false },
	);
	for (const k of Object.keys(body))
		if (!['gpu_type', 'gpu_count', 'gpu_id'].includes(k))
			detail.push({ loc: ['body', k], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' });
	if (detail.length) throw jobValidation(detail);
	const now = Date.now();
	const st = compute(sb, job, now);
	if (st.status === 'IN_QUEUE' || st.status === 'RUNNING') {
		throw apiError(409, 40953, `JOB_NOT_RESUMABLE: job '${job.id}' is ${st.status}`);
	}
	if (st.finished) throw apiError(409, 40954, `JOB_ALREADY_COMPLETED: job '${job.id}' finished all ${st.total} steps`);
	const price = charge(sb);
	job.chargedMicro += price;
	job.stepsBefore = Math.max(job.stepsBefore, st.step);
	const ckpts = checkpointSteps(job, job.stepsBefore);
	const startStep = ckpts.length ? ckpts[ckpts.length - 1] : 0;
	job.attempts[job.attempts.length - 1].startedAt = st.startedAt;
	if (body.gpu_type !== undefined) job.gpu_type = body.gpu_type;
	if (body.gpu_count !== undefined) job.gpu_count = body.gpu_count;
	if (body.gpu_id !== undefined) job.gpu_id = body.gpu_id;
	job.attempts.push(newAttempt(sb, startStep, null));
	return { body: statusView(sb, job), createdId: `${job.id}/resume/${job.attempts.length - 1}` };
}

function edit(sb, rq) {
	const job = getJob(sb, rq.params.id);
	const body = rq.body;
	if (!isPlainObject(body)) throw jobValidation([{ loc: ['body'], msg: 'Input should be a valid dictionary', type: 'dict_type' }]);
	const st = compute(sb, job);
	if (!['STOPPED', 'CANCELED', 'FAILED'].includes(st.status)) {
		throw apiError(409, 40955, `JOB_NOT_EDITABLE: job '${job.id}' is ${st.status}; edit is allowed only while STOPPED, CANCELED or FAILED`);
	}
	const format = body.config_file_format ?? 'yaml';
	const parsed = parseConfig(sb, format, body.config_file);
	if (parsed.cfg.name !== job.name) {
		throw jobValidation(
			[
				{
					loc: ['body', 'config_file', 'config', 'name'],
					msg: `config.name must stay '${job.name}' (got '${parsed.cfg.name}')`,
					type: 'value_error.name_mismatch',
				},
			],
			`config.name must equal the original job name '${job.name}'`,
		);
	}
	// the outcome of the finished attempt must not change with the new config
	const { attempt: _a, ...frozen } = st;
	job.attempts[job.attempts.length - 1].frozen = frozen;
	job.parsed = parsed;
	job.format = format;
	job.configText = body.config_file;
	return { body: { id: job.id, name: job.name, status: st.status } };
}

const P = '/prod/v1/trainers/ai-toolkit/jobs';
const routes = [
	{ method: 'POST', path: P, paid: true, handler: submit },
	{ method: 'GET', path: `${P}/:id/status`, handler: (sb, rq) => ({ body: statusView(sb, getJob(sb, rq.params.id)) }) },
	{ method: 'GET', path: `${P}/:id/result`, handler: (sb, rq) => ({ body: resultView(sb, getJob(sb, rq.params.id)) }) },
	{ method: 'POST', path: `${P}/:id/cancel`, handler: cancel },
	{ method: 'POST', path: `${P}/:id/resume`, paid: true, handler: resume },
	{ method: 'POST', path: `${P}/:id/edit`, handler: edit },
].map((r) => ({ ...r, api: 'trainer' }));

module.exports = { routes, snapshot };
