'use strict';
/**
 * Cold batches and restarts in the REAL n8n (issue 28's "Measured in `npm run bench`"): for batches of `n` runs of
 * each mean run time (±20 % spread, the sandbox's queueing as in detection-n8n), the batch's wall time (from its
 * first submit to the last result fetch, from the sandbox's log) and its status and result requests:
 *
 *   cli      the Model node with Wait Options → Remember Run Times, `n8n execute` (mode cli, a process of its own):
 *            the first execution starts cold; a second `n8n execute` (a new process) starts from what the first
 *            saved in the workflow's static data (one user folder per run time, so they run side by side);
 *   start    one `n8n start`, workflows behind webhooks: the Model node (default wait options), the Model node with
 *            Remember Run Times (one workflow per run time, since overlapping executions of one workflow each write
 *            back the static data they loaded), the Wait 1 s and the Wait 5 s loop (bench/lib/real-n8n.js's builders).
 *            Round "cold", right after the start: every workflow once (the node workflows' first execution of their
 *            model); round "warm": the node and both loops again. Then n8n is stopped and started again (same
 *            database) and round "restart" runs the node workflows once more;
 *   queue    queue mode (Redis + PostgreSQL, scripts/queue), a main and two workers, the Remember workflows: each
 *            learns on worker-1 alone; worker-2 is started, then two executions per run time are queued (the first
 *            ones first); which worker ran what is read from the workers' logs and reported per execution, with the
 *            run-time keys in the static data the execution was queued with.
 *
 * Every (run time, workflow) has a model of its own within one n8n database, so nothing learned for one leaks into
 * another; executions are told apart by their prompts (`<tag> <i>`). The sandbox gives the n-th run of every model
 * the same draw (`drawsPerTarget`, restarted for each part), so the node and the loops wait for the same run times.
 */
const h = require('../../scripts/e2e/n8n');
const q = require('../../scripts/queue/queue');
const { startRun, waitFor } = require('../../scripts/e2e/parking');
const { SandboxView } = require('./detection-n8n');
const { behindWebhook, httpLoopWorkflow, nodeWorkflow, promptOnlyModels } = require('./real-n8n');

const SPREAD = 0.2;
const QUEUE_MS = 300;
/** Share of each run's time `in_queue` in the parts above: on RunComfy a run often waits a good part of its time. */
const QUEUE_SHARE = 0.4;
/** The queue-share part: these shares side by side, and runs queued one after another (one instance of the model). */
const QUEUE_SHARES = [0, 0.4, 0.8, 'one after another'];
const SEED = 28;
const REMEMBER = { rememberRunTimes: true };
const NODE_NAME = 'RunComfy Model';

/** The `n8n start` workflows; `id`: two digits of their webhook's ids. */
const WEBHOOKS = [
	{ key: 'node', id: '20', label: 'RunComfy Model node' },
	{ key: 'remember', id: '21', label: 'RunComfy Model node, Remember Run Times', waitOptions: REMEMBER },
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
		name: `Bench cold: ${p.label}${p.meanMs ? ` (${p.meanMs / 1000} s runs)` : ''}`,
		modelApi: sb.urls.modelApi,
		waitOptions: p.waitOptions,
	});
}

/** `n8n execute`'s workflow: the manual trigger, `n` prompts `cold-n8n cli <i>`, the node on `model`, Remember on. */
function cliWorkflow({ n, model, credential }) {
	const wf = nodeWorkflow({ n, credential });
	const prompts = Array.from({ length: n }, (_, i) => `cold-n8n cli ${i}`);
	wf.name = `Bench cold: RunComfy Model node, Remember Run Times (${n} runs, n8n execute)`;
	wf.nodes = wf.nodes.map((node) => {
		if (node.name === 'Prompts') return { ...node, parameters: { ...node.parameters, jsonOutput: JSON.stringify({ prompts }) } };
		if (node.name === NODE_NAME)
			return { ...node, parameters: { ...node.parameters, model: { __rl: true, mode: 'id', value: model }, waitOptions: REMEMBER } };
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
	return {
		runs: runs.length,
		wallMs: end - firstSubmit,
		afterLastEndMs: end - lastEnd,
		lastRunMs: lastEnd - firstSubmit,
		firstRequestMs,
		status,
		result,
		requests: status + result,
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

/** A header credential with the sandbox token, for the loops' HTTP Request nodes. */
const headerCredential = (sb) => ({
	id: h.newId(),
	name: 'RunComfy token (Header Auth)',
	type: 'httpHeaderAuth',
	data: { name: 'Authorization', value: `Bearer ${sb.token}` },
});

async function post(url, items) {
	const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ items }) });
	if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${await res.text()}`);
}

const itemsOf = (model, tag, n) => Array.from({ length: n }, (_, i) => ({ model, prompt: `${tag} ${i}` }));

// ------------------------------------------------------------------------------------------------------------

/** `n8n execute` twice per run time, each run time in a user folder of its own (side by side). */
async function cliPhase(sb, watch, { lengthsMs, n, modelFor, log }) {
	const credential = h.sandboxCredential(sb);
	return Object.fromEntries(
		await Promise.all(
			lengthsMs.map(async (meanMs) => {
				const model = modelFor(meanMs, 'remember');
				const uf = h.createUserFolder();
				try {
					await h.importCredential(uf, [{ ...credential }]);
					const wf = await h.importWorkflow(uf, cliWorkflow({ n, model, credential }));
					const figures = [];
					for (const which of ['first', 'second']) {
						log(`  cold-n8n: ${meanMs / 1000} s runs: n8n execute, ${which} process`);
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
						figures.push(
							await watch.batch(
								`the ${which} n8n execute's runs`,
								(r) => r.target === model && r.createdAt >= from && r.createdAt <= to && promptOf(r).startsWith('cold-n8n cli '),
								n,
								meanMs,
							),
						);
					}
					return [meanMs, { first: figures[0], second: figures[1] }];
				} finally {
					uf.cleanup();
				}
			}),
		),
	);
}

