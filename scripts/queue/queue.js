'use strict';
/**
 * n8n queue mode on one machine, for the queue-mode test (test/e2e/queue) and anyone trying it by hand
 * (docs/queue-mode.md): Redis + PostgreSQL from Debian's packages on loopback (scripts/queue/services.sh),
 * one `n8n start` main, N `n8n worker` processes and optionally an `n8n webhook` process sharing one user folder
 * (so all load this package as a community package), PostgreSQL as n8n's database and Redis as the Bull queue.
 *
 *   const q = require('./scripts/queue/queue');
 *   const services = await q.startServices();             // { env, stateDir, stop() }
 *   const cluster = await q.startCluster(userFolder, { services, workers: 2, concurrency: 2, webhook: true });
 *   cluster.main.url; cluster.webhook.url; cluster.workers[0].logs(); cluster.executionsByWorker();
 *   await cluster.stop(); await services.stop();
 *
 * Builds on scripts/e2e/n8n.js (n8n install, user folder, env, CLI, `n8n start`); only the worker and webhook
 * processes are started here. Plain CommonJS.
 */
const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const h = require('../e2e/n8n');
const { httpStatus } = require('../e2e/lib/processes');

const { killGroup } = h;

const SERVICES_SCRIPT = path.join(__dirname, 'services.sh');

function log(msg) {
	process.stderr.write(`${msg}\n`);
}

/** Parses `KEY=VALUE` lines. */
function parseEnv(text) {
	const env = {};
	for (const line of text.split('\n')) {
		const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
		if (m) env[m[1]] = m[2];
	}
	return env;
}

/**
 * Starts Redis and PostgreSQL (installing Debian's packages when missing; root needed for that) with
 * private data in `stateDir` on the given ports. Resolves with the n8n environment for queue mode and a
 * stop() that stops both and removes the state folder.
 */
async function startServices({ stateDir, redisPort, pgPort, timeoutMs = 10 * 60 * 1000 } = {}) {
	const dir = stateDir || fs.mkdtempSync(path.join(os.tmpdir(), 'runcomfy-queue-'));
	const rPort = redisPort || (await h.freePort());
	let pPort = pgPort || (await h.freePort());
	if (pPort === rPort) pPort = await h.freePort();
	const env = {
		...process.env,
		QUEUE_STATE_DIR: dir,
		QUEUE_REDIS_PORT: String(rPort),
		QUEUE_PG_PORT: String(pPort),
	};
	const stopAll = (purge) => h.run('bash', [SERVICES_SCRIPT, 'stop', ...(purge ? ['--purge'] : [])], { env, timeoutMs: 120000 });
	let res;
	try {
		res = await h.run('bash', [SERVICES_SCRIPT, 'start'], { env, timeoutMs });
	} catch (error) {
		await stopAll(!stateDir);
		throw error;
	}
	if (res.code !== 0) {
		// Do not leave half of it running (e.g. Redis up, PostgreSQL failed).
		await stopAll(!stateDir);
		const err = new Error(`scripts/queue/services.sh start failed (exit ${res.code}):\n${res.stderr.slice(-6000)}`);
		err.stderr = res.stderr;
		throw err;
	}
	const n8nEnv = parseEnv(res.stdout);
	return {
		env: n8nEnv,
		stateDir: dir,
		redisPort: rPort,
		pgPort: pPort,
		log: res.stderr,
		async stop({ purge = true } = {}) {
			await stopAll(purge);
		},
	};
}

/** The environment of every n8n process of the cluster (main, workers, CLI). */
function queueEnv(services, extra = {}) {
	return {
		...services.env,
		EXECUTIONS_MODE: 'queue',
		// n8n 2.41's default in queue mode, said explicitly: binary data goes to PostgreSQL, so whichever
		// process runs the next node (or serves the editor) can read it. Filesystem mode needs one storage
		// folder shared by every process (N8N_BINARY_DATA_STORAGE_PATH on a shared volume).
		N8N_DEFAULT_BINARY_DATA_MODE: 'database',
		QUEUE_HEALTH_CHECK_ACTIVE: 'false',
		N8N_LOG_LEVEL: 'info',
		...extra,
	};
}

