'use strict';
/**
 * Parking at scale (issue 14's measured goal), in a real n8n in queue mode: Redis + PostgreSQL
 * (scripts/queue), one main and ONE worker of concurrency 2, N executions started at once through a webhook,
 * each one deployment run of `runMs`:
 *
 *   parked      Inference → Run with Wait Mode "Park Until RunComfy Calls Back": every execution parks in
 *               PostgreSQL and the sandbox's callbacks resume them; time from the first start to the last end,
 *               status requests while parked (between the last execution stored as waiting and the first
 *               callback), RSS of the n8n main and worker processes before and while parked;
 *   restart     the same, with the main and the worker restarted while everything is parked (the worker with a
 *               fresh event log, like a worker container without a persistent n8n folder): nothing may be lost;
 *   in-process  the same batch with the default Wait Mode: each execution holds one of the worker's 2 slots
 *               while it polls, so the batch runs 2 at a time.
 *
 * The workflow is scripts/e2e/parking.js's (Webhook → Split Out → Run → No Op), downloads off.
 */
const fs = require('fs');
const { performance } = require('perf_hooks');

const h = require('../../scripts/e2e/n8n');
const { parkingWorkflow, waitFor } = require('../../scripts/e2e/parking');
const q = require('../../scripts/queue/queue');
const { fmtS, MiB } = require('./measure');

const isStatus = (e) => e.api === 'serverless' && e.method === 'GET' && /\/requests\/[^/]+\/status$/.test(e.path);
const isResult = (e) => e.api === 'serverless' && e.method === 'GET' && /\/requests\/[^/]+\/result$/.test(e.path);
const isSubmit = (e) => e.api === 'serverless' && e.method === 'POST' && /\/inference$/.test(e.path);
const isCallback = (e) => e.api === 'webhook';

/** The pids of a process and its descendants (n8n starts its task runner as a child). */
function processTree(pid) {
	const children = new Map();
	for (const entry of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
			const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
			if (!children.has(ppid)) children.set(ppid, []);
			children.get(ppid).push(Number(entry));
		} catch {
			// the process ended meanwhile
		}
	}
	const tree = [];
	const stack = [pid];
	while (stack.length) {
		const p = stack.pop();
		tree.push(p);
		stack.push(...(children.get(p) || []));
	}
	return tree;
}

const read = (file) => {
	try {
		return fs.readFileSync(file, 'utf8');
	} catch {
		return '';
	}
};

/** Resident memory of a process and its descendants, bytes. */
function treeRss(pid) {
	return processTree(pid).reduce((sum, p) => sum + Number((/VmRSS:\s+(\d+) kB/.exec(read(`/proc/${p}/status`)) || [0, 0])[1]) * 1024, 0);
}

const CLOCK_TICKS = (() => {
	try {
		return Number(require('child_process').execSync('getconf CLK_TCK').toString().trim()) || 100;
	} catch {
		return 100;
	}
})();

/** CPU time (user + system) a process and its descendants have used so far, ms. */
function treeCpuMs(pid) {
	return processTree(pid).reduce((sum, p) => {
		const stat = read(`/proc/${p}/stat`);
		if (!stat) return sum;
		const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
		return sum + ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
	}, 0);
}

function inProcessWorkflow(credential) {
	const wf = parkingWorkflow({ credential, path: 'bench-in-process', name: 'Bench: deployment runs waited for in the execution' });
	wf.nodes = wf.nodes.map((n) => {
		if (n.name === 'Webhook')
			return { ...n, id: 'c7a1e000-0000-4000-8000-000000000011', webhookId: 'c7a1e000-0000-4000-8000-0000000000bb' };
		if (n.name === 'Run') return { ...n, parameters: { ...n.parameters, waitMode: 'inProcess' } };
		return n;
	});
	return wf;
}

async function statusesOf(rest, workflowId) {
	const list = await rest.listExecutions({ workflowId, limit: 100 });
	return list;
}

