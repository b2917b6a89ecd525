#!/usr/bin/env node
'use strict';
/**
 * `npm run demo`: the package running inside a real n8n, in one command.
 *
 *  1. builds the package (when dist/ is stale) and provisions the pinned n8n (cached after the first run);
 *  2. starts the sandbox (a local stand-in of RunComfy) — or, with RUNCOMFY_TOKEN set, uses the live service;
 *  3. installs the package into a local n8n user folder (.n8n-user/) as a community package, creates the
 *     "RunComfy account" credential and imports the example workflows (examples/*.json);
 *  4. runs the text-to-image example with `n8n execute` and copies the generated files to demo-output/; with
 *     the sandbox, also the AI agent example with a stand-in chat model (scripts/e2e/fake-llm.js);
 *  5. starts the n8n editor on 127.0.0.1 (owner account created automatically) and keeps it running
 *     until Ctrl-C. `--exit` (or `--once`) stops after step 4.
 *
 * `--watch` (`npm run dev`): skips step 4, recompiles the sources into the installed package on every change
 * (`tsc --watch`) and starts n8n with N8N_DEV_RELOAD=true, so n8n reloads the nodes without a restart; what
 * n8n's `n8n-node dev` does, but with the pinned n8n and the sandbox, offline.
 *
 * Options: --exit/--once, --port=5678 (editor), --sandbox-port-base=8790, --fresh (wipe .n8n-user/ first),
 *          --no-run (skip step 4), --watch.
 */
const { spawn } = require('child_process');
const fs = require('fs');
const path = require('path');

const h = require('./e2e/n8n');
const { track } = require('./e2e/lib/processes');

const ROOT = h.ROOT;
const USER_FOLDER = path.join(ROOT, '.n8n-user');
const OUTPUT_DIR = path.join(ROOT, 'demo-output');
const EXAMPLES_DIR = path.join(ROOT, 'examples');
/** Stable ids, so re-running the demo updates the same credential and workflows. */
const CREDENTIAL_ID = 'runcomfyDemoCredential';
const MAIN_EXAMPLE = 'text-to-image-batch.json';

function parseArgs(argv) {
	const args = { exit: false, port: 5678, sandboxPortBase: 8790, fresh: false, run: true, watch: false };
	for (const a of argv) {
		if (a === '--exit' || a === '--once') args.exit = true;
		else if (a === '--watch') args.watch = true;
		else if (a === '--fresh') args.fresh = true;
		else if (a === '--no-run') args.run = false;
		else if (a.startsWith('--port=')) args.port = Number(a.slice(7));
		else if (a.startsWith('--sandbox-port-base=')) args.sandboxPortBase = Number(a.slice(20));
		else if (a === '--help' || a === '-h') {
			const doc = fs.readFileSync(__filename, 'utf8').split('*/')[0].split('/**')[1];
			process.stdout.write(`${doc.replace(/^ \* ?/gm, '').trim()}\n`);
			process.exit(0);
		} else {
			process.stderr.write(`Unknown option ${a} (see --help)\n`);
			process.exit(2);
		}
	}
	if (args.watch) args.run = false;
	return args;
}

function say(msg = '') {
	process.stdout.write(`${msg}\n`);
}

/** Workflow id for an example file: stable, alphanumeric, at most 21 characters. */
function exampleId(file) {
	const base = path
		.basename(file, '.json')
		.replace(/[^a-zA-Z0-9]+(.)/g, (_, c) => c.toUpperCase())
		.replace(/[^a-zA-Z0-9]/g, '');
	return `demo${base.charAt(0).toUpperCase()}${base.slice(1)}`.slice(0, 21);
}

async function startDemoSandbox(portBase) {
	const { startSandbox } = require('../sandbox');
	const families = 4;
	let free = true;
	for (let i = 0; i < families; i++) free = free && (await h.portIsFree(portBase + i));
	const sandbox = await startSandbox({
		...(free ? { portBase } : {}),
		runDurationMs: 3000,
		queueMs: 500,
		spread: 0.2, // run times vary ±20 % around their mean, like the live service
		// The timeout example runs a video model that takes longer than its 5 s Max Wait.
		modelDurations: { 'google/veo-3/text-to-video': 10 * 60 * 1000 },
	});
	if (!free) say(`  (ports ${portBase}-${portBase + families - 1} are busy: the sandbox took free ports instead)`);
	return sandbox;
}

