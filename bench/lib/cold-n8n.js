'use strict';
/**
 * Cold batches in the REAL n8n (issue 28's "Measured in `npm run bench`"): for batches of `n` runs of each mean run
 * time (±20 % spread, the sandbox's queueing as in detection-n8n), the batch's wall time (from its first submit to
 * the last result fetch, from the sandbox's log) and its status and result requests:
 *
 *   cli      the Model node, `n8n execute` (mode cli, a process of its own, so nothing learned; one user folder per
 *            run time, so they run side by side);
 *   start    one `n8n start`, workflows behind webhooks: the Model node (default wait options), the Wait 1 s and the
 *            Wait 5 s loop (bench/lib/real-n8n.js's builders). Round "cold", right after the start: every workflow
 *            once (the node workflow's first execution of its model); round "warm": all of them again.
 *
 * What the node learns lives in the n8n process only (docs/waiting.md): a restart, another `n8n execute` or another
 * queue-mode worker starts as the first execution here.
 *
 * Every (run time, workflow) has a model of its own within one n8n database, so nothing learned for one leaks into
 * another; executions are told apart by their prompts (`<tag> <i>`). The sandbox gives the n-th run of every model
 * the same draw (`drawsPerTarget`, restarted for each part), so the node and the loops wait for the same run times.
 */
const h = require('../../scripts/e2e/n8n');
const { waitFor } = require('../../scripts/e2e/parking');
const { SandboxView } = require('./detection-n8n');
const { behindWebhook, headerCredential, httpLoopWorkflow, nodeWorkflow, promptOnlyModels } = require('./real-n8n');

const SPREAD = 0.2;
const QUEUE_MS = 300;
/** Share of each run's time `in_queue` in the parts above: on RunComfy a run often waits a good part of its time. */
const QUEUE_SHARE = 0.4;
/** The queue-share part: these shares side by side, and runs queued one after another (one instance of the model). */
const QUEUE_SHARES = [0, 0.4, 0.8, 'one after another'];
const SEED = 28;
const NODE_NAME = 'RunComfy Model';

/** The `n8n start` workflows; `id`: two digits of their webhook's ids. */
const WEBHOOKS = [
	{ key: 'node', id: '20', label: 'RunComfy Model node' },
	{ key: 'wait1', id: '22', label: 'HTTP Request + Wait 1 s + IF loop', waitSeconds: 1 },
	{ key: 'wait5', id: '23', label: 'HTTP Request + Wait 5 s + IF loop', waitSeconds: 5 },
];

function webhookWorkflow(p, { sb, credential, header }) {
	const wf = p.waitSeconds
		? httpLoopWorkflow({ n: 1, waitSeconds: p.waitSeconds, modelApi: sb.urls.modelApi, headerCred: header })
		: nodeWorkflow({ n: 1, credential });
	return behindWebhook(wf, {
		id: p.id,
		path: p.path,
		name: `Bench cold: ${p.label}`,
		modelApi: sb.urls.modelApi,
	});
}

/** `n8n execute`'s workflow: the manual trigger, `n` prompts `cold-n8n cli <i>`, the node on `model`. */
function cliWorkflow({ n, model, credential }) {
	const wf = nodeWorkflow({ n, credential });
	const prompts = Array.from({ length: n }, (_, i) => `cold-n8n cli ${i}`);
	wf.name = `Bench cold: RunComfy Model node (${n} runs, n8n execute)`;
	wf.nodes = wf.nodes.map((node) => {
		if (node.name === 'Prompts') return { ...node, parameters: { ...node.parameters, jsonOutput: JSON.stringify({ prompts }) } };
		if (node.name === NODE_NAME) return { ...node, parameters: { ...node.parameters, model: { __rl: true, mode: 'id', value: model } } };
		return node;
	});
	return wf;
}

const promptOf = (run) => String((run.body && run.body.prompt) ?? '');

/**
 * One batch's figures from the sandbox: wall time from its first submit to the last result fetch that saw a run
 * ended (what the workflow waited for), how long after the last run's end that was, and its requests.
 */
