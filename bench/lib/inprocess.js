'use strict';
/**
 * Benchmarks that run the BUILT nodes (dist/) inside n8n-core's engine in this process (bench/lib/harness.js),
 * against the sandbox in its own process: batch throughput, CPU while waiting and the pickers (memory: ./memory.js).
 * Each function returns plain data; bench/lib/report.js formats it.
 */
const { performance } = require('perf_hooks');

const { cpuMs, median } = require('./measure');

const MODEL = 'blackforestlabs/flux-2/flash/text-to-image';

// --------------------------------------------------------------------------------------------------------
// Sandbox log classification

const kindOf = (e) => {
	if (e.api === 'model' && e.method === 'POST' && e.path.startsWith('/v1/models/')) return 'submit';
	if (e.api === 'model' && e.method === 'GET' && /^\/v1\/requests\/[^/]+\/status$/.test(e.path)) return 'status';
	if (e.api === 'model' && e.method === 'GET' && /^\/v1\/requests\/[^/]+\/result$/.test(e.path)) return 'result';
	if (e.api === 'model' && e.method === 'GET' && e.path.startsWith('/v1/models')) return 'catalog';
	if (e.api === 'files' || e.api === 'foreign') return 'file';
	return 'other';
};

function countRequests(log) {
	const counts = { submit: 0, status: 0, result: 0, catalog: 0, file: 0, other: 0, total: log.length };
	for (const e of log) counts[kindOf(e)]++;
	const submitted = log
		.filter((e) => kindOf(e) === 'submit')
		.map((e) => e.createdId)
		.filter(Boolean);
	counts.duplicateSubmits = submitted.length - new Set(submitted).size;
	return counts;
}

/** From the first submit to the last result request, per the sandbox log (the batch itself, without engine set-up). */
function batchSpan(log, startEpoch) {
	const submits = log.filter((e) => kindOf(e) === 'submit').map((e) => e.time);
	const results = log.filter((e) => kindOf(e) === 'result').map((e) => e.time);
	if (!submits.length || !results.length) return {};
	const span = {
		firstSubmitToLastResultMs: Math.max(...results) - Math.min(...submits),
		submitPhaseMs: Math.max(...submits) - Math.min(...submits),
	};
	if (startEpoch) span.firstSubmitAtMs = Math.min(...submits) - startEpoch;
	return span;
}

/**
 * Status requests the wait engine's default schedule makes for a run of `runMs` (nodes/shared/runs.ts: the first
 * poll one interval after the submit phase, then waits of 1.5 s growing ×1.5 up to 10 s; jitter ignored): the
 * reference the measured count is compared with.
 */
function backoffPolls(runMs) {
	let t = 1000;
	let interval = 1500;
	let polls = 1;
	while (t < runMs) {
		t += interval;
		polls++;
		interval = Math.min(10000, interval * 1.5);
	}
	return polls;
}

// --------------------------------------------------------------------------------------------------------
// Model runs

function runParams(extra = {}) {
	return {
		resource: 'model',
		operation: 'run',
		model: { __rl: true, mode: 'id', value: MODEL },
		inputMode: 'json',
		inputsJson: '={{ JSON.stringify({ prompt: $json.prompt }) }}',
		downloadOutputs: false,
		...extra,
	};
}

const prompts = (n, tag) => Array.from({ length: n }, (_, i) => ({ json: { prompt: `${tag} ${i}` } }));

/**
 * n8n-workflow 2.41 runs parameter-validation regexes (here: the model locator's "By ID" pattern, checked once
 * when an execution starts) in node:vm with a 250 ms wall-clock limit. On a busy machine that limit is
 * occasionally hit by a trivial pattern and n8n refuses to start the execution, before any node runs (nothing
 * is submitted). Such a start is retried and counted (`engineRetries`, printed in the report).
 */
const engineRetries = { count: 0 };
const isRegexTimeout = (error) => /Regular expression execution timed out/.test(String(error && error.message));

async function runNodeRetrying(harness, options) {
	for (let attempt = 1; ; attempt++) {
		try {
			return await harness.runNode(options);
		} catch (error) {
			if (!isRegexTimeout(error) || attempt >= 3) throw error;
			engineRetries.count++;
		}
	}
}

async function runBatch(ctx, n, { waitOptions = {}, tag = 'bench', params = {} } = {}) {
	const { harness, creds, nodes } = ctx;
	const startEpoch = Date.now();
	const started = performance.now();
	const res = await runNodeRetrying(harness, {
		node: new nodes.RunComfyModel(),
		credentials: creds,
		inputItems: prompts(n, tag),
		parameters: runParams({ waitOptions, ...params }),
	});
	const ms = performance.now() - started;
	const endEpoch = Date.now();
	if (res.error) throw new Error(`batch of ${n} failed: ${res.error.message} ${res.error.description || ''}`);
	const ok = res.items.filter((i) => i.json.status === 'succeeded').length;
	return { ms, ok, items: res.items.length, startEpoch, endEpoch };
}