/**
 * `tsc --watch` into the installed package's dist/, so n8n (N8N_DEV_RELOAD) sees the change in the folder it
 * loaded the package from. The first `npm run build` copied the icons and codex files there.
 */
function watchSources(userFolder) {
	const tsc = require.resolve('typescript/bin/tsc');
	const outDir = path.join(userFolder.packageDir, 'dist');
	const args = [tsc, '-p', 'tsconfig.build.json', '--watch', '--preserveWatchOutput', '--outDir', outDir];
	return track(spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'], detached: true }));
}

/**
 * examples/agent-generate-images.json with a stand-in chat model (scripts/e2e/fake-llm.js) that does what a real
 * model does with it: price a picture with Estimate Cost, make it with Run Model, answer with its URL.
 */
async function runAgentExample(userFolder, home, sandbox) {
	const fakeLlm = require('./e2e/fake-llm');
	const { agentExampleScript, agentExampleWorkflow, standInModelCredential } = require('./e2e/agent-example');
	say('- running examples/agent-generate-images.json with a stand-in chat model...');
	const llm = await fakeLlm.startFakeLlm(agentExampleScript(fakeLlm, sandbox.stable.models.textToImage, 'a red fox'));
	try {
		const openAi = standInModelCredential(llm.baseUrl, 'runcomfyDemoStandInLlm');
		await h.importCredential(userFolder, openAi, { home });
		const wf = h.prepareWorkflow(agentExampleWorkflow('Make a red fox picture', openAi), {
			credential: { id: CREDENTIAL_ID, name: h.CREDENTIAL_NAME },
			id: 'demoAgentStandInModel',
		});
		await h.importWorkflow(userFolder, wf, { credential: { id: CREDENTIAL_ID, name: h.CREDENTIAL_NAME }, home });
		const res = await h.execute(userFolder, wf.id, { home, timeoutMs: 5 * 60 * 1000 });
		const output = res.run && h.nodeItems(res.run, 'AI Agent');
		say(`  execution status: ${res.run ? res.run.status : 'none'}`);
		if (output && output[0]) say(`  the agent answered: ${String(output[0].json.output).slice(0, 300)}`);
	} finally {
		await llm.close();
	}
}

async function main() {
	const args = parseArgs(process.argv.slice(2));
	const liveToken = (process.env.RUNCOMFY_TOKEN || '').trim();
	const live = liveToken.length > 0;
	let sandbox;
	let n8n;
	let watcher;
	let stopping = false;

	const shutdown = async (code) => {
		if (stopping) return;
		stopping = true;
		say('\nStopping...');
		if (watcher) h.killGroup(watcher, 'SIGTERM');
		if (n8n) await n8n.stop().catch(() => undefined);
		if (sandbox) await sandbox.close().catch(() => undefined);
		process.exit(code);
	};
	process.on('SIGINT', () => void shutdown(0));
	process.on('SIGTERM', () => void shutdown(0));

	say(`RunComfy nodes for n8n: ${args.watch ? 'development (rebuild and reload on change)' : 'demo'}`);
	say(`- building the package (when needed) and provisioning n8n@${h.N8N_VERSION} (first run: several minutes)`);
	await h.ensureBuilt({ log: (m) => say(`  ${m}`) });
	const home = await h.ensureN8n({ log: (m) => say(`  ${m}`) });

	if (live) {
		say('- RUNCOMFY_TOKEN is set: using the LIVE RunComfy service (runs are billed to your account)');
	} else {
		say('- starting the sandbox (local stand-in of the RunComfy API)');
		sandbox = await startDemoSandbox(args.sandboxPortBase);
		say(
			`  model API  ${sandbox.urls.modelApi}\n  serverless ${sandbox.urls.serverless}\n  trainer    ${sandbox.urls.trainer}\n  files      ${sandbox.urls.files}`,
		);
	}

	if (args.fresh) fs.rmSync(USER_FOLDER, { recursive: true, force: true });
	say(`- installing the package into the n8n user folder ${path.relative(ROOT, USER_FOLDER)}/`);
	const userFolder = h.createUserFolder({ dir: USER_FOLDER, keep: true });
	if (userFolder.missing.length) say(`  note: not built yet, left out: ${userFolder.missing.join(', ')}`);

	const credential = live ? h.liveCredential(liveToken, { id: CREDENTIAL_ID }) : h.sandboxCredential(sandbox, { id: CREDENTIAL_ID });
	await h.importCredential(userFolder, credential, { home });
	const files = fs
		.readdirSync(EXAMPLES_DIR)
		.filter((f) => f.endsWith('.json'))
		.sort();
	const workflows = files.map((f) => h.prepareWorkflow(path.join(EXAMPLES_DIR, f), { credential, id: exampleId(f) }));
	await h.importWorkflow(userFolder, workflows, { credential, home });
	say(`- imported credential "${credential.name}" and ${workflows.length} example workflows:`);
	for (let i = 0; i < files.length; i++) say(`    ${files[i]}  ->  workflow ${workflows[i].id} "${workflows[i].name}"`);

	const main = workflows[files.indexOf(MAIN_EXAMPLE)];
	if (args.run && main) {
		say(`- running "${main.name}" with n8n execute${live ? ' (live: a few cents)' : ''}...`);
		const res = await h.execute(userFolder, main.id, { home, timeoutMs: 15 * 60 * 1000 });
		if (!res.run) throw new Error(`n8n execute printed no execution:\n${res.stdout.slice(-3000)}\n${res.stderr.slice(-3000)}`);
		const error = res.run.data.resultData.error;
		say(`  execution status: ${res.run.status}${error ? ` — ${error.message}` : ''}`);
		fs.mkdirSync(OUTPUT_DIR, { recursive: true });
		let copied = 0;
		for (const [nodeName, runs] of Object.entries(res.run.data.resultData.runData)) {
			const items = (runs[0] && runs[0].data && runs[0].data.main && runs[0].data.main[0]) || [];
			items.forEach((item, i) => {
				if (item.json && item.json.request_id) {
					say(`  ${nodeName} item ${i}: request ${item.json.request_id}, status ${item.json.status}`);
				}
				for (const [prop, bin] of Object.entries(item.binary || {})) {
					if (!bin.id) continue;
					const src = h.binaryFilePath(userFolder, bin.id);
					const name = `${String(i + 1).padStart(2, '0')}-${prop}-${bin.fileName || 'output'}`;
					const dest = path.join(OUTPUT_DIR, name);
					fs.copyFileSync(src, dest);
					copied++;
					say(`    ${bin.mimeType} ${bin.fileSize || ''}: ${path.relative(ROOT, dest)}`);
					say(`      (n8n's binary store: ${src})`);
				}
			});
		}
		say(`  ${copied} generated file(s) copied to ${path.relative(ROOT, OUTPUT_DIR)}/`);
		if (res.code !== 0 && !args.exit) say('  the run failed; the editor still starts so you can inspect it');
		if (res.code !== 0 && args.exit) return shutdown(1);
	}

	if (args.run && !live) await runAgentExample(userFolder, home, sandbox);

	if (args.exit) return shutdown(0);

	const port = (await h.portIsFree(args.port)) ? args.port : await h.freePort();
	say(`- starting the n8n editor on http://127.0.0.1:${port} ...`);
	if (args.watch) {
		say('- compiling the sources into the installed package on every change (tsc --watch)');
		watcher = watchSources(userFolder);
	}
	n8n = await h.startN8n(userFolder, { port, home, env: args.watch ? { N8N_DEV_RELOAD: 'true' } : {} });
	await n8n.rest.setupOwner();
	say('');
	say('  n8n is running with the RunComfy nodes installed:');
	say(`    editor:   ${n8n.url}/home/workflows`);
	if (main) say(`    example:  ${n8n.url}/workflow/${main.id}`);
	say(`    login:    ${h.DEFAULT_OWNER.email} / ${h.DEFAULT_OWNER.password}`);
	if (sandbox) say(`    sandbox:  ${sandbox.urls.modelApi} (token ${sandbox.token})`);
	say('  Executions run from the CLI are listed under the workflow\'s "Executions" tab.');
	if (args.watch) say('  Edit nodes/ or credentials/: n8n reloads the package; reload the editor page to see it.');
	say('  Press Ctrl-C to stop.');
	const exit = await n8n.exited;
	if (!stopping) {
		say(`n8n exited (${JSON.stringify(exit)})`);
		await shutdown(1);
	}
}

main().catch((err) => {
	process.stderr.write(`demo failed: ${err && err.stack ? err.stack : err}\n`);
	h.killAll();
	process.exit(1);
});
