'use strict';
/**
 * What the selected test files need beyond node_modules, prepared by `npm test` (scripts/run-tests.js) in
 * the background while jest runs the in-process suites first (scripts/jest-sequencer.js puts the real-n8n
 * suites last):
 *
 *   test/e2e               Node 24 + the pinned n8n (scripts/provision-n8n.sh) and the built package
 *   test/e2e/versions.*, retry-execution  the latest n8n 1.x too
 *   test/e2e/editor        Debian's chromium
 *   test/e2e/queue         Debian's redis-server and postgresql
 *
 * System packages are installed as root (or with password-less sudo); otherwise the step fails with one line
 * naming the command to run. A failed step is reported here and again by the tests that need it (they run
 * the same step in their beforeAll and fail with its message): nothing is skipped.
 */
const fs = require('fs');
const path = require('path');

const ROOT = path.resolve(__dirname, '..');
/** The real-n8n suites that also run on n8n 1.x. */
const N8N_1X_SUITES = /[\\/]test[\\/]e2e[\\/](versions\.[^\\/]*|retry-execution\.test\.ts)$/;

/** Jest options whose next argument is a value, not a test path pattern. */
const OPTIONS_WITH_VALUE = new Set([
	'-t',
	'--testNamePattern',
	'--testPathIgnorePatterns',
	'--config',
	'-c',
	'--maxWorkers',
	'-w',
	'--outputFile',
	'--selectProjects',
]);

/** Test path patterns among jest's arguments (what jest matches test files against). */
function pathPatterns(args) {
	const patterns = [];
	for (let i = 0; i < args.length; i++) {
		const a = args[i];
		if (OPTIONS_WITH_VALUE.has(a)) i++;
		else if (a.startsWith('--testPathPattern=')) patterns.push(a.slice('--testPathPattern='.length));
		else if (!a.startsWith('-')) patterns.push(a);
	}
	return patterns;
}

/** The test files under `dir`, its subfolders included. */
function testFiles(dir) {
	const abs = path.join(ROOT, dir);
	if (!fs.existsSync(abs)) return [];
	return fs
		.readdirSync(abs, { recursive: true })
		.filter((f) => /\.test\.[jt]s$/.test(f))
		.map((f) => path.join(abs, f));
}

/** Which prerequisites the test files selected by `args` need: { n8n, chromium, queueServices }. */
function prerequisitesFor(args) {
	const patterns = pathPatterns(args);
	const selected = (file) =>
		patterns.length === 0 ||
		patterns.some((p) => {
			try {
				return new RegExp(p, 'i').test(file);
			} catch {
				return file.includes(p);
			}
		});
	const e2e = testFiles('test/e2e').filter(selected);
	const queue = testFiles('test/e2e/queue').filter(selected);
	return {
		n8n: e2e.length > 0,
		n8n1x: e2e.some((f) => N8N_1X_SUITES.test(f)),
		chromium: e2e.some((f) => path.basename(f).startsWith('editor.')),
		queueServices: queue.length > 0,
	};
}

/**
 * Starts preparing what `needs` lists; resolves (never rejects) with the names of the steps that failed.
 * Each step logs through `log`, and when it is ready.
 */
async function prepare(needs, { log = (m) => process.stderr.write(`${m}\n`) } = {}) {
	const h = require('./e2e/n8n');
	const steps = [];
	if (needs.n8n) {
		const pinned = (async () => {
			await h.ensureN8n({ log });
			await h.ensureBuilt({ log });
		})();
		steps.push([`n8n ${h.N8N_VERSION}`, () => pinned]);
		if (needs.n8n1x) {
			steps.push([
				`n8n ${h.N8N_1X_VERSION}`,
				async () => {
					// After the pinned n8n, not beside it: two downloads at once share the network.
					await pinned.catch(() => undefined);
					await h.ensureN8n({ log, version: h.N8N_1X_VERSION });
				},
			]);
		}
	}
	if (needs.chromium) steps.push(['chromium', () => require('./e2e/browser').ensureChromium()]);
	if (needs.queueServices) {
		steps.push([
			'redis-server and postgresql',
			async () => {
				const res = await h.run('bash', [path.join(ROOT, 'scripts', 'queue', 'services.sh'), 'install'], {
					timeoutMs: 20 * 60 * 1000,
					onStderr: (d) => {
						for (const line of d.split('\n')) if (line.startsWith('[setup] installing')) process.stderr.write(`${line}\n`);
					},
				});
				if (res.code !== 0) throw new Error(res.stderr.trim().split('\n').pop());
			},
		]);
	}
	const failed = [];
	const started = Date.now();
	await Promise.all(
		steps.map(async ([name, step]) => {
			try {
				await step();
				log(`[setup] ${name} ready after ${Math.round((Date.now() - started) / 1000)} s`);
			} catch (error) {
				failed.push(name);
				log(`[setup] preparing ${name} for the tests failed: ${String((error && error.message) || error).split('\n')[0]}`);
			}
		}),
	);
	return failed;
}

module.exports = { N8N_1X_SUITES, pathPatterns, prerequisitesFor, prepare };
