#!/usr/bin/env node
/**
 * `npm test`: runs jest (tests run from sources via ts-jest) in two phases, streams its normal output, then
 * prints exactly one summary line "N passed, N failed" and exits non-zero if anything failed.
 * Extra arguments are passed through to jest, e.g. `npm test -- test/helpers`.
 * Failed counts include test suites that crashed before running their tests.
 *
 *   unit   every suite outside test/e2e (in-process, no real n8n)
 *   e2e    the suites driving a real n8n (test/e2e); `--quick` (npm run test:quick) leaves them out
 *
 * What the selected e2e suites need beyond node_modules (n8n, Chromium, Redis, PostgreSQL) is prepared in the
 * background from the start, while the unit phase runs, see scripts/test-prerequisites.js. Each phase's wall
 * time and the moment the preparation finished are printed as `[test]` lines.
 */
'use strict';

const { spawn } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const root = path.resolve(__dirname, '..');
const jestBin = path.join(root, 'node_modules', '.bin', 'jest');
const started = Date.now();
const seconds = () => Math.round((Date.now() - started) / 1000);
const say = (line) => process.stderr.write(`[test] ${line}\n`);

if (!fs.existsSync(jestBin)) {
	console.error(`jest not found at ${jestBin}; run "npm ci" first.`);
	console.log('0 passed, 1 failed');
	process.exit(1);
}

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const jestArgs = args.filter((a) => a !== '--quick');
const phases = quick ? ['unit'] : ['unit', 'e2e'];

const prerequisites = require('./test-prerequisites');
const needs = quick ? {} : prerequisites.prerequisitesFor(jestArgs);
if (needs.n8n || needs.chromium || needs.queueServices) {
	void prerequisites.prepare(needs).then((failed) => {
		say(`prerequisites ${failed.length ? `failed (${failed.join(', ')})` : 'ready'} after ${seconds()} s`);
	});
}

let child;
const forward = (signal) => () => child && child.kill(signal);
process.on('SIGINT', forward('SIGINT'));
process.on('SIGTERM', forward('SIGTERM'));

/** Runs one phase; resolves with { passed, failed, suites } (a crash or a signal counts as one failure). */
function runPhase(phase) {
	const outputFile = path.join(os.tmpdir(), `runcomfy-jest-${process.pid}-${phase}.json`);
	return new Promise((resolve) => {
		child = spawn(process.execPath, [jestBin, '--json', `--outputFile=${outputFile}`, '--passWithNoTests', ...jestArgs], {
			cwd: root,
			stdio: 'inherit',
			// jest.config.js selects the phase's suites and workers.
			env: { ...process.env, RUNCOMFY_TEST_PHASE: phase },
		});
		child.on('error', (error) => {
			console.error(`Could not start jest: ${error.message}`);
			resolve({ passed: 0, failed: 1, suites: 0 });
		});
		child.on('exit', (code, signal) => {
			let passed = 0;
			let failed = 0;
			let suites = 0;
			let haveResults = false;
			try {
				const results = JSON.parse(fs.readFileSync(outputFile, 'utf8'));
				passed = results.numPassedTests || 0;
				failed = (results.numFailedTests || 0) + (results.numRuntimeErrorTestSuites || 0);
				suites = results.numTotalTestSuites || 0;
				haveResults = true;
			} catch (error) {
				console.error(`No jest results in ${outputFile}: ${error.message}`);
			} finally {
				fs.rmSync(outputFile, { force: true });
			}
			// jest failed without reporting a failed test (crash, bad config, signal): count it.
			if (!haveResults || ((code !== 0 || signal !== null) && failed === 0)) failed += 1;
			resolve({ passed, failed, suites, signal });
		});
	});
}

(async () => {
	let passed = 0;
	let failed = 0;
	let suites = 0;
	for (const phase of phases) {
		const t0 = Date.now();
		const res = await runPhase(phase);
		say(`${phase} phase: ${res.suites} suite(s) in ${Math.round((Date.now() - t0) / 1000)} s (${seconds()} s since the start)`);
		passed += res.passed;
		failed += res.failed;
		suites += res.suites;
		if (res.signal) break;
	}
	// No suite matched the arguments at all: jest alone would have failed for it.
	if (suites === 0 && failed === 0) failed = 1;
	console.log(`${passed} passed, ${failed} failed`);
	process.exit(failed > 0 ? 1 : 0);
})();