/**
 * Starts `n` executions at once and waits until all ended; returns timings from n8n's own startedAt/stoppedAt.
 * `whileParked(ids)` runs once all are stored as waiting (parked mode) before waiting for the end.
 */
async function runBatch(cluster, sb, { workflowId, path, n, runMs, maxWait, whileParked, log }) {
	const rest = () => cluster.main().rest;
	await sb.reset({ ...sb.baseConfig, runDurationMs: runMs });
	const known = new Set((await statusesOf(rest(), workflowId)).map((e) => String(e.id)));
	const t0 = Date.now();
	const started = performance.now();
	// While the runs go on (from 25 % to 90 % of a run, before any callback): memory halfway and CPU time of the
	// n8n processes.
	let rss;
	let cpuFrom;
	let cpu;
	const sample = (fn) => {
		try {
			return fn();
		} catch {
			return undefined;
		}
	};
	const samplers = [
		setTimeout(() => (cpuFrom = sample(() => cluster.cpu())), runMs * 0.25),
		setTimeout(() => (rss = sample(() => cluster.rss())), runMs / 2),
		setTimeout(() => {
			const to = sample(() => cluster.cpu());
			if (cpuFrom && to) cpu = { windowMs: runMs * 0.65, main: to.main - cpuFrom.main, worker: to.worker - cpuFrom.worker };
		}, runMs * 0.9),
	];
	const ids = [];
	await Promise.all(
		Array.from({ length: n }, async (_, i) => {
			const body = { items: [{ deployment: sb.stable.deployments.textToImage, prompt: `bench ${i}` }], maxWait, download: false };
			await fetch(`${cluster.main().url}/webhook/${path}`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify(body),
			}).then(async (res) => {
				if (res.status !== 200) throw new Error(`webhook answered ${res.status}: ${await res.text()}`);
			});
		}),
	);
	const allIds = await waitFor(
		`${n} executions started`,
		async () => {
			const fresh = (await statusesOf(rest(), workflowId)).filter((e) => !known.has(String(e.id)));
			return fresh.length >= n ? fresh.map((e) => String(e.id)) : undefined;
		},
		{ limitMs: 120_000 },
	);
	ids.push(...allIds);
	let parked;
	if (whileParked) {
		await waitFor(
			'every execution parked',
			async () => {
				const list = (await statusesOf(rest(), workflowId)).filter((e) => ids.includes(String(e.id)));
				return list.length === n && list.every((e) => e.status === 'waiting') ? true : undefined;
			},
			{ limitMs: 120_000, intervalMs: 200 },
		);
		parked = { atMs: Date.now() - t0 };
		await whileParked(ids, parked);
	}
	const ended = await waitFor(
		'every execution ended',
		async () => {
			const list = (await statusesOf(rest(), workflowId)).filter((e) => ids.includes(String(e.id)));
			return list.length === n && list.every((e) => !['new', 'running', 'waiting'].includes(e.status)) ? list : undefined;
		},
		{ limitMs: Math.max(600_000, n * runMs * 2), intervalMs: 500 },
	);
	for (const t of samplers) clearTimeout(t);
	const wallMs = performance.now() - started;
	const lastStop = Math.max(...ended.map((e) => Date.parse(e.stoppedAt)));
	const firstStart = Math.min(...ended.map((e) => Date.parse(e.startedAt)));
	const sandboxLog = await sb.log();
	const firstCallback = sandboxLog.find(isCallback);
	const seqParked = parked && parked.lastSeq !== undefined ? parked.lastSeq : undefined;
	const statusWhileParked =
		seqParked === undefined
			? undefined
			: sandboxLog.filter((e) => isStatus(e) && e.seq > seqParked && (!firstCallback || e.seq < firstCallback.seq)).length;
	log(
		`    ${n} executions: ${ended.filter((e) => e.status === 'success').length} succeeded in ${((lastStop - firstStart) / 1000).toFixed(1)} s`,
	);
	return {
		n,
		runMs,
		succeeded: ended.filter((e) => e.status === 'success').length,
		statuses: [...new Set(ended.map((e) => e.status))],
		firstStartToLastEndMs: lastStop - firstStart,
		wallMs,
		parkedAtMs: parked && parked.atMs,
		restartMs: parked && parked.restartMs,
		rss: parked && parked.restartMs !== undefined ? undefined : rss,
		cpu: parked && parked.restartMs !== undefined ? undefined : cpu,
		statusWhileParked,
		requests: {
			submit: sandboxLog.filter(isSubmit).length,
			status: sandboxLog.filter(isStatus).length,
			result: sandboxLog.filter(isResult).length,
			callbacks: sandboxLog.filter(isCallback).length,
		},
	};
}

