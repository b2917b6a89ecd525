#!/usr/bin/env node
/**
 * `npm test`: runs jest (tests run from sources via ts-jest), streams its normal output, then prints
 * exactly one summary line "N passed, N failed" and exits non-zero if anything failed.
 * Extra arguments are passed through to jest, e.g. `npm test -- test/helpers`.
 * Failed counts include test suites that crashed before running their tests.
 *
 * What the selected suites need beyond node_modules (n8n, Chromium, Redis, PostgreSQL) is prepared in the
 * background meanwhile, see scripts/test-prerequisites.js; jest runs those suites last.
 */
'use strict';

const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const root = path.resolve(__dirname, '..');
const jestBin = path.join(root, 'node_modules', '.bin', 'jest');
const outputFile = path.join(os.tmpdir(), `runcomfy-jest-${process.pid}-${Date.now()}.json`);

if (!fs.existsSync(jestBin)) {
	console.error(`jest not found at ${jestBin}; run "npm ci" first.`);
	console.log('0 passed, 1 failed');
	process.exit(1);
}

// With --outputFile, jest writes the JSON there and keeps its usual human-readable output.
const jestArgs = process.argv.slice(2);
const child = spawn(process.execPath, [jestBin, '--json', `--outputFile=${outputFile}`, ...jestArgs], {
	cwd: root,
	stdio: 'inherit',
});

const prerequisites = require('./test-prerequisites');
const needs = prerequisites.prerequisitesFor(jestArgs);
if (needs.n8n || needs.chromium || needs.queueServices) void prerequisites.prepare(needs);

const forward = (signal) => () => child.kill(signal);
process.on('SIGINT', forward('SIGINT'));
process.on('SIGTERM', forward('SIGTERM'));

child.on('error', (error) => {
	console.error(`Could not start jest: ${error.message}`);
	console.log('0 passed, 1 failed');
	process.exit(1);
});

child.on('exit', (code, signal) => {
	let passed = 0;
	let failed = 0;
	let haveResults = false;
	try {
		const results = JSON.parse(fs.readFileSync(outputFile, 'utf8'));
		passed = results.numPassedTests || 0;
		failed = (results.numFailedTests || 0) + (results.numRuntimeErrorTestSuites || 0);
		haveResults = true;
	} catch (error) {
		console.error(`No jest results in ${outputFile}: ${error.message}`);
	} finally {
		fs.rmSync(outputFile, { force: true });
	}
	const jestFailed = code !== 0 || signal !== null;
	if (!haveResults || (jestFailed && failed === 0)) {
		// jest failed without reporting a failed test (crash, bad config, signal): count it.
		failed += 1;
	}
	console.log(`${passed} passed, ${failed} failed`);
	process.exit(jestFailed || failed > 0 ? code || 1 : 0);
});
