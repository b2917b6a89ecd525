'use strict';
/**
 * Harness for running this package inside a REAL n8n (the pinned version provisioned by
 * scripts/provision-n8n.sh), exactly as a user's self-hosted n8n loads a community package.
 *
 * Used by the e2e tests (test/e2e), the demo (scripts/demo.js) and the benchmark. Plain CommonJS.
 *
 *   const h = require('./scripts/e2e/n8n');
 *   const home = await h.ensureN8n();            // cached install of n8n@2.41.1, runs on Node 24
 *   await h.ensureBuilt();                       // `npm run build` when dist/ is older than the sources
 *   const uf = h.createUserFolder();             // private N8N_USER_FOLDER with the package installed
 *   await h.importCredential(uf, h.sandboxCredential(sandbox));
 *   await h.importWorkflow(uf, 'examples/text-to-image-batch.json');
 *   const run = await h.execute(uf, workflowId); // `n8n execute --id --rawOutput`, parsed
 *   const n8n = await h.startN8n(uf);            // `n8n start` on 127.0.0.1, ready
 *   await n8n.stop();
 *
 * Every n8n process runs on Node 24 (the binary resolved by scripts/node24.sh), in its own process
 * group, and is killed when this process exits.
 */
const { spawn, execFileSync } = require('child_process');
const crypto = require('crypto');
const fs = require('fs');
const http = require('http');
const net = require('net');
const os = require('os');
const path = require('path');

const ROOT = path.resolve(__dirname, '..', '..');
const PACKAGE_NAME = 'n8n-nodes-runcomfy';
const N8N_VERSION = process.env.N8N_VERSION || '2.41.1';
const CACHE_DIR = process.env.RUNCOMFY_CACHE_DIR || path.join(os.homedir(), '.cache', 'n8n-nodes-runcomfy');
const CREDENTIAL_NAME = 'RunComfy account';
const CREDENTIAL_TYPE = 'runComfyApi';
/** Node type names inside n8n (community package name + node `name`). */
const NODE_TYPES = {
	model: `${PACKAGE_NAME}.runComfyModel`,
	deployment: `${PACKAGE_NAME}.runComfyDeployment`,
	dataset: `${PACKAGE_NAME}.runComfyDataset`,
	training: `${PACKAGE_NAME}.runComfyTraining`,
	trigger: `${PACKAGE_NAME}.runComfyTrigger`,
};
/** Login of the owner account the harness creates on a fresh `n8n start`. */
const DEFAULT_OWNER = {
	email: 'owner@example.com',
	firstName: 'Demo',
	lastName: 'Owner',
	password: 'RunComfy-Demo-2024',
};

// ---------------------------------------------------------------------------------------------
// Child process bookkeeping: every child runs in its own process group and dies with us.

const children = new Set();

function killGroup(child, signal) {
	if (!child.pid || child.exitCode !== null || child.signalCode !== null) return;
	try {
		process.kill(-child.pid, signal);
	} catch {
		try {
			child.kill(signal);
		} catch {
			/* already gone */
		}
	}
}

process.on('exit', () => {
	for (const child of children) killGroup(child, 'SIGKILL');
});
/** Kills every n8n (or other) process this module started. */
function killAll(signal = 'SIGKILL') {
	for (const child of children) killGroup(child, signal);
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
	const onSignal = () => {
		// Someone else handles the signal (the demo stops n8n gracefully): leave it to them.
		if (process.listenerCount(signal) > 1) return;
		killAll('SIGKILL');
		process.exit(128 + (os.constants.signals[signal] || 1));
	};
	process.on(signal, onSignal);
}

function track(child) {
	children.add(child);
	child.once('exit', () => children.delete(child));
	return child;
}

/**
 * Spawns a command in its own process group, collects its output. Resolves with
 * { code, signal, stdout, stderr } (never rejects on a non-zero exit; rejects on timeout).
 */