function batchFigures(view, runs) {
	let status = 0;
	let result = 0;
	let end = -Infinity;
	let firstRequestMs = Infinity;
	for (const r of runs) {
		const req = view.byRequest.get(r.id) || { status: [], result: [] };
		firstRequestMs = Math.min(firstRequestMs, ...[...req.status, ...req.result].map((t) => t - r.createdAt));
		status += req.status.length;
		result += req.result.length;
		const seen = req.result.filter((t) => r.finishedAt != null && t >= r.finishedAt);
		end = Math.max(end, seen.length ? Math.min(...seen) : NaN);
	}
	const firstSubmit = Math.min(...runs.map((r) => r.createdAt));
	const lastEnd = Math.max(...runs.map((r) => r.finishedAt));
	// Per run, from the batch's first submit: its start and end, and every status (s) and result (r) request.
	const trace = runs.map((r) => {
		const req = view.byRequest.get(r.id) || { status: [], result: [] };
		const rel = (t) => t - firstSubmit;
		return {
			created: rel(r.createdAt),
			started: r.startedAt == null ? null : rel(r.startedAt),
			finished: rel(r.finishedAt),
			status: req.status.map(rel),
			result: req.result.map(rel),
		};
	});
	return {
		runs: runs.length,
		wallMs: end - firstSubmit,
		afterLastEndMs: end - lastEnd,
		lastRunMs: lastEnd - firstSubmit,
		firstRequestMs,
		status,
		result,
		requests: status + result,
		trace,
	};
}

const fetchedAll = (view, runs, count) =>
	runs.length >= count &&
	runs.every((r) => r.finishedAt != null && (view.byRequest.get(r.id)?.result ?? []).some((t) => t >= r.finishedAt));

/** The sandbox's runs and log, refreshed one at a time (concurrent refreshes would count log entries twice). */
function sandboxWatcher(sb) {
	const view = new SandboxView(sb);
	let chain = Promise.resolve();
	// Once more on a failed request (the sandbox may close an idle keep-alive socket as it is reused); the view
	// changes only once both of its requests were answered, so nothing is counted twice.
	const once = async () => {
		try {
			await view.refresh();
		} catch {
			await view.refresh();
		}
	};
	const refresh = () => (chain = chain.catch(() => undefined).then(once));
	return {
		view,
		refresh,
		/** Waits until `count` runs chosen by `select` all had their result fetched after their end; their figures. */
		async batch(what, select, count, meanMs) {
			const runs = await waitFor(
				what,
				async () => {
					await refresh();
					const list = view.runs.filter(select);
					return fetchedAll(view, list, count) ? list : undefined;
				},
				{ limitMs: meanMs * 3 + 240_000, intervalMs: 1000 },
			);
			return batchFigures(view, runs);
		},
	};
}

const withTag = (model, tag) => (r) => r.target === model && promptOf(r).startsWith(`${tag} `);

