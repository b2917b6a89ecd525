'use strict';
/**
 * What `npm pack` (and so `npm publish`) puts in the package, and the rule for it: the compiled nodes and
 * credential with their icons, codex files and data the nodes import (e.g. the base-model presets), plus package.json, README.md, LICENSE and CHANGELOG.md.
 * No source maps and no type declarations (n8n loads the JavaScript; nobody imports this package as a
 * library, and maps would point at TypeScript sources that are not shipped), no tests, sandbox or scripts.
 * Used by scripts/release-check.js and test/project/publish-workflow.test.ts. Needs a built dist/.
 */
const { execFileSync } = require('child_process');
const path = require('path');

const ROOT = path.resolve(__dirname, '..');

const TOP_LEVEL = ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md'];
const SHIPPED = /^dist\/(nodes|credentials|icons)\/.+\.(js|json|svg|png)$/;

/** Paths (relative, with /) that `npm pack --dry-run` lists, and the tarball's size in bytes. */
function packList() {
	// The caller's npm settings (e.g. npm_config_dry_run or _json from an outer `npm run`) stay out.
	const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_(config|lifecycle|package)_/i.test(k)));
	const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', '--loglevel=error'], {
		cwd: ROOT,
		env,
		encoding: 'utf8',
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	const [info] = JSON.parse(out);
	return { files: info.files.map((f) => f.path).sort(), size: info.size, unpackedSize: info.unpackedSize };
}

/** Files of the list that a user of the package does not need. */
function unexpectedFiles(files) {
	return files.filter((f) => !TOP_LEVEL.includes(f) && !SHIPPED.test(f));
}

module.exports = { packList, unexpectedFiles };