/** Saved run-time keys in a workflow's static data (the node's part), as n8n stored it. */
function savedKeys(staticData) {
	const data = typeof staticData === 'string' ? JSON.parse(staticData || '{}') : staticData || {};
	const k = data[`node:${NODE_NAME}`]?.runTimes?.k;
	return k ? Object.keys(k).length : 0;
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
		// The Remember workflow once per run time: n8n writes back the static data an execution loaded at its start,
		// so of overlapping executions of one workflow only the last to end would keep its run times.
		const specs = WEBHOOKS.flatMap((p) =>
			p.key === 'remember'
				? lengthsMs.map((meanMs, i) => ({ ...p, id: `3${i}`, path: `bench-cold-remember-${i}`, meanMs }))
				: [{ ...p, path: `bench-cold-${p.key}` }],
		);
		const workflows = await h.importWorkflow(
			uf,
			specs.map((p) => webhookWorkflow(p, { sb, credential, header })),
		);
		const spec = (key, meanMs) => specs.findIndex((p) => p.key === key && (!p.meanMs || p.meanMs === meanMs));
		const allIds = workflows.map((wf) => wf.id);
		const start = async (first) => {
			n8n = await h.startN8n(uf, { readyTimeoutMs: 180_000 });
			if (first) await n8n.rest.setupOwner();
			else await n8n.rest.login();
			for (const wf of workflows) {
				if (first) await n8n.rest.activateWorkflow(wf.id);
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
					post(`${n8n.url}/webhook/${specs[spec(key, meanMs)].path}`, itemsOf(modelFor(meanMs, key), tag(meanMs, key), n)),
				),
			);
			const figures = await Promise.all(
				pairs.map(([meanMs, key]) => watch.batch(`${label} ${key} ${meanMs}`, withTag(modelFor(meanMs, key), tag(meanMs, key)), n, meanMs)),
			);
			// Static data is written when an execution ends: wait for every execution before going on.
			await untilEnded(n8n.rest, allIds);
			const out = {};
			pairs.forEach(([meanMs, key], i) => ((out[meanMs] ||= {})[key] = figures[i]));
			return out;
		};

		await start(true);
		const cold = await round('cold', ['node', 'remember', 'wait1', 'wait5']);
		const warm = await round('warm', ['node', 'wait1', 'wait5']);
		const saved = {};
		for (const meanMs of lengthsMs) saved[meanMs] = savedKeys((await n8n.rest.getWorkflow(allIds[spec('remember', meanMs)])).staticData);
		log(`  cold-n8n: run-time keys saved in the Remember workflows' static data: ${JSON.stringify(saved)}; restarting n8n`);
		await n8n.stop();
		await start(false);
		const restart = await round('restart', ['remember', 'node']);
		const executions = {};
		for (const [i, p] of specs.entries()) {
			const list = await n8n.rest.listExecutions({ workflowId: allIds[i], limit: 100 });
			const e = (executions[p.key] ||= { total: 0, succeeded: 0 });
			e.total += list.length;
			e.succeeded += list.filter((x) => x.status === 'success').length;
		}
		return { cold, warm, restart, savedKeys: saved, executions };
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
 * Queue mode: learn on worker-1 alone, start worker-2, then queue two executions per run time (the first ones in
 * Bull's order first); per execution, the worker that ran it (from the workers' logs) and the batch's figures.
 */