function run(command, args, { cwd = ROOT, env = process.env, timeoutMs = 10 * 60 * 1000, onStderr, onStdout } = {}) {
	return new Promise((resolve, reject) => {
		const child = track(spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] }));
		let stdout = '';
		let stderr = '';
		child.stdout.setEncoding('utf8');
		child.stderr.setEncoding('utf8');
		child.stdout.on('data', (d) => {
			stdout += d;
			if (onStdout) onStdout(d);
		});
		child.stderr.on('data', (d) => {
			stderr += d;
			if (onStderr) onStderr(d);
		});
		const timer = setTimeout(() => {
			killGroup(child, 'SIGKILL');
			const err = new Error(`${path.basename(command)} ${args.join(' ')} timed out after ${timeoutMs} ms`);
			err.stdout = stdout;
			err.stderr = stderr;
			reject(err);
		}, timeoutMs);
		child.on('error', (err) => {
			clearTimeout(timer);
			reject(err);
		});
		child.on('close', (code, signal) => {
			clearTimeout(timer);
			resolve({ code, signal, stdout, stderr });
		});
	});
}

// ---------------------------------------------------------------------------------------------
// Node 24, provisioning, build

let node24Cache;
/** The Node 24 binary scripts/node24.sh selects (installing it into the cache once if needed). */
function node24() {
	if (!node24Cache) {
		const out = execFileSync('bash', [path.join(ROOT, 'scripts', 'node24.sh'), 'node', '-p', 'process.execPath'], {
			encoding: 'utf8',
			stdio: ['ignore', 'pipe', 'inherit'],
		}).trim();
		const bin = out.split('\n').pop().trim();
		node24Cache = { bin, binDir: path.dirname(bin) };
	}
	return node24Cache;
}

/** Lock across processes (jest workers, demo + tests) for build and provisioning. */
async function withLock(name, fn, { timeoutMs = 20 * 60 * 1000 } = {}) {
	fs.mkdirSync(CACHE_DIR, { recursive: true });
	const lockDir = path.join(CACHE_DIR, `${name}.lock`);
	const started = Date.now();
	for (;;) {
		try {
			fs.mkdirSync(lockDir);
			fs.writeFileSync(path.join(lockDir, 'pid'), String(process.pid));
			break;
		} catch (err) {
			if (err.code !== 'EEXIST') throw err;
			// Break locks left behind by a dead process.
			let holder = NaN;
			try {
				holder = Number(fs.readFileSync(path.join(lockDir, 'pid'), 'utf8'));
			} catch {
				/* being written */
			}
			if (Number.isInteger(holder) && holder > 0 && !isAlive(holder)) {
				fs.rmSync(lockDir, { recursive: true, force: true });
				continue;
			}
			if (Date.now() - started > timeoutMs) throw new Error(`Timed out waiting for lock ${lockDir}`);
			await new Promise((r) => setTimeout(r, 250));
		}
	}
	try {
		return await fn();
	} finally {
		fs.rmSync(lockDir, { recursive: true, force: true });
	}
}

function isAlive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch (err) {
		return err.code === 'EPERM';
	}
}

/**
 * Installs (once, cached outside the clone) and returns the home of the pinned n8n.
 * The first run takes several minutes; later runs return at once.
 */
async function ensureN8n({ log = defaultLog } = {}) {
	const home = path.join(CACHE_DIR, `n8n-${N8N_VERSION}`);
	if (fs.existsSync(path.join(home, '.ready'))) return home;
	return withLock('provision', async () => {
		log(`[e2e] provisioning n8n@${N8N_VERSION} (first run: several minutes)`);
		const res = await run(
			'bash',
			[path.join(ROOT, 'scripts', 'node24.sh'), 'bash', path.join(ROOT, 'scripts', 'provision-n8n.sh')],
			{ timeoutMs: 30 * 60 * 1000, onStderr: (d) => process.stderr.write(d) },
		);
		if (res.code !== 0) throw new Error(`provision-n8n.sh failed (exit ${res.code}):\n${res.stderr.slice(-4000)}`);
		const printed = res.stdout.trim().split('\n').pop().trim();
		if (!fs.existsSync(path.join(printed, '.ready'))) throw new Error(`provision-n8n.sh printed ${printed}, which is not ready`);
		return printed;
	});
}

