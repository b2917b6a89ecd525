'use strict';
/**
 * n8n CLI commands against a user folder (import, execute, publish, `n8n start`), the credentials and
 * workflows they take, and readers of the execution they print.
 */
const { spawn } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const { ROOT, CREDENTIAL_NAME, CREDENTIAL_TYPE } = require('./constants');
const { track, run, supervise, httpStatus, freePort, tail } = require('./processes');
const { node24, ensureN8n, n8nBin, withLock } = require('./provision');
const { RestClient } = require('./rest-client');
const { n8nEnv } = require('./user-folder');

/**
 * n8n's environment for the n8n installed in `home`. n8n 1.x knows no `mcp-registry` module (and refuses to
 * start when told to disable it); it has nothing to reach online there either.
 */
function envFor(userFolder, home, extra) {
	const env = n8nEnv(userFolder, extra);
	if (versionOf(home).startsWith('1.')) delete env.N8N_DISABLED_MODULES;
	return env;
}

/** The version of the n8n installed in `home`. */
function versionOf(home) {
	return JSON.parse(fs.readFileSync(path.join(home, 'node_modules', 'n8n', 'package.json'), 'utf8')).version;
}

const SQLITE_FILES = ['database.sqlite', 'database.sqlite-wal', 'database.sqlite-shm'];

/**
 * Gives a new SQLite user folder a copy of an empty database that this n8n already migrated: every suite
 * would otherwise run all of n8n's migrations again on its first command.
 */
async function seedDatabase(userFolder, n8nHome, env) {
	if (env.DB_TYPE !== 'sqlite' || fs.existsSync(path.join(userFolder.n8nDir, 'database.sqlite'))) return;
	const template = path.join(n8nHome, '.migrated-user-folder', '.n8n');
	await withLock(`db-template-${path.basename(n8nHome)}`, async () => {
		if (fs.existsSync(path.join(template, 'database.sqlite'))) return;
		const scratchDir = `${path.dirname(template)}.tmp`;
		const scratch = { dir: scratchDir, n8nDir: path.join(scratchDir, '.n8n'), encryptionKey: crypto.randomBytes(24).toString('hex') };
		fs.rmSync(scratch.dir, { recursive: true, force: true });
		fs.mkdirSync(path.join(scratch.dir, '.n8n'), { recursive: true });
		const brokerPort = await freePort();
		const res = await run(node24().bin, [n8nBin(n8nHome), 'list:workflow'], {
			cwd: scratch.dir,
			env: envFor(scratch, n8nHome, { N8N_RUNNERS_BROKER_PORT: String(brokerPort) }),
			timeoutMs: 5 * 60 * 1000,
		});
		if (res.code !== 0) throw new Error(`n8n list:workflow could not migrate a new database:\n${tail(res.stderr)}`);
		fs.rmSync(path.dirname(template), { recursive: true, force: true });
		fs.renameSync(scratch.dir, path.dirname(template));
	});
	fs.mkdirSync(userFolder.n8nDir, { recursive: true });
	for (const file of SQLITE_FILES) {
		if (fs.existsSync(path.join(template, file))) fs.copyFileSync(path.join(template, file), path.join(userFolder.n8nDir, file));
	}
}

/**
 * Runs one n8n CLI command (`n8n <args>`) against the user folder, on Node 24.
 * Resolves with { code, stdout, stderr }; use `check: true` to reject on a non-zero exit.
 */
async function n8nCli(userFolder, args, { home, env = {}, timeoutMs = 3 * 60 * 1000, check = false } = {}) {
	const n8nHome = home || (await ensureN8n());
	const brokerPort = await freePort();
	const fullEnv = envFor(userFolder, n8nHome, { N8N_RUNNERS_BROKER_PORT: String(brokerPort), ...env });
	await seedDatabase(userFolder, n8nHome, fullEnv);
	const res = await run(node24().bin, [n8nBin(n8nHome), ...args], { cwd: userFolder.dir, env: fullEnv, timeoutMs });
	if (check && res.code !== 0) {
		const err = new Error(`n8n ${args.join(' ')} failed (exit ${res.code}):\n${tail(res.stdout)}\n${tail(res.stderr)}`);
		Object.assign(err, res);
		throw err;
	}
	return res;
}

/** n8n-style id: 16 alphanumerics. */
function newId() {
	const alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
	const bytes = crypto.randomBytes(16);
	let id = '';
	for (const b of bytes) id += alphabet[b % alphabet.length];
	return id;
}

/**
 * A `runComfyApi` credential (n8n import format) pointing at a sandbox (`startSandbox()` result or
 * { urls, token }): all three API base URLs on loopback, downloads allowed from 127.0.0.1 only.
 */
function sandboxCredential(sandbox, { id = newId(), name = CREDENTIAL_NAME } = {}) {
	return {
		id,
		name,
		type: CREDENTIAL_TYPE,
		data: {
			accessToken: sandbox.token,
			modelApiBaseUrl: sandbox.urls.modelApi,
			serverlessApiBaseUrl: sandbox.urls.serverless,
			trainerApiBaseUrl: sandbox.urls.trainer,
			allowedDownloadHosts: '127.0.0.1',
		},
	};
}

