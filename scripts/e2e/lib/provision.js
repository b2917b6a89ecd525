'use strict';
/**
 * Node 24, the pinned n8n (scripts/provision-n8n.sh through scripts/node24.sh) and the package build,
 * each at most once at a time across processes (jest workers, the demo, the benchmark).
 */
const { execFileSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const { ROOT, CACHE_DIR, N8N_VERSION } = require('./constants');
const { run, defaultLog } = require('./processes');

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

const n8nHomes = new Map();
/**
 * Installs (once, cached outside the clone) and returns the home of the pinned n8n, or of `version`.
 * The first run takes several minutes. Later runs take well under a second: the script re-checks the
 * cache (both native modules load) and rebuilds one that is marked ready but broken. Once per process.
 */
async function ensureN8n({ log = defaultLog, version = N8N_VERSION } = {}) {
	if (!n8nHomes.has(version)) {
		const home = withLock(`provision-${version}`, () => provisionN8n(log, version));
		n8nHomes.set(version, home);
		home.catch(() => n8nHomes.delete(version));
	}
	return n8nHomes.get(version);
}

async function provisionN8n(log, version) {
	let pending = '';
	const res = await run('bash', [path.join(ROOT, 'scripts', 'node24.sh'), 'bash', path.join(ROOT, 'scripts', 'provision-n8n.sh')], {
		env: { ...process.env, N8N_VERSION: version },
		timeoutMs: 30 * 60 * 1000,
		onStderr: (d) => {
			const lines = (pending + d).split('\n');
			pending = lines.pop();
			for (const line of lines) log(line);
		},
	});
	if (pending) log(pending);
	if (res.code !== 0) {
		// First line: the script's last word (e.g. the command to run); then the tail of its output.
		const last = res.stderr.trim().split('\n').pop();
		throw new Error(`provision-n8n.sh failed (exit ${res.code}): ${last}\n${res.stderr.slice(-4000)}`);
	}
	const printed = res.stdout.trim().split('\n').pop().trim();
	if (!fs.existsSync(path.join(printed, '.ready'))) throw new Error(`provision-n8n.sh printed ${printed}, which is not ready`);
	return printed;
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
async function ensureBuilt({ log = defaultLog } = {}) {
	return withLock('build', async () => {
		if (!distIsStale()) return false;
		log('[e2e] building the package (npm run build)');
		const res = await run('npm', ['run', 'build'], { timeoutMs: 5 * 60 * 1000 });
		if (res.code !== 0) throw new Error(`npm run build failed:\n${res.stdout.slice(-4000)}\n${res.stderr.slice(-4000)}`);
		return true;
	});
}

module.exports = { node24, withLock, ensureN8n, n8nBin, ensureBuilt };