function n8nBin(home) {
	return path.join(home, 'node_modules', 'n8n', 'bin', 'n8n');
}

const SOURCE_DIRS = ['credentials', 'nodes', 'icons'];

function listFiles(dir, out = []) {
	if (!fs.existsSync(dir)) return out;
	for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
		const p = path.join(dir, entry.name);
		if (entry.isDirectory()) listFiles(p, out);
		else out.push(p);
	}
	return out;
}

/**
 * True when a build is needed: a source file (.ts of credentials/ and nodes/, icons, codex .node.json)
 * has no output in dist/ or is newer than it. Leftover files in dist/ do not matter.
 */
function distIsStale() {
	const dist = path.join(ROOT, 'dist');
	if (!fs.existsSync(dist)) return true;
	for (const dir of SOURCE_DIRS) {
		for (const src of listFiles(path.join(ROOT, dir))) {
			const rel = path.relative(ROOT, src);
			let out;
			if (rel.endsWith('.d.ts')) continue;
			else if (rel.endsWith('.ts')) out = path.join(dist, rel.replace(/\.ts$/, '.js'));
			else if (/\.(svg|png)$/.test(rel) || rel.endsWith('.node.json')) out = path.join(dist, rel);
			else continue;
			// Whole milliseconds: gulp copies assets with the source's mtime truncated to ms.
			if (!fs.existsSync(out) || Math.floor(fs.statSync(src).mtimeMs) > Math.floor(fs.statSync(out).mtimeMs)) return true;
		}
	}
	return false;
}

/** Runs `npm run build` when dist/ is stale (under a lock, so parallel callers build once). */
async function ensureBuilt({ log = defaultLog, force = false } = {}) {
	return withLock('build', async () => {
		if (!force && !distIsStale()) return false;
		log('[e2e] building the package (npm run build)');
		const res = await run('npm', ['run', 'build'], { timeoutMs: 5 * 60 * 1000 });
		if (res.code !== 0) throw new Error(`npm run build failed:\n${res.stdout.slice(-4000)}\n${res.stderr.slice(-4000)}`);
		return true;
	});
}

// ---------------------------------------------------------------------------------------------
// User folder: the package installed as n8n installs community packages

/**
 * Which files package.json's `n8n` section lists, and which of them dist/ lacks.
 * A community package whose listed file is missing fails to load as a whole in n8n.
 */
function packageManifest() {
	const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
	const nodes = pkg.n8n.nodes || [];
	const credentials = pkg.n8n.credentials || [];
	const missing = [...nodes, ...credentials].filter((f) => !fs.existsSync(path.join(ROOT, f)));
	return { pkg, nodes, credentials, missing };
}

/**
 * Creates a private N8N_USER_FOLDER with the built package installed the way n8n installs community
 * packages: `<folder>/.n8n/nodes/node_modules/n8n-nodes-runcomfy/{package.json,dist}`; node types then
 * carry their published names (`n8n-nodes-runcomfy.runComfyModel`).
 *
 * Files listed in package.json but not built are dropped from the copied manifest (with a warning,
 * and reported in `missing`) so a partial package still loads; test that `missing` is empty.
 */