/** A `runComfyApi` credential for the live service (default URLs) with the given token. */
function liveCredential(token, { id = newId(), name = CREDENTIAL_NAME } = {}) {
	return {
		id,
		name,
		type: CREDENTIAL_TYPE,
		data: {
			accessToken: token,
			modelApiBaseUrl: 'https://model-api.runcomfy.net',
			serverlessApiBaseUrl: 'https://api.runcomfy.net',
			trainerApiBaseUrl: 'https://trainer-api.runcomfy.net',
			allowedDownloadHosts: '*.runcomfy.net, *.runcomfy.com',
		},
	};
}

function scratchFile(userFolder, name, data) {
	const dir = path.join(userFolder.dir, 'imports');
	fs.mkdirSync(dir, { recursive: true });
	const file = path.join(dir, name);
	fs.writeFileSync(file, JSON.stringify(data, null, 2));
	return file;
}

/** Imports one or more credentials (`n8n import:credentials`). Returns the credential(s). */
async function importCredential(userFolder, credentials, opts = {}) {
	const list = Array.isArray(credentials) ? credentials : [credentials];
	for (const c of list) if (!c.id) c.id = newId();
	const file = scratchFile(userFolder, `credentials-${newId()}.json`, list);
	await n8nCli(userFolder, ['import:credentials', `--input=${file}`], { ...opts, check: true });
	return Array.isArray(credentials) ? list : list[0];
}

function readWorkflow(fileOrObject) {
	if (typeof fileOrObject === 'string') {
		const file = path.isAbsolute(fileOrObject) ? fileOrObject : path.join(ROOT, fileOrObject);
		return JSON.parse(fs.readFileSync(file, 'utf8'));
	}
	return JSON.parse(JSON.stringify(fileOrObject));
}

/**
 * Prepares a workflow for import: gives it an id (unless it has one), and points every credential
 * reference of type runComfyApi (by name, as in the examples) at the given credential.
 */
function prepareWorkflow(fileOrObject, { credential, id } = {}) {
	const wf = readWorkflow(fileOrObject);
	wf.id = id || wf.id || newId();
	if (wf.active === undefined) wf.active = false;
	for (const node of wf.nodes || []) {
		if (credential && node.credentials && node.credentials[CREDENTIAL_TYPE]) {
			node.credentials[CREDENTIAL_TYPE] = { id: credential.id, name: credential.name };
		}
	}
	return wf;
}

/**
 * Imports workflows (`n8n import:workflow`, one CLI call for all). Accepts file paths (relative to the
 * repo) or objects; returns the prepared workflows (with their ids).
 */
async function importWorkflow(userFolder, workflows, { credential, ...opts } = {}) {
	const list = (Array.isArray(workflows) ? workflows : [workflows]).map((w) => prepareWorkflow(w, { credential }));
	const dir = path.join(userFolder.dir, 'imports', `workflows-${newId()}`);
	fs.mkdirSync(dir, { recursive: true });
	list.forEach((wf, i) => fs.writeFileSync(path.join(dir, `${i}-${wf.id}.json`), JSON.stringify(wf, null, 2)));
	await n8nCli(userFolder, ['import:workflow', '--separate', `--input=${dir}`], { ...opts, check: true });
	return Array.isArray(workflows) ? list : list[0];
}

/**
 * Finds the run JSON `n8n execute --rawOutput` prints among log lines: the last top-level object that
 * starts on a line of its own with `{` and parses as an execution (has `data.resultData`).
 */
function parseRunOutput(stdout) {
	const lines = stdout.split('\n');
	const starts = [];
	lines.forEach((l, i) => {
		if (l.replace(/\r$/, '') === '{') starts.push(i);
	});
	for (let s = starts.length - 1; s >= 0; s--) {
		for (let e = lines.length - 1; e > starts[s]; e--) {
			if (lines[e].replace(/\r$/, '') !== '}') continue;
			try {
				const obj = JSON.parse(lines.slice(starts[s], e + 1).join('\n'));
				if (obj && obj.data && obj.data.resultData) return obj;
			} catch {
				/* try a shorter slice */
			}
		}
	}
	return undefined;
}

/**
 * Executes a workflow with `n8n execute --id=ID --rawOutput` and returns
 * { code, run, stdout, stderr }: `run` is n8n's execution object (status, data.resultData.runData...),
 * also when the execution failed (n8n then prints it through its logger and exits non-zero).
 */
async function execute(userFolder, workflowId, opts = {}) {
	const res = await n8nCli(userFolder, ['execute', `--id=${workflowId}`, '--rawOutput'], opts);
	const runJson = parseRunOutput(res.stdout) || parseRunOutput(res.stderr);
	return { ...res, run: runJson };
}

/** Items of a node's output in an execution: run (default 0), output index (default 0). */
function nodeItems(runJson, nodeName, { run: runIndex = 0, output = 0 } = {}) {
	const runData = runJson && runJson.data && runJson.data.resultData && runJson.data.resultData.runData;
	if (!runData || !runData[nodeName]) return undefined;
	const task = runData[nodeName][runIndex];
	if (!task || !task.data || !task.data.main) return undefined;
	return task.data.main[output] || [];
}