const workerChildren = new Set();
process.on('exit', () => {
	for (const child of workerChildren) killGroup(child, 'SIGKILL');
});

/** Polls `url` until it answers 200; throws when the process exits first or after `timeoutMs`. */
async function waitReady(name, url, { exited, logs, stop }, timeoutMs) {
	const deadline = Date.now() + timeoutMs;
	for (;;) {
		const state = await Promise.race([exited.then((e) => ({ exited: e })), httpStatus(url).then((status) => ({ status }))]);
		if (state.exited) throw new Error(`${name} exited early (${JSON.stringify(state.exited)}):\n${logs().slice(-6000)}`);
		if (state.status === 200) return;
		if (Date.now() > deadline) {
			await stop();
			throw new Error(`${name} was not ready within ${timeoutMs} ms:\n${logs().slice(-6000)}`);
		}
		await new Promise((r) => setTimeout(r, 300));
	}
}

/** Spawns `n8n <args>` in the user folder in its own process group, killed when this process exits. */
async function spawnN8n(userFolder, args, env, { name, echo }) {
	const home = await h.ensureN8n();
	const bin = path.join(home, 'node_modules', 'n8n', 'bin', 'n8n');
	const child = spawn(h.node24().bin, [bin, ...args], {
		cwd: userFolder.dir,
		env: h.n8nEnv(userFolder, env),
		detached: true,
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	workerChildren.add(child);
	child.once('exit', () => workerChildren.delete(child));
	return { child, ...h.supervise(child, { echo, prefix: `[${name}] ` }) };
}

/**
 * Starts `n8n webhook` (production webhooks, waiting webhooks and MCP endpoints, no editor) on 127.0.0.1:`port`,
 * waits until its readiness endpoint answers 200.
 */
async function startWebhook(userFolder, env, { port, name = 'webhook', readyTimeoutMs = 180000, echo = false } = {}) {
	const listenPort = port || (await h.freePort());
	const url = `http://127.0.0.1:${listenPort}`;
	const proc = await spawnN8n(
		userFolder,
		['webhook'],
		{
			...env,
			N8N_PORT: String(listenPort),
			N8N_LISTEN_ADDRESS: '127.0.0.1',
			N8N_RUNNERS_BROKER_PORT: String(await h.freePort()),
			N8N_EVENTBUS_LOGWRITER_LOGBASENAME: `n8nEventLog-${name}`,
		},
		{ name, echo },
	);
	await waitReady(name, `${url}/healthz/readiness`, proc, readyTimeoutMs);
	return { name, url, port: listenPort, process: proc.child, logs: proc.logs, stop: proc.stop, exited: proc.exited };
}

/**
 * Starts `n8n worker --concurrency=N` with the user folder's package, waits until its health endpoint
 * (DB connected and migrated, Redis connected, fully started) answers 200.
 */
async function startWorker(userFolder, env, { concurrency = 2, name = 'worker', readyTimeoutMs = 180000, echo = false } = {}) {
	const healthPort = await h.freePort();
	const proc = await spawnN8n(
		userFolder,
		['worker', `--concurrency=${concurrency}`],
		{
			...env,
			QUEUE_HEALTH_CHECK_ACTIVE: 'true',
			QUEUE_HEALTH_CHECK_PORT: String(healthPort),
			N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
			N8N_RUNNERS_BROKER_PORT: String(await h.freePort()),
		},
		{ name, echo },
	);
	const { child, logs, exited, stop } = proc;
	const url = `http://127.0.0.1:${healthPort}`;
	await waitReady(name, `${url}/healthz/readiness`, proc, readyTimeoutMs);
	const hostMatch = /Host ID: (\S+)/.exec(logs());
	return {
		name,
		process: child,
		healthUrl: url,
		hostId: hostMatch ? hostMatch[1] : undefined,
		logs,
		/** Execution ids this worker started ("Worker started execution N (job M)" in its log). */
		executions: () => [...logs().matchAll(/Worker started execution (\S+) \(job/g)].map((m) => m[1]),
		stop,
		exited,
	};
}

/**
 * Main + workers (+ with `webhook: true` an `n8n webhook` process) against the services. With the webhook process,
 * as n8n's production setup: WEBHOOK_URL (every process) is its address and the main serves no production
 * webhooks (N8N_DISABLE_PRODUCTION_MAIN_PROCESS). Workers and the webhook process start in parallel once the
 * main is ready. Import credentials and workflows (and publish webhook workflows) with `cli(...)` BEFORE calling
 * this: the first CLI command runs n8n's migrations on the empty database.
 */
async function startCluster(
	userFolder,
	{ services, workers = 2, concurrency = 2, webhook = false, env = {}, readyTimeoutMs = 180000, echo = false, log: logFn = log } = {},
) {
	const webhookPort = webhook ? await h.freePort() : undefined;
	const qenv = queueEnv(services, webhook ? { WEBHOOK_URL: `http://127.0.0.1:${webhookPort}/`, ...env } : env);
	logFn(
		`[queue] starting n8n main (queue mode, PostgreSQL :${services.env.DB_POSTGRESDB_PORT}, Redis :${services.env.QUEUE_BULL_REDIS_PORT})`,
	);
	const mainEnv = webhook ? { ...qenv, N8N_DISABLE_PRODUCTION_MAIN_PROCESS: 'true' } : qenv;
	const main = await h.startN8n(userFolder, { env: mainEnv, echo, readyTimeoutMs });
	logFn(
		`[queue] main ready at ${main.url}; starting ${workers} worker(s), concurrency ${concurrency}${webhook ? ', a webhook process' : ''}`,
	);
	const settled = await Promise.allSettled([
		...Array.from({ length: workers }, (_, i) => {
			const name = `worker-${i + 1}`;
			return startWorker(
				userFolder,
				{ ...qenv, N8N_EVENTBUS_LOGWRITER_LOGBASENAME: `n8nEventLog-${name}` },
				{ concurrency, name, readyTimeoutMs, echo },
			);
		}),
		...(webhook ? [startWebhook(userFolder, qenv, { port: webhookPort, readyTimeoutMs, echo })] : []),
	]);
	const started = settled.filter((s) => s.status === 'fulfilled').map((s) => s.value);
	const failed = settled.find((s) => s.status === 'rejected');
	if (failed) {
		await Promise.all(started.map((p) => p.stop()));
		await main.stop();
		throw failed.reason;
	}
	const startedWorkers = started.slice(0, workers);
	return {
		main,
		workers: startedWorkers,
		webhook: webhook ? started[workers] : undefined,
		env: qenv,
		/** { 'worker-1': ['12', '14'], 'worker-2': ['13'] } */
		executionsByWorker() {
			return Object.fromEntries(startedWorkers.map((w) => [w.name, w.executions()]));
		},
		async stop() {
			await Promise.all(started.map((p) => p.stop()));
			await main.stop();
		},
	};
}

/** Runs an n8n CLI command against the cluster's database (import, publish...). */
function cli(userFolder, services, args, opts = {}) {
	return h.n8nCli(userFolder, args, { timeoutMs: 5 * 60 * 1000, ...opts, env: queueEnv(services, opts.env) });
}

/** `importCredential` of scripts/e2e/n8n.js, into the cluster's PostgreSQL database. */
function importCredential(userFolder, services, credentials) {
	return h.importCredential(userFolder, credentials, { env: queueEnv(services), timeoutMs: 5 * 60 * 1000 });
}

/** `importWorkflow` of scripts/e2e/n8n.js, into the cluster's database; `publish: true` also activates them. */
async function importWorkflow(userFolder, services, workflows, { credential, publish = false } = {}) {
	const imported = await h.importWorkflow(userFolder, workflows, { credential, env: queueEnv(services), timeoutMs: 5 * 60 * 1000 });
	if (publish) {
		for (const wf of Array.isArray(imported) ? imported : [imported]) {
			await cli(userFolder, services, ['publish:workflow', `--id=${wf.id}`], { check: true });
		}
	}
	return imported;
}

module.exports = {
	startServices,
	queueEnv,
	startWorker,
	startCluster,
	importCredential,
	importWorkflow,
};