function createUserFolder({ dir, encryptionKey, keep = !!process.env.E2E_KEEP } = {}) {
	const { pkg, missing } = packageManifest();
	if (!fs.existsSync(path.join(ROOT, 'dist'))) throw new Error('dist/ does not exist: run ensureBuilt() first');
	const folder = dir || fs.mkdtempSync(path.join(os.tmpdir(), 'runcomfy-n8n-'));
	const pkgDir = path.join(folder, '.n8n', 'nodes', 'node_modules', PACKAGE_NAME);
	fs.rmSync(pkgDir, { recursive: true, force: true });
	fs.mkdirSync(pkgDir, { recursive: true });
	const manifest = JSON.parse(JSON.stringify(pkg));
	if (missing.length) {
		defaultLog(`[e2e] WARNING: package.json lists files that are not built, left out of the install: ${missing.join(', ')}`);
		manifest.n8n.nodes = (manifest.n8n.nodes || []).filter((f) => !missing.includes(f));
		manifest.n8n.credentials = (manifest.n8n.credentials || []).filter((f) => !missing.includes(f));
	}
	delete manifest.devDependencies;
	delete manifest.scripts;
	fs.writeFileSync(path.join(pkgDir, 'package.json'), JSON.stringify(manifest, null, 2));
	fs.cpSync(path.join(ROOT, 'dist'), path.join(pkgDir, 'dist'), { recursive: true });
	// What `npm install` in ~/.n8n/nodes leaves behind (n8n reads it when managing packages).
	const nodesPkg = path.join(folder, '.n8n', 'nodes', 'package.json');
	if (!fs.existsSync(nodesPkg)) {
		fs.writeFileSync(
			nodesPkg,
			JSON.stringify({ name: 'installed-nodes', private: true, dependencies: { [PACKAGE_NAME]: pkg.version } }, null, 2),
		);
	}
	const userFolder = {
		dir: folder,
		n8nDir: path.join(folder, '.n8n'),
		packageDir: pkgDir,
		encryptionKey: encryptionKey || crypto.randomBytes(24).toString('hex'),
		missing,
		keep,
		/** Removes the folder (unless E2E_KEEP is set). */
		cleanup() {
			if (!keep) fs.rmSync(folder, { recursive: true, force: true });
		},
	};
	const keyFile = path.join(folder, 'encryption-key');
	if (fs.existsSync(keyFile) && !encryptionKey) userFolder.encryptionKey = fs.readFileSync(keyFile, 'utf8').trim();
	else fs.writeFileSync(keyFile, userFolder.encryptionKey);
	return userFolder;
}

/** Root of n8n's filesystem binary-data store in a user folder (set explicitly in n8nEnv). */
function binaryStoragePath(userFolder) {
	return path.join(userFolder.n8nDir, 'storage');
}

/** Where n8n's filesystem binary-data store keeps the file of a binary id (`filesystem-v2:<path>`). */
function binaryFilePath(userFolder, binaryId) {
	const m = /^filesystem(?:-v2)?:(.+)$/.exec(String(binaryId || ''));
	if (!m) throw new Error(`Not a filesystem binary id: ${binaryId}`);
	return path.join(binaryStoragePath(userFolder), m[1]);
}

// ---------------------------------------------------------------------------------------------
// Environment and CLI

/** Environment of an n8n process: offline, loopback only, private folder, Node 24 first on PATH. */
function n8nEnv(userFolder, extra = {}) {
	const { binDir } = node24();
	const base = {};
	// Start from a clean slate: no jest/ts-node/npm leftovers (NODE_ENV=test silences n8n's logger).
	for (const [k, v] of Object.entries(process.env)) {
		if (/^(npm_|NODE_OPTIONS$|NODE_ENV$|JEST_|TS_NODE|N8N_|DB_|EXECUTIONS_|WEBHOOK_URL$|GENERIC_TIMEZONE$)/.test(k)) continue;
		base[k] = v;
	}
	return {
		...base,
		PATH: `${binDir}${path.delimiter}${process.env.PATH || ''}`,
		NODE_ENV: 'production',
		HOME: process.env.HOME || os.homedir(),
		N8N_USER_FOLDER: userFolder.dir,
		N8N_ENCRYPTION_KEY: userFolder.encryptionKey,
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_WHATS_NEW_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_DYNAMIC_BANNERS_ENABLED: 'false',
		N8N_LICENSE_AUTO_RENEW_ENABLED: 'false',
		N8N_AI_ENABLED: 'false',
		N8N_METRICS: 'false',
		N8N_PYTHON_ENABLED: 'false',
		N8N_RUNNERS_MODE: 'internal',
		N8N_RUNNERS_BROKER_LISTEN_ADDRESS: '127.0.0.1',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_REINSTALL_MISSING_PACKAGES: 'false',
		// No lookups of n8n's online registries (verified community nodes, MCP servers): offline runs.
		N8N_VERIFIED_PACKAGES_ENABLED: 'false',
		N8N_DISABLED_MODULES: 'mcp-registry',
		N8N_SSRF_PROTECTION_ENABLED: 'false',
		N8N_SECURE_COOKIE: 'false',
		N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem',
		N8N_BINARY_DATA_STORAGE_PATH: binaryStoragePath(userFolder),
		N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '5',
		N8N_LOG_LEVEL: 'info',
		N8N_LOG_OUTPUT: 'console',
		DB_TYPE: 'sqlite',
		GENERIC_TIMEZONE: 'UTC',
		TZ: 'UTC',
		...extra,
	};
}