/** The whole section; `sb` is the benchmark's sandbox process (bench/lib/sandbox.js). */
async function parkingAtScale(sb, { n, runMs, log }) {
	await h.ensureN8n({ log });
	log('  parking: starting Redis + PostgreSQL (scripts/queue/services.sh)');
	const services = await q.startServices();
	const uf = h.createUserFolder();
	let main;
	let worker;
	let generation = 0;
	const port = await h.freePort();
	const startMain = async () => {
		main = await h.startN8n(uf, { port, env: q.queueEnv(services), readyTimeoutMs: 180_000 });
		await main.rest.login().catch(async () => await main.rest.setupOwner());
	};
	const startWorker = async () => {
		generation++;
		worker = await q.startWorker(
			uf,
			q.queueEnv(services, {
				WEBHOOK_URL: `http://127.0.0.1:${port}/`,
				N8N_EVENTBUS_LOGWRITER_LOGBASENAME: `n8nEventLog-worker-${generation}`,
			}),
			{ concurrency: 2, name: `worker-${generation}` },
		);
	};
	const cluster = {
		main: () => main,
		rss: () => ({ main: treeRss(main.process.pid), worker: treeRss(worker.process.pid) }),
		cpu: () => ({ main: treeCpuMs(main.process.pid), worker: treeCpuMs(worker.process.pid) }),
	};
	sb.baseConfig = { queueMs: 0, webhooks: { baseDelayMs: 250, maxDelayMs: 2000, maxAttempts: 60 } };
	try {
		const credential = await q.importCredential(uf, services, h.sandboxCredential(sb));
		const [parkWf, inProcessWf] = await q.importWorkflow(
			uf,
			services,
			[parkingWorkflow({ credential, path: 'bench-park', name: 'Bench: parked deployment runs' }), inProcessWorkflow(credential)],
			{ publish: true },
		);
		await startMain();
		await startWorker();
		// Warm-up (first execution of each process: module loading, connections): not reported.
		await runBatch(cluster, sb, {
			workflowId: parkWf.id,
			path: 'bench-park',
			n: 2,
			runMs: 1000,
			maxWait: 600,
			whileParked: async () => {},
			log,
		});
		const rssIdle = cluster.rss();

		log(`  parking: ${n} executions × one ${runMs / 1000} s run, parked`);
		const parked = await runBatch(cluster, sb, {
			workflowId: parkWf.id,
			path: 'bench-park',
			n,
			runMs,
			maxWait: 600,
			log,
			whileParked: async (ids, state) => {
				state.lastSeq = (await sb.log()).reduce((m, e) => Math.max(m, e.seq), 0);
			},
		});

		log(`  parking: ${n} executions parked, main and worker restarted while parked`);
		const restart = await runBatch(cluster, sb, {
			workflowId: parkWf.id,
			path: 'bench-park',
			n,
			runMs,
			maxWait: 600,
			log,
			whileParked: async (ids, state) => {
				state.lastSeq = (await sb.log()).reduce((m, e) => Math.max(m, e.seq), 0);
				const t = performance.now();
				await worker.stop();
				await main.stop();
				await startMain();
				await startWorker();
				state.restartMs = performance.now() - t;
			},
		});

		log(`  parking: ${n} executions × one ${runMs / 1000} s run, waited for in the execution (worker concurrency 2)`);
		const inProcess = await runBatch(cluster, sb, {
			workflowId: inProcessWf.id,
			path: 'bench-in-process',
			n,
			runMs,
			maxWait: 3600,
			log,
			whileParked: undefined,
		});
		return { n, runMs, workerConcurrency: 2, rssIdle, parked, restart, inProcess };
	} finally {
		await worker?.stop();
		await main?.stop();
		await services.stop();
		uf.cleanup();
	}
}