async function post(url, items) {
	const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ items }) });
	if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${await res.text()}`);
}

const itemsOf = (model, tag, n) => Array.from({ length: n }, (_, i) => ({ model, prompt: `${tag} ${i}` }));

// ------------------------------------------------------------------------------------------------------------

/** `n8n execute` once per run time, each run time in a user folder of its own (side by side). */
async function cliPhase(sb, watch, { lengthsMs, n, modelFor, log }) {
	const credential = h.sandboxCredential(sb);
	return Object.fromEntries(
		await Promise.all(
			lengthsMs.map(async (meanMs) => {
				const model = modelFor(meanMs, 'node');
				const uf = h.createUserFolder();
				try {
					await h.importCredential(uf, [{ ...credential }]);
					const wf = await h.importWorkflow(uf, cliWorkflow({ n, model, credential }));
					log(`  cold-n8n: ${meanMs / 1000} s runs: n8n execute`);
					const from = Date.now();
					let res;
					for (let attempt = 1; attempt <= 3; attempt++) {
						res = await h.execute(uf, wf.id, { timeoutMs: meanMs * 3 + 300_000 });
						// n8n's 250 ms limit on validation regexes, hit on a busy machine before any node ran (real-n8n.js).
						if (res.run?.status === 'success' || !/Regular expression execution timed out/.test(`${res.stdout}\n${res.stderr}`)) break;
					}
					if (res.run?.status !== 'success')
						throw new Error(
							`n8n execute ended ${res.run?.status ?? `without an execution (exit ${res.code})`}: ${res.stderr.slice(-2000)}`,
						);
					const to = Date.now();
					const first = await watch.batch(
						"the n8n execute's runs",
						(r) => r.target === model && r.createdAt >= from && r.createdAt <= to && promptOf(r).startsWith('cold-n8n cli '),
						n,
						meanMs,
					);
					return [meanMs, { first }];
				} finally {
					uf.cleanup();
				}
			}),
		),
	);
}

/** A user folder with the node's credential and the loops' header credential (cleaned up if the import fails). */
async function folderWithCredentials(sb) {
	const uf = h.createUserFolder();
	const credential = h.sandboxCredential(sb);
	const header = headerCredential(sb);
	try {
		await h.importCredential(uf, [credential, header]);
	} catch (error) {
		uf.cleanup();
		throw error;
	}
	return { uf, credential, header };
}

async function startPhase(sb, watch, { lengthsMs, n, modelFor, log }) {
	const { uf, credential, header } = await folderWithCredentials(sb);
	let n8n;
	try {
		const specs = WEBHOOKS.map((p) => ({ ...p, path: `bench-cold-${p.key}` }));
		const workflows = await h.importWorkflow(
			uf,
			specs.map((p) => webhookWorkflow(p, { sb, credential, header })),
		);
		const spec = (key) => specs.findIndex((p) => p.key === key);
		const allIds = workflows.map((wf) => wf.id);
		const start = async () => {
			n8n = await h.startN8n(uf, { readyTimeoutMs: 180_000 });
			await n8n.rest.setupOwner();
			for (const wf of workflows) {
				await n8n.rest.activateWorkflow(wf.id);
				const st = await n8n.rest.waitForPublication(wf.id);
				if (st.status !== 'published') throw new Error(`publishing "${wf.name}" ended ${st.status}: ${JSON.stringify(st.triggers)}`);
			}
		};
		const round = async (label, keys) => {
			log(`  cold-n8n: n8n start, round "${label}": ${keys.join(', ')} for ${lengthsMs.map((ms) => `${ms / 1000} s`).join(', ')}`);
			const tag = (meanMs, key) => `cold-n8n ${label} ${key} ${meanMs}`;
			const pairs = lengthsMs.flatMap((meanMs) => keys.map((key) => [meanMs, key]));
			await Promise.all(
				pairs.map(([meanMs, key]) =>
					post(`${n8n.url}/webhook/${specs[spec(key)].path}`, itemsOf(modelFor(meanMs, key), tag(meanMs, key), n)),
				),
			);
			const figures = await Promise.all(
				pairs.map(([meanMs, key]) => watch.batch(`${label} ${key} ${meanMs}`, withTag(modelFor(meanMs, key), tag(meanMs, key)), n, meanMs)),
			);
			await untilEnded(n8n.rest, allIds);
			const out = {};
			pairs.forEach(([meanMs, key], i) => ((out[meanMs] ||= {})[key] = figures[i]));
			return out;
		};

		await start();
		const cold = await round('cold', ['node', 'wait1', 'wait5']);
		const warm = await round('warm', ['node', 'wait1', 'wait5']);
		const executions = {};
		for (const [i, p] of specs.entries()) {
			const list = await n8n.rest.listExecutions({ workflowId: allIds[i], limit: 100 });
			const e = (executions[p.key] ||= { total: 0, succeeded: 0 });
			e.total += list.length;
			e.succeeded += list.filter((x) => x.status === 'success').length;
		}
		return { cold, warm, executions };
	} finally {
		await n8n?.stop();
		uf.cleanup();
	}
}

/** Waits until no execution of the workflows is new, running or waiting. */
async function untilEnded(rest, workflowIds) {
	for (const workflowId of workflowIds) {
		await waitFor(
			'the executions to end',
			async () => {
				const list = await rest.listExecutions({ workflowId, limit: 100 });
				return list.every((e) => !['new', 'running', 'waiting'].includes(e.status)) ? list : undefined;
			},
			{ limitMs: 120_000, intervalMs: 500 },
		);
	}
}

/**
 * Queue shares: one `n8n start`; for every (run time, queue share) a batch of the Model node (default wait options,
 * its first execution of a model of its own) and of the Wait 1 s and 5 s loops, all at once. A share queues that
 * part of each run's time (`in_queue`, `queue_position`); 'one after another' queues the runs behind each other on
 * one instance (`capacities: 1`), each of `meanMs / n`, so the batch lasts about `meanMs`.
 */
async function sharesPhase(sb, watch, { lengthsMs, n, shares, models, log }) {
	const keys = ['node', 'wait1', 'wait5'];
	const cells = lengthsMs.flatMap((meanMs) => shares.flatMap((share) => keys.map((key) => ({ meanMs, share, key }))));
	if (models.length < cells.length)
		throw new Error(`the queue-share part needs ${cells.length} prompt-only models, the sandbox has ${models.length}`);
	cells.forEach((c, i) => (c.model = models[i]));
	const serial = (c) => typeof c.share !== 'number';
	await sb.configure({
		modelDurations: Object.fromEntries(cells.map((c) => [c.model, serial(c) ? c.meanMs / n : c.meanMs])),
		// One after another: all of each run's time on the instance, none in the shared queue before it.
		queueShares: Object.fromEntries(cells.map((c) => [c.model, serial(c) ? 0 : c.share])),
		capacities: Object.fromEntries(cells.filter(serial).map((c) => [c.model, 1])),
	});
	const { uf, credential, header } = await folderWithCredentials(sb);
	let n8n;
	try {
		const specs = WEBHOOKS.filter((p) => keys.includes(p.key)).map((p) => ({ ...p, path: `bench-cold-share-${p.key}` }));
		const workflows = await h.importWorkflow(
			uf,
			specs.map((p) => webhookWorkflow(p, { sb, credential, header })),
		);
		// A loaded machine (the figures are ratios side by side) may take minutes to start n8n.
		n8n = await h.startN8n(uf, { readyTimeoutMs: 600_000 });
		await n8n.rest.setupOwner();
		for (const wf of workflows) {
			await n8n.rest.activateWorkflow(wf.id);
			const st = await n8n.rest.waitForPublication(wf.id);
			if (st.status !== 'published') throw new Error(`publishing "${wf.name}" ended ${st.status}`);
		}
		log(
			`  cold-n8n: queue shares ${shares.join(', ')} for ${lengthsMs.map((ms) => `${ms / 1000} s`).join(', ')}: ${cells.length} batches at once`,
		);
		const tag = (c) => `cold-n8n share ${c.key} ${c.meanMs} ${String(c.share).replace(/ /g, '-')}`;
		await Promise.all(cells.map((c) => post(`${n8n.url}/webhook/${specs.find((p) => p.key === c.key).path}`, itemsOf(c.model, tag(c), n))));
		const figures = await Promise.all(cells.map((c) => watch.batch(tag(c), withTag(c.model, tag(c)), n, c.meanMs)));
		await untilEnded(
			n8n.rest,
			workflows.map((wf) => wf.id),
		);
		return cells.map((c, i) => ({ meanMs: c.meanMs, share: c.share, key: c.key, ...figures[i] }));
	} finally {
		await n8n?.stop();
		uf.cleanup();
		await sb.configure({ queueShares: Object.fromEntries(cells.map((c) => [c.model, null])) });
	}
}

// ------------------------------------------------------------------------------------------------------------

/**
 * The section; `sb` is the benchmark's sandbox process. `lengthsMs`: mean run times; `n`: runs per batch;
 * `parts`: which of cli, start, shares to run; `shares`: the queue shares of the shares part.
 */
async function coldInN8n(sb, { lengthsMs, n, parts = ['cli', 'start', 'shares'], shares = QUEUE_SHARES, log }) {
	await h.ensureN8n({ log });
	const usable = await promptOnlyModels(sb);
	// One model per (run time, `n8n start` workflow); the `n8n execute` folders are separate, so they reuse the
	// node workflow's models.
	const keys = WEBHOOKS.map((p) => p.key);
	if (usable.length < lengthsMs.length * keys.length)
		throw new Error(`cold-n8n needs ${lengthsMs.length * keys.length} prompt-only models, the sandbox has ${usable.length}`);
	const modelFor = (meanMs, key) => usable[lengthsMs.indexOf(meanMs) * keys.length + keys.indexOf(key)];
	const modelDurations = Object.fromEntries(lengthsMs.flatMap((ms) => keys.map((key) => [modelFor(ms, key), ms])));
	await sb.reset({ spread: SPREAD, queueMs: QUEUE_MS, queueShare: QUEUE_SHARE, seed: SEED, drawsPerTarget: true, modelDurations });
	const watch = sandboxWatcher(sb);
	const started = Date.now();
	const opts = { lengthsMs, n, modelFor, log };
	// Each part starts from the first draw (a new seed restarts every model's stream).
	const part = async (run) => {
		await sb.configure({ seed: SEED });
		return run(sb, watch, opts);
	};
	try {
		const cli = parts.includes('cli') ? await part(cliPhase) : undefined;
		const start = parts.includes('start') ? await part(startPhase) : undefined;
		// Last: it sets its own models' durations, queue shares and capacities.
		const byShare = parts.includes('shares')
			? await part((s, w) => sharesPhase(s, w, { lengthsMs, n, shares, models: usable, log }))
			: undefined;
		return {
			n,
			lengthsMs,
			spread: SPREAD,
			queueMs: QUEUE_MS,
			queueShare: QUEUE_SHARE,
			seed: SEED,
			cli,
			start,
			shares: byShare,
			sectionMs: Date.now() - started,
		};
	} finally {
		await sb.reset({});
	}
}

module.exports = { coldInN8n };