async function runSequential(ctx, n) {
	let ms = 0;
	let ok = 0;
	const started = performance.now();
	for (let i = 0; i < n; i++) {
		const one = await runBatch(ctx, 1, { tag: `seq ${i}` });
		ok += one.ok;
	}
	ms = performance.now() - started;
	return { ms, ok, items: n };
}

/**
 * Batch throughput: for each size, one execution with N items and the default wait options; the same with
 * Parallel Status Checks = 1; and N executions of one item run back to back (what a per-item loop does).
 */
/** Runs the batch `repeats` times; keeps the median run (by wall time) with its requests, and every time. */
async function medianBatch(ctx, n, repeats, waitOptions) {
	const runs = [];
	for (let i = 0; i < repeats; i++) {
		await ctx.sb.clearLog();
		const r = await runBatch(ctx, n, { waitOptions });
		const log = await ctx.sb.log();
		r.requests = countRequests(log);
		Object.assign(r, batchSpan(log, r.startEpoch));
		runs.push(r);
	}
	const sorted = [...runs].sort((a, b) => a.ms - b.ms);
	const mid = sorted[Math.floor((sorted.length - 1) / 2)];
	return { ...mid, repeats, allMs: runs.map((r) => r.ms) };
}

/** Share of each run's time `in_queue` in the batch section: on RunComfy a run often waits a good part of its time. */
const BATCH_QUEUE_SHARE = 0.4;

async function batchThroughput(ctx, { sizes, sequentialSizes, runMs, repeats = {}, log }) {
	const { sb } = ctx;
	await sb.reset({ runDurationMs: runMs, queueShare: BATCH_QUEUE_SHARE });
	// Warm-up (JIT, first connections, model schema cache of the process): not reported.
	await runBatch(ctx, 2, { tag: 'warm-up' });
	const rows = [];
	for (const n of sizes) {
		const row = { n };
		const k = repeats[n] || 1;
		row.default = await medianBatch(ctx, n, k, {});
		log(`  batch ${n}: default ${row.default.allMs.map((ms) => (ms / 1000).toFixed(2)).join(', ')} s`);
		row.concurrency1 = await medianBatch(ctx, n, k, { concurrency: 1 });
		log(`  batch ${n}: Parallel Status Checks 1 ${row.concurrency1.allMs.map((ms) => (ms / 1000).toFixed(2)).join(', ')} s`);
		if (sequentialSizes.includes(n)) {
			await sb.clearLog();
			row.sequential = await runSequential(ctx, n);
			row.sequential.requests = countRequests(await sb.log());
			log(`  batch ${n}: sequential ${(row.sequential.ms / 1000).toFixed(2)} s`);
		}
		rows.push(row);
	}
	// Sizes not run sequentially (too long for the time budget): estimated from the largest measured one.
	const measured = rows.filter((r) => r.sequential).pop();
	const perRun = measured ? measured.sequential.ms / measured.n : undefined;
	for (const row of rows) {
		if (!row.sequential && perRun) row.sequentialEstimate = { ms: perRun * row.n, basis: measured.n };
	}
	return { runMs, rows, backoffPolls: backoffPolls(runMs) };
}

/**
 * Downloads at the end of a batch: `n` runs of `runMs` (learned, ±20 %) with Download Outputs off and on, every
 * file answer held back `fileMs` by the sandbox (a CDN's time to the first byte). From the sandbox: how long the
 * node went on after the batch's last run ended (`tailMs`), and how many files it fetched before that end. The
 * median execution of `repeats` (by tail) per mode.
 */