/** The BENCHMARKS.md section of the figures (`table` renders a Markdown table). */
function parkingSection(p, table) {
	const run = p.runMs / 1000;
	const mib = (b) => `${(b / MiB).toFixed(0)} MiB`;
	const rssText = (r) => (r ? `main ${mib(r.main)}, worker ${mib(r.worker)}` : '—');
	const row = (label, x, extra = '') => [
		label,
		`${x.succeeded}/${x.n}`,
		fmtS(x.firstStartToLastEndMs),
		`${(x.firstStartToLastEndMs / p.runMs).toFixed(2)}×`,
		x.statusWhileParked === undefined ? '—' : String(x.statusWhileParked),
		`${x.requests.status} / ${x.requests.result} / ${x.requests.callbacks}`,
		rssText(x.rss),
		x.cpu ? `main ${x.cpu.main.toFixed(0)} ms, worker ${x.cpu.worker.toFixed(0)} ms` : '—',
		extra,
	];
	return [
		`## Parking at scale (queue mode, ${p.n} executions × one ${run} s deployment run)`,
		'',
		`n8n ${h.N8N_VERSION} in queue mode (Redis + PostgreSQL from scripts/queue, one main and **one worker of concurrency ${p.workerConcurrency}**), ` +
			`the package installed as a community package. ${p.n} executions of Webhook → Split Out → RunComfy Deployment (Inference → Run, downloads off) → No Op are started at once; ` +
			`each submits one deployment request that runs ${run} s on the sandbox, which calls back like the live service. ` +
			'**Parked**: Wait Mode "Park Until RunComfy Calls Back" (one status check before parking, then the execution is stored as waiting until the callback). ' +
			"**In the execution**: the default Wait Mode (the node polls; each execution holds one of the worker's slots). " +
			"Time: from the first execution's start to the last one's end (n8n's startedAt/stoppedAt). \"While parked\": status requests after every execution was stored as waiting and before the first callback. " +
			'RSS: resident memory of the n8n main and worker processes (with their task runners) halfway through the runs; CPU: their CPU time while the runs go on, before any callback; ' +
			`idle before the batch: ${rssText(p.rssIdle)}.`,
		'',
		table(
			[
				'Mode',
				'Succeeded',
				'First start → last end',
				'÷ one run',
				'Status requests while parked',
				'Status / result requests / callback attempts',
				'RSS halfway',
				`CPU from ${(0.25 * run).toFixed(1)} s to ${(0.9 * run).toFixed(1)} s`,
				'Note',
			],
			[
				row('Parked', p.parked),
				row(
					'Parked, main + worker restarted while parked',
					p.restart,
					`restart took ${fmtS(p.restart.restartMs || 0)}; the worker came back with a fresh event log`,
				),
				row('Waited for in the execution', p.inProcess),
			],
		),
		'',
		`**Goal: parked all done within 1.5× one run.** Measured: ${(p.parked.firstStartToLastEndMs / p.runMs).toFixed(2)}× — ${p.parked.firstStartToLastEndMs <= 1.5 * p.runMs ? 'met' : 'NOT met'}; ` +
			`waiting in the execution took ${(p.inProcess.firstStartToLastEndMs / p.parked.firstStartToLastEndMs).toFixed(1)}× as long as parking.`,
	].join('\n');
}

module.exports = { parkingAtScale, parkingSection, runBatch, inProcessWorkflow, treeRss, treeCpuMs };
