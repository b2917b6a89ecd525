#!/usr/bin/env node
'use strict';
/**
 * `npm run release:check`: everything the publish workflow (.github/workflows/publish.yml) checks before
 * `npm publish --provenance`, runnable on any machine: build, lint, formatting (Prettier), n8n's package scanner on the source and
 * the packed tarball (scripts/scan-package.js), typecheck, no import cycle in nodes/ (scripts/check-cycles.js),
 * the whole test suite, and what `npm pack` would ship (scripts/pack-files.js). On a tag build (GITHUB_REF_TYPE=tag) the tag must be
 * v<package.json version>. Stops at the first failing step.
 */
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

const { packList, unexpectedFiles } = require('./pack-files');

const ROOT = path.resolve(__dirname, '..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

function fail(message) {
	console.error(`[release:check] ${message}`);
	process.exit(1);
}

if (process.env.GITHUB_REF_TYPE === 'tag' && process.env.GITHUB_REF_NAME !== `v${pkg.version}`) {
	fail(`tag ${process.env.GITHUB_REF_NAME} does not match package.json version ${pkg.version} (expected v${pkg.version})`);
}

for (const script of ['build', 'lint', 'format:check', 'scan', 'typecheck', 'cycles', 'test']) {
	console.log(`[release:check] npm run ${script}`);
	const res = spawnSync('npm', ['run', script], { cwd: ROOT, stdio: 'inherit' });
	if (res.status !== 0) fail(`npm run ${script} failed`);
}

const { files, size, unpackedSize } = packList();
const unexpected = unexpectedFiles(files);
if (unexpected.length) fail(`npm pack would ship files a user does not need: ${unexpected.join(', ')}`);
const missing = [...(pkg.n8n.nodes || []), ...(pkg.n8n.credentials || [])].filter((f) => !files.includes(f));
if (missing.length) fail(`npm pack would leave out files package.json's n8n section lists: ${missing.join(', ')}`);
console.log(
	`[release:check] npm pack: ${files.length} files, ${size} bytes (${unpackedSize} unpacked); ready to publish ${pkg.name}@${pkg.version}`,
);