/** The error of a node's run (when it failed without Continue on Fail). */
function nodeError(runJson, nodeName, runIndex = 0) {
	const runData = runJson && runJson.data && runJson.data.resultData && runJson.data.resultData.runData;
	return runData && runData[nodeName] && runData[nodeName][runIndex] && runData[nodeName][runIndex].error;
}

/**
 * Starts `n8n start` on 127.0.0.1 (free port unless given) and waits for /healthz/readiness.
 * Resolves with { url, port, version, process, logs(), rest (RestClient), stop() }.
 */
async function startN8n(userFolder, { port, home, env = {}, readyTimeoutMs = 5 * 60 * 1000, log, echo = false } = {}) {
	const n8nHome = home || (await ensureN8n({ log }));
	const listenPort = port || (await freePort());
	const brokerPort = await freePort();
	const url = `http://127.0.0.1:${listenPort}`;
	const fullEnv = envFor(userFolder, n8nHome, {
		N8N_PORT: String(listenPort),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		N8N_EDITOR_BASE_URL: `${url}/`,
		WEBHOOK_URL: `${url}/`,
		N8N_RUNNERS_BROKER_PORT: String(brokerPort),
		N8N_PUSH_BACKEND: 'websocket',
		...env,
	});
	await seedDatabase(userFolder, n8nHome, fullEnv);
	const child = track(
		spawn(node24().bin, [n8nBin(n8nHome), 'start'], {
			cwd: userFolder.dir,
			env: fullEnv,
			detached: true,
			stdio: ['ignore', 'pipe', 'pipe'],
		}),
	);
	const { logs, exited, stop } = supervise(child, { echo });

	const deadline = Date.now() + readyTimeoutMs;
	for (;;) {
		const state = await Promise.race([
			exited.then((e) => ({ exited: e })),
			httpStatus(`${url}/healthz/readiness`).then((status) => ({ status })),
		]);
		if (state.exited) {
			throw new Error(`n8n start exited early (${JSON.stringify(state.exited)}):\n${tail(logs())}`);
		}
		// n8n 1.x answers readiness before it has registered its REST routes: wait for those too.
		if (state.status === 200 && (await httpStatus(`${url}/rest/settings`)) === 200) break;
		if (Date.now() > deadline) {
			await stop();
			throw new Error(`n8n did not become ready on ${url} within ${readyTimeoutMs} ms:\n${tail(logs())}`);
		}
		await new Promise((r) => setTimeout(r, 300));
	}
	return { url, port: listenPort, version: versionOf(n8nHome), process: child, logs, rest: new RestClient(url), stop, exited };
}

/**
 * The start of a suite that needs published workflows, with no n8n process but `n8n start` (`startOpts` as
 * startN8n's): creates the owner account, saves `credentials` and `workflows` (prepared as prepareWorkflow() does)
 * through the REST API as the editor does, and publishes each workflow as the editor's "Publish" does, waiting until
 * its publication has settled. n8n gives each credential its own id: the credential objects and the workflows'
 * references to them are updated to it. Resolves with the instance, the saved workflows and each one's publication
 * status, in order ('published' when it worked, else the status and its triggers' errors).
 */
async function startN8nWithPublished(userFolder, { credentials = [], workflows }, { publicationTimeoutMs = 60000, ...startOpts } = {}) {
	const n8n = await startN8n(userFolder, startOpts);
	await n8n.rest.setupOwner();
	const storedIds = new Map();
	for (const credential of credentials) {
		const stored = await n8n.rest.createCredential(credential);
		storedIds.set(credential.id, stored.id);
		credential.id = stored.id;
	}
	const saved = [];
	for (const workflow of workflows) {
		const wf = prepareWorkflow(workflow);
		for (const node of wf.nodes || []) {
			for (const ref of Object.values(node.credentials || {})) if (storedIds.has(ref.id)) ref.id = storedIds.get(ref.id);
		}
		// n8n 1.x gives a new workflow its own id.
		wf.id = (await n8n.rest.createWorkflow(wf)).id;
		saved.push(wf);
	}
	const statuses = [];
	for (const wf of saved) {
		const activated = await n8n.rest.activateWorkflow(wf.id);
		// n8n 1.x activates before it answers; 2.x publishes afterwards, through its outbox.
		if (n8n.version.startsWith('1.')) {
			statuses.push(activated.active ? 'published' : `not active: ${JSON.stringify(activated)}`);
			continue;
		}
		const st = await n8n.rest.waitForPublication(wf.id, { versionId: activated.versionId, timeoutMs: publicationTimeoutMs });
		statuses.push(st.status === 'published' ? st.status : `${st.status}: ${JSON.stringify(st.triggers)}`);
	}
	return { n8n, workflows: saved, statuses };
}

module.exports = {
	n8nCli,
	newId,
	sandboxCredential,
	liveCredential,
	importCredential,
	prepareWorkflow,
	importWorkflow,
	execute,
	nodeItems,
	nodeError,
	startN8n,
	startN8nWithPublished,
};
