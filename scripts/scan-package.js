#!/usr/bin/env node
'use strict';
/**
 * `npm run scan`: n8n's community package scanner (@n8n/scan-community-package, what n8n runs before it
 * verifies a package), offline. The scanner's CLI only takes a published name (it fetches the tarball and
 * the GitHub source at the provenance commit), so this calls its analysis directly on the same two legs:
 *   - the source: package.json and nodes/, credentials/ (the scanner's SOURCE_FILE_PATTERNS);
 *   - the packed tarball: its compiled .js and package.json (needs a built dist/).
 * Inline eslint-disable comments are ignored there, as in the real scan. `--source` runs the first leg only.
 * Exit status 1 when either leg has a violation, with the scanner's report.
 */
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { pathToFileURL } = require('url');

const ROOT = path.resolve(__dirname, '..');

/** The scanner module (require.resolve, so NODE_PATH can point at a copy installed elsewhere). */
async function loadScanner() {
	let file;
	try {
		file = require.resolve('@n8n/scan-community-package/scanner/scanner.mjs', { paths: [ROOT] });
	} catch {
		throw new Error('@n8n/scan-community-package is not installed: run npm ci');
	}
	return await import(pathToFileURL(file).href);
}

/** `npm pack` into a temporary directory, unpacked; returns the package directory. */
function packed(tmp) {
	// The caller's npm settings (e.g. npm_config_dry_run from an outer `npm run`) stay out.
	const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_(config|lifecycle|package)_/i.test(k)));
	const out = execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--loglevel=error', '--pack-destination', tmp], {
		cwd: ROOT,
		env,
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	const [info] = JSON.parse(out);
	const dir = path.join(tmp, 'package');
	fs.mkdirSync(dir);
	execFileSync('tar', ['-xzf', path.join(tmp, info.filename), '-C', dir, '--strip-components=1']);
	return dir;
}

/** Both legs (or the source only); `{ passed, report }`. */
async function scan({ sourceOnly = false } = {}) {
	const { analyzePackage, SOURCE_FILE_PATTERNS } = await loadScanner();
	const legs = [['source', await analyzePackage(ROOT, SOURCE_FILE_PATTERNS)]];
	if (!sourceOnly) {
		if (!fs.existsSync(path.join(ROOT, 'dist'))) throw new Error('no dist/: run npm run build first');
		const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'runcomfy-scan-'));
		try {
			legs.push(['tarball', await analyzePackage(packed(tmp), ['**/*.js', 'package.json'])]);
		} finally {
			fs.rmSync(tmp, { recursive: true, force: true });
		}
	}
	const report = legs
		.map(([leg, r]) => `[scan] ${leg}: ${r.passed ? 'passed' : `FAILED (${r.message})`}${r.details ? `\n${r.details}` : ''}`)
		.join('\n');
	return { passed: legs.every(([, r]) => r.passed), report };
}

// eslint-plugin-n8n-nodes-base reads file names differently under NODE_ENV=test (its own tests' layout),
// which jest sets: every node would fail its file-name rule.
delete process.env.NODE_ENV;
scan({ sourceOnly: process.argv.includes('--source') }).then(
	({ passed, report }) => {
		console.log(report);
		process.exit(passed ? 0 : 1);
	},
	(err) => {
		console.error(`[scan] ${err.message}`);
		process.exit(1);
	},
);