async function downloadTail(ctx, { n, runMs, fileMs, repeats, log }) {
	const { sb } = ctx;
	await sb.reset({ runDurationMs: runMs, queueMs: 0, spread: 0.2 });
	await runBatch(ctx, n, { tag: 'files warm-up' });
	await sb.configure({ faults: { rateSlow: 1, slowMs: fileMs, pathPrefixes: ['/files/'] } });
	const modes = {};
	for (const [mode, downloadOutputs] of [
		['off', false],
		['on', true],
	]) {
		const runs = [];
		for (let i = 0; i < repeats; i++) {
			await sb.clearLog();
			const r = await runBatch(ctx, n, { tag: `files ${mode} ${i}`, params: { downloadOutputs } });
			const requests = await sb.log();
			const ids = new Set(requests.filter((e) => kindOf(e) === 'submit').map((e) => e.createdId));
			const lastEnd = Math.max(...(await sb.state()).runs.filter((run) => ids.has(run.id)).map((run) => run.finishedAt));
			const files = requests.filter((e) => e.api === 'files');
			runs.push({ tailMs: r.endEpoch - lastEnd, files: files.length, filesBeforeLastEnd: files.filter((e) => e.time < lastEnd).length });
		}
		runs.sort((a, b) => a.tailMs - b.tailMs);
		modes[mode] = { ...runs[Math.floor((runs.length - 1) / 2)], allTailMs: runs.map((x) => x.tailMs) };
		log(`  downloads ${mode}: tail ${modes[mode].allTailMs.map((ms) => (ms / 1000).toFixed(2)).join(', ')} s`);
	}
	await sb.reset({ runDurationMs: runMs, queueMs: 0 });
	return { n, runMs, fileMs, repeats, ...modes };
}

// --------------------------------------------------------------------------------------------------------
// CPU while waiting

async function cpuWhileWaiting(ctx, { items, runMs, log }) {
	const { sb } = ctx;
	await sb.reset({ runDurationMs: runMs, queueMs: 0 });
	const samples = [];
	const sample = () => samples.push({ t: Date.now(), cpu: cpuMs(process.cpuUsage()) });
	sample();
	const timer = setInterval(sample, 250);
	const cpu0 = process.cpuUsage();
	const started = Date.now();
	let result;
	try {
		result = await runBatch(ctx, items, { tag: 'cpu' });
	} finally {
		clearInterval(timer);
	}
	sample();
	const totalCpu = cpuMs(process.cpuUsage(cpu0));
	const wall = Date.now() - started;
	const log_ = await sb.log();
	const requests = countRequests(log_);
	const lastSubmit = Math.max(...log_.filter((e) => kindOf(e) === 'submit').map((e) => e.time));
	const firstResult = Math.min(...log_.filter((e) => kindOf(e) === 'result').map((e) => e.time));
	// The pure waiting window: after every run was submitted, before the first run finished.
	const from = lastSubmit + 1000;
	const to = firstResult - 500;
	const inWindow = samples.filter((s) => s.t >= from && s.t <= to);
	const first = inWindow[0];
	const last = inWindow[inWindow.length - 1];
	const windowMs = last && first ? last.t - first.t : 0;
	const windowCpu = last && first ? last.cpu - first.cpu : 0;
	const statusInWindow = log_.filter(
		(e) => kindOf(e) === 'status' && e.time >= (first ? first.t : 0) && e.time <= (last ? last.t : 0),
	).length;
	log(`  cpu: ${items} runs of ${runMs / 1000} s: ${totalCpu.toFixed(0)} ms CPU in ${(wall / 1000).toFixed(1)} s`);
	return {
		items,
		runMs,
		ok: result.ok,
		wallMs: wall,
		totalCpuMs: totalCpu,
		windowMs,
		windowCpuMs: windowCpu,
		statusInWindow,
		requests,
		backoffPolls: backoffPolls(runMs),
	};
}

// --------------------------------------------------------------------------------------------------------
// Pickers

async function pickers(ctx, { catalogExtra, repeats, log }) {
	const { harness, nodes, creds, sb } = ctx;
	await sb.reset({ extraModels: catalogExtra });
	const totalRes = await fetch(`${sb.urls.modelApi}/v1/models?limit=1`, { headers: { authorization: `Bearer ${sb.token}` } });
	const total = (await totalRes.json()).total;
	const node = new nodes.RunComfyModel();
	const cases = [
		{ label: 'no search term', filter: undefined },
		{ label: 'search "flux"', filter: 'flux' },
	];
	const rows = [];
	for (const c of cases) {
		const times = [];
		let results = 0;
		let more = false;
		for (let i = 0; i < repeats; i++) {
			const t0 = performance.now();
			const page = await harness.listSearch({
				node,
				method: 'searchModels',
				parameters: { resource: 'model', operation: 'run' },
				credentials: creds,
				filter: c.filter,
			});
			times.push(performance.now() - t0);
			results = page.results.length;
			more = Boolean(page.paginationToken);
		}
		rows.push({ ...c, first: times[0], median: median(times), results, more });
		log(`  picker ${c.label}: median ${median(times).toFixed(1)} ms`);
	}
	await sb.reset({});
	return { total, repeats, rows };
}

module.exports = {
	engineRetries,
	downloadTail,
	runNodeRetrying,
	runParams,
	batchThroughput,
	cpuWhileWaiting,
	pickers,
	countRequests,
	batchSpan,
	backoffPolls,
	MODEL,
};