async function queuePhase(sb, watch, { lengthsMs, n, modelFor, log }) {
	log('  cold-n8n: queue mode: starting Redis + PostgreSQL (scripts/queue/services.sh)');
	const services = await q.startServices();
	const uf = h.createUserFolder();
	const workers = [];
	let main;
	try {
		const credential = await q.importCredential(uf, services, h.sandboxCredential(sb));
		// One Remember workflow per run time, as in startPhase.
		const remember = WEBHOOKS.find((w) => w.key === 'remember');
		const specs = lengthsMs.map((meanMs, i) => ({ ...remember, id: `3${i}`, path: `bench-cold-remember-${i}`, meanMs }));
		const wfs = await q.importWorkflow(
			uf,
			services,
			specs.map((p) => webhookWorkflow(p, { sb, credential })),
			{ publish: true },
		);
		const wfOf = (meanMs) => wfs[lengthsMs.indexOf(meanMs)];
		main = await h.startN8n(uf, { env: q.queueEnv(services), readyTimeoutMs: 180_000 });
		await main.rest.setupOwner();
		for (const wf of wfs) {
			const st = await main.rest.waitForPublication(wf.id);
			if (st.status !== 'published') throw new Error(`publishing "${wf.name}" ended ${st.status}`);
		}
		const saved = async () =>
			Object.fromEntries(
				await Promise.all(lengthsMs.map(async (ms) => [ms, savedKeys((await main.rest.getWorkflow(wfOf(ms).id)).staticData)])),
			);
		const startWorker = async (name) =>
			workers.push(await q.startWorker(uf, q.queueEnv(services, { WEBHOOK_URL: `${main.url}/` }), { concurrency: lengthsMs.length, name }));
		await startWorker('worker-1');
		const known = new Set();
		const fire = async (meanMs, tag) => {
			const model = modelFor(meanMs, 'queue');
			const id = await startRun(main.rest, main.url, {
				path: specs[lengthsMs.indexOf(meanMs)].path,
				workflowId: wfOf(meanMs).id,
				known,
				body: { items: itemsOf(model, tag, n) },
			});
			return { meanMs, tag, model, id };
		};
		const measure = async (started) => {
			const figures = await Promise.all(started.map((s) => watch.batch(`queue ${s.tag}`, withTag(s.model, s.tag), n, s.meanMs)));
			await untilEnded(
				main.rest,
				wfs.map((wf) => wf.id),
			);
			const byWorker = Object.fromEntries(workers.flatMap((w) => w.executions().map((id) => [String(id), w.name])));
			// What the execution started with: the saved keys in the static data it was queued with.
			const startedWith = await Promise.all(
				started.map(async (s) => savedKeys((await main.rest.getExecution(s.id)).workflowData?.staticData)),
			);
			return started.map((s, i) => ({
				meanMs: s.meanMs,
				execution: s.id,
				worker: byWorker[String(s.id)] ?? '?',
				savedKeysAtStart: startedWith[i],
				...figures[i],
			}));
		};
		log('  cold-n8n: queue mode: learning on worker-1 alone');
		const first = [];
		for (const meanMs of lengthsMs) first.push(await fire(meanMs, `cold-n8n queue learn ${meanMs}`));
		const learn = await measure(first);
		const savedAfterLearning = await saved();
		await startWorker('worker-2');
		log('  cold-n8n: queue mode: worker-2 started; two executions per run time');
		const next = [];
		for (const k of ['a', 'b']) for (const meanMs of lengthsMs) next.push(await fire(meanMs, `cold-n8n queue ${k} ${meanMs}`));
		const after = await measure(next);
		const list = (await Promise.all(wfs.map((wf) => main.rest.listExecutions({ workflowId: wf.id, limit: 100 })))).flat();
		return {
			workers: workers.length,
			concurrency: lengthsMs.length,
			learn,
			after,
			savedAfterLearning,
			savedKeys: await saved(),
			executions: { total: list.length, succeeded: list.filter((e) => e.status === 'success').length },
		};
	} finally {
		await Promise.all(workers.map((w) => w.stop()));
		await main?.stop();
		await services.stop();
		uf.cleanup();
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
 * `queue`: also the queue-mode part (needs Redis and PostgreSQL); `parts`: which of cli, start, queue, shares to run;
 * `shares`: the queue shares of the shares part.
 */
async function coldInN8n(sb, { lengthsMs, n, queue = true, parts = ['cli', 'start', 'queue', 'shares'], shares = QUEUE_SHARES, log }) {
	await h.ensureN8n({ log });
	const usable = await promptOnlyModels(sb);
	// One model per (run time, `n8n start` workflow); the `n8n execute` folders and the queue-mode database are
	// separate, so they reuse the Remember workflow's models.
	const keys = WEBHOOKS.map((p) => p.key);
	if (usable.length < lengthsMs.length * keys.length)
		throw new Error(`cold-n8n needs ${lengthsMs.length * keys.length} prompt-only models, the sandbox has ${usable.length}`);
	const modelFor = (meanMs, key) => usable[lengthsMs.indexOf(meanMs) * keys.length + keys.indexOf(key === 'queue' ? 'remember' : key)];
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
		let queueMode;
		if (queue && parts.includes('queue')) {
			try {
				queueMode = await part(queuePhase);
			} catch (error) {
				log(`  cold-n8n: queue mode failed: ${error.stack || error.message}`);
				queueMode = { error: String(error.message).split('\n')[0] };
			}
		}
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
			queue: queueMode,
			sectionMs: Date.now() - started,
		};
	} finally {
		await sb.reset({});
	}
}

module.exports = { coldInN8n };