function defaultLog(msg) {
	process.stderr.write(`${msg}\n`);
}

/** Asks the OS for a free loopback TCP port. */
function freePort() {
	return new Promise((resolve, reject) => {
		const srv = net.createServer();
		srv.unref();
		srv.on('error', reject);
		srv.listen(0, '127.0.0.1', () => {
			const { port } = srv.address();
			srv.close(() => resolve(port));
		});
	});
}

/** True when nothing listens on 127.0.0.1:port. */
function portIsFree(port) {
	return new Promise((resolve) => {
		const srv = net.createServer();
		srv.unref();
		srv.once('error', () => resolve(false));
		srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
	});
}

/**
 * Runs one n8n CLI command (`n8n <args>`) against the user folder, on Node 24.
 * Resolves with { code, stdout, stderr }; use `check: true` to reject on a non-zero exit.
 */
async function n8nCli(userFolder, args, { home, env = {}, timeoutMs = 3 * 60 * 1000, check = false } = {}) {
	const n8nHome = home || (await ensureN8n());
	const brokerPort = await freePort();
	const res = await run(node24().bin, [n8nBin(n8nHome), ...args], {
		cwd: userFolder.dir,
		env: n8nEnv(userFolder, { N8N_RUNNERS_BROKER_PORT: String(brokerPort), ...env }),
		timeoutMs,
	});
	if (check && res.code !== 0) {
		const err = new Error(`n8n ${args.join(' ')} failed (exit ${res.code}):\n${tail(res.stdout)}\n${tail(res.stderr)}`);
		Object.assign(err, res);
		throw err;
	}
	return res;
}

