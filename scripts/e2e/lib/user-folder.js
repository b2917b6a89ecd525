'use strict';
/**
 * A private N8N_USER_FOLDER with the built package installed as n8n installs community packages, and the
 * environment every n8n process of the harness runs with.
 */
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');

const { ROOT, PACKAGE_NAME, CACHE_DIR } = require('./constants');
const { defaultLog } = require('./processes');
const { node24 } = require('./provision');

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
		// Node keeps n8n's compiled modules between the suite's many n8n processes instead of compiling them each time.
		NODE_COMPILE_CACHE: path.join(CACHE_DIR, 'node-compile-cache'),
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

module.exports = { packageManifest, createUserFolder, binaryFilePath, n8nEnv };