function tail(s, n = 6000) {
	return s.length > n ? `...${s.slice(-n)}` : s;
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

// ---------------------------------------------------------------------------------------------
// n8n start + REST

/** Minimal HTTP client (JSON, cookie jar) for n8n's internal REST API. */
class RestClient {
	constructor(baseUrl) {
		this.baseUrl = baseUrl.replace(/\/+$/, '');
		this.cookies = new Map();
		this.browserId = crypto.randomUUID();
	}

	cookieHeader() {
		return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
	}

	async request(method, urlPath, body, { headers = {}, raw = false } = {}) {
		const url = new URL(urlPath, `${this.baseUrl}/`);
		const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
		const res = await new Promise((resolve, reject) => {
			const req = http.request(
				url,
				{
					method,
					headers: {
						accept: 'application/json',
						'browser-id': this.browserId,
						...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
						...(this.cookies.size ? { cookie: this.cookieHeader() } : {}),
						...headers,
					},
				},
				(r) => {
					const chunks = [];
					r.on('data', (c) => chunks.push(c));
					r.on('end', () => resolve({ status: r.statusCode, headers: r.headers, body: Buffer.concat(chunks) }));
					r.on('error', reject);
				},
			);
			req.on('error', reject);
			if (payload) req.write(payload);
			req.end();
		});
		for (const c of [].concat(res.headers['set-cookie'] || [])) {
			const [pair] = c.split(';');
			const eq = pair.indexOf('=');
			this.cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
		}
		if (raw) return res;
		const text = res.body.toString('utf8');
		let json;
		try {
			json = text ? JSON.parse(text) : undefined;
		} catch {
			json = undefined;
		}
		if (res.status >= 400) {
			const err = new Error(`${method} ${urlPath} -> HTTP ${res.status}: ${text.slice(0, 2000)}`);
			err.status = res.status;
			err.body = json !== undefined ? json : text;
			throw err;
		}
		// n8n's REST wraps payloads in { data }.
		return json && typeof json === 'object' && 'data' in json ? json.data : json;
	}

	get(p, opts) {
		return this.request('GET', p, undefined, opts);
	}

	post(p, body, opts) {
		return this.request('POST', p, body === undefined ? {} : body, opts);
	}

	patch(p, body, opts) {
		return this.request('PATCH', p, body, opts);
	}

	/** Creates the owner account on a fresh instance (POST /rest/owner/setup); logs in otherwise. */
	async setupOwner(owner = DEFAULT_OWNER) {
		try {
			await this.post('/rest/owner/setup', owner);
		} catch (err) {
			if (err.status !== 400 && err.status !== 403) throw err;
		}
		return this.login(owner);
	}

	/** POST /rest/login: sets the `n8n-auth` cookie. */
	async login(owner = DEFAULT_OWNER) {
		return this.post('/rest/login', { emailOrLdapLoginId: owner.email, password: owner.password });
	}

	/** Creates a credential through POST /rest/credentials (what the editor's credential dialog does). */
	async createCredential(cred) {
		return this.post('/rest/credentials', { name: cred.name, type: cred.type, data: cred.data });
	}

	/** POST /rest/credentials/test — the editor's "Test"/"Retest" button. */
	async testCredential(cred) {
		return this.post('/rest/credentials/test', { credentials: { id: cred.id, name: cred.name, type: cred.type, data: cred.data } });
	}

	/**
	 * POST /rest/dynamic-node-parameters/resource-locator-results — what the editor calls to fill a
	 * resource locator's "From list" dropdown (and again, with `filter`, as the user types).
	 */
	async resourceLocatorResults({ nodeType, version = 1, path: paramPath, methodName, parameters, credential, filter, paginationToken }) {
		return this.post('/rest/dynamic-node-parameters/resource-locator-results', {
			nodeTypeAndVersion: { name: nodeType, version },
			path: paramPath,
			methodName,
			currentNodeParameters: parameters || {},
			credentials: credential ? { [credential.type || CREDENTIAL_TYPE]: { id: credential.id, name: credential.name } } : undefined,
			...(filter !== undefined ? { filter } : {}),
			...(paginationToken !== undefined ? { paginationToken } : {}),
		});
	}

	/** POST /rest/dynamic-node-parameters/resource-mapper-fields — the fields of a resourceMapper parameter. */
	async resourceMapperFields({ nodeType, version = 1, path: paramPath, methodName, parameters, credential }) {
		return this.post('/rest/dynamic-node-parameters/resource-mapper-fields', {
			nodeTypeAndVersion: { name: nodeType, version },
			path: paramPath,
			methodName,
			currentNodeParameters: parameters || {},
			credentials: credential ? { [credential.type || CREDENTIAL_TYPE]: { id: credential.id, name: credential.name } } : undefined,
		});
	}

	/** GET /rest/workflows/:id — the stored workflow (nodes, versionId, activeVersionId, active, staticData...). */
	async getWorkflow(workflowId) {
		return this.get(`/rest/workflows/${encodeURIComponent(workflowId)}`);
	}

	/**
	 * Publishes (activates) a workflow as the editor's "Publish" button does: POST /rest/workflows/:id/activate
	 * with the current versionId. n8n registers its triggers before answering; a polling trigger runs its first
	 * poll then (an error there fails the call with the trigger's message).
	 */
	async activateWorkflow(workflowId, { versionId } = {}) {
		const version = versionId || (await this.getWorkflow(workflowId)).versionId;
		return this.post(`/rest/workflows/${encodeURIComponent(workflowId)}/activate`, { versionId: version });
	}

	/**
	 * GET /rest/workflows/:id/publication-status (n8n 2.x publication service):
	 * { status: 'in_progress'|'published'|'partial'|'failed'|'not_published', liveVersionId, pendingVersionId,
	 *   triggers: [{ nodeId, status, errorMessage }] }.
	 */
	async publicationStatus(workflowId) {
		return this.get(`/rest/workflows/${encodeURIComponent(workflowId)}/publication-status`);
	}

	/**
	 * Waits until a publication has settled (n8n 2.41 activates through an outbox, after the activate call
	 * answered): status no longer 'in_progress' and, when given, `liveVersionId` is that version. Resolves with
	 * the status; a failed publication resolves too (its `triggers[].errorMessage` says why).
	 */
	async waitForPublication(workflowId, { versionId, timeoutMs = 60000, intervalMs = 200 } = {}) {
		const deadline = Date.now() + timeoutMs;
		for (;;) {
			const st = await this.publicationStatus(workflowId);
			const settled = st && st.status !== 'in_progress' && !st.pendingVersionId;
			if (settled && (st.status !== 'published' || !versionId || st.liveVersionId === versionId)) return st;
			if (Date.now() > deadline) throw new Error(`publication of workflow ${workflowId} did not settle in ${timeoutMs} ms: ${JSON.stringify(st)}`);
			await new Promise((r) => setTimeout(r, intervalMs));
		}
	}

	/** POST /rest/workflows/:id/deactivate — unpublishes: the triggers stop (the static data is kept). */
	async deactivateWorkflow(workflowId) {
		return this.post(`/rest/workflows/${encodeURIComponent(workflowId)}/deactivate`, {});
	}

	/**
	 * GET /rest/executions — the executions list of the editor (newest first), optionally for one workflow:
	 * [{ id, workflowId, mode, status, finished, startedAt, stoppedAt, ... }].
	 */
	async listExecutions({ workflowId, limit = 100 } = {}) {
		const filter = workflowId ? `&filter=${encodeURIComponent(JSON.stringify({ workflowId }))}` : '';
		const res = await this.get(`/rest/executions?limit=${limit}${filter}`);
		return (res && res.results) || [];
	}

	/**
	 * GET /rest/executions/:id with its data decoded (n8n sends it `flatted`-encoded; decoded with n8n's own
	 * copy of flatted): { id, status, mode, finished, data: { resultData: { runData, error? } }, ... } — the
	 * same shape as `execute()`'s `run`, so nodeItems()/nodeError() work on it.
	 */
	async getExecution(executionId) {
		const exec = await this.get(`/rest/executions/${encodeURIComponent(executionId)}`);
		if (exec && typeof exec.data === 'string') exec.data = flattedParse(exec.data);
		return exec;
	}

	/** POST /rest/dynamic-node-parameters/options — a loadOptions method (options/multiOptions parameters). */
	async loadOptions({ nodeType, version = 1, path: paramPath, methodName, parameters, credential }) {
		return this.post('/rest/dynamic-node-parameters/options', {
			nodeTypeAndVersion: { name: nodeType, version },
			path: paramPath,
			methodName,
			currentNodeParameters: parameters || {},
			credentials: credential ? { [credential.type || CREDENTIAL_TYPE]: { id: credential.id, name: credential.name } } : undefined,
		});
	}
}

/** flatted.parse from the provisioned n8n (it encodes execution data with it); falls back to our own. */
function flattedParse(text) {
	let flatted;
	try {
		flatted = require(path.join(CACHE_DIR, `n8n-${N8N_VERSION}`, 'node_modules', 'flatted'));
	} catch {
		flatted = require('flatted');
	}
	return flatted.parse(text);
}

/**
 * Publishes a workflow in the database (`n8n publish:workflow --id`), for an n8n that is NOT running:
 * the next `n8n start` activates it (and a polling trigger runs its first poll at once).
 */
async function publishWorkflow(userFolder, workflowId, opts = {}) {
	return n8nCli(userFolder, ['publish:workflow', `--id=${workflowId}`], { ...opts, check: true });
}

/**
 * Starts `n8n start` on 127.0.0.1 (free port unless given) and waits for /healthz/readiness.
 * Resolves with { url, port, process, logs(), rest (RestClient), stop() }.
 */
async function startN8n(userFolder, { port, home, env = {}, readyTimeoutMs = 120000, log, echo = false } = {}) {
	const n8nHome = home || (await ensureN8n({ log }));
	const listenPort = port || (await freePort());
	const brokerPort = await freePort();
	const url = `http://127.0.0.1:${listenPort}`;
	const child = track(
		spawn(node24().bin, [n8nBin(n8nHome), 'start'], {
			cwd: userFolder.dir,
			env: n8nEnv(userFolder, {
				N8N_PORT: String(listenPort),
				N8N_LISTEN_ADDRESS: '127.0.0.1',
				N8N_HOST: '127.0.0.1',
				N8N_PROTOCOL: 'http',
				N8N_EDITOR_BASE_URL: `${url}/`,
				WEBHOOK_URL: `${url}/`,
				N8N_RUNNERS_BROKER_PORT: String(brokerPort),
				N8N_PUSH_BACKEND: 'websocket',
				...env,
			}),
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
		if (state.status === 200) break;
		if (Date.now() > deadline) {
			await stop();
			throw new Error(`n8n did not become ready on ${url} within ${readyTimeoutMs} ms:\n${tail(logs())}`);
		}
		await new Promise((r) => setTimeout(r, 300));
	}
	return { url, port: listenPort, process: child, logs, rest: new RestClient(url), stop, exited };
}

/**
 * Keeps the last ~1 MB of a detached child's output (echoed to stderr when asked, with an optional prefix)
 * and stops its whole process group: SIGTERM, then SIGKILL after 15 s. Returns { logs(), exited, stop() }.
 */
function supervise(child, { echo = false, prefix = '' } = {}) {
	let output = '';
	const onData = (d) => {
		output += d;
		if (output.length > 2e6) output = output.slice(-1e6);
		if (echo) process.stderr.write(`${prefix}${d}`);
	};
	child.stdout.setEncoding('utf8');
	child.stderr.setEncoding('utf8');
	child.stdout.on('data', onData);
	child.stderr.on('data', onData);
	const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
	const stop = async () => {
		if (child.exitCode !== null || child.signalCode !== null) return;
		killGroup(child, 'SIGTERM');
		const t = setTimeout(() => killGroup(child, 'SIGKILL'), 15000);
		await exited;
		clearTimeout(t);
	};
	return { logs: () => output, exited, stop };
}

function httpStatus(url) {
	return new Promise((resolve) => {
		const req = http.get(url, (res) => {
			res.resume();
			resolve(res.statusCode);
		});
		req.setTimeout(2000, () => req.destroy());
		req.on('error', () => resolve(0));
	});
}

module.exports = {
	supervise,
	killGroup,
	ROOT,
	PACKAGE_NAME,
	N8N_VERSION,
	CACHE_DIR,
	CREDENTIAL_NAME,
	CREDENTIAL_TYPE,
	NODE_TYPES,
	DEFAULT_OWNER,
	node24,
	ensureN8n,
	ensureBuilt,
	distIsStale,
	packageManifest,
	createUserFolder,
	binaryFilePath,
	binaryStoragePath,
	n8nEnv,
	n8nCli,
	freePort,
	portIsFree,
	newId,
	sandboxCredential,
	liveCredential,
	importCredential,
	prepareWorkflow,
	importWorkflow,
	publishWorkflow,
	parseRunOutput,
	execute,
	nodeItems,
	nodeError,
	RestClient,
	startN8n,
	run,
	killAll,
};
