#!/usr/bin/env node
/* eslint-disable no-console */
'use strict';
/**
 * Benchmark of the RunComfy Model node (not a test): runs the node in the real n8n engine (the test
 * harness, compiled with tsc into a temp folder) against the sandbox on loopback, and prints side by side:
 *
 *   1. a batch of N items (default 100) with the default wait concurrency, versus the same N runs one at a
 *      time (one item per execution, the way a per-item wait loop behaves), with the wall-clock ratio;
 *   2. status requests per completed run (from the sandbox's request log);
 *   3. peak memory while the node downloads one large output (default 1 GiB) into n8n's binary store,
 *      versus the file's size.
 *
 * Usage: scripts/node24.sh node bench/model.js [--items 100] [--run-ms 500] [--poll 0.25] [--max-poll 1]
 *                                               [--large-mb 1024] [--skip-sequential] [--skip-download]
 */
const fs = require('fs');
const os = require('os');
const path = require('path');
const Module = require('module');
const { spawnSync } = require('child_process');

const ROOT = path.resolve(__dirname, '..');

function parseArgs(argv) {
	const opts = { items: 100, runMs: 500, poll: 0.25, maxPoll: 1, largeMb: 1024, sequential: true, download: true };
	for (let i = 0; i < argv.length; i++) {
		const [flag, inline] = argv[i].split('=');
		const value = () => (inline !== undefined ? inline : argv[++i]);
		switch (flag) {
			case '--items':
				opts.items = Number(value());
				break;
			case '--run-ms':
				opts.runMs = Number(value());
				break;
			case '--poll':
				opts.poll = Number(value());
				break;
			case '--max-poll':
				opts.maxPoll = Number(value());
				break;
			case '--large-mb':
				opts.largeMb = Number(value());
				break;
			case '--skip-sequential':
				opts.sequential = false;
				break;
			case '--skip-download':
				opts.download = false;
				break;
			case '--help':
				console.log(fs.readFileSync(__filename, 'utf8').split('*/')[0]);
				process.exit(0);
				break;
			default:
				throw new Error(`unknown flag ${flag}`);
		}
	}
	return opts;
}

/** Compiles the node and the engine harness (TypeScript) into a temp folder; returns the folder. */
function build() {
	const out = fs.mkdtempSync(path.join(os.tmpdir(), 'runcomfy-bench-'));
	const config = {
		extends: path.join(ROOT, 'tsconfig.json'),
		compilerOptions: {
			outDir: path.join(out, 'build'),
			rootDir: ROOT,
			noEmitOnError: false,
			declaration: false,
			sourceMap: false,
			noUnusedLocals: false,
			incremental: false,
		},
		files: [
			path.join(ROOT, 'nodes/RunComfyModel/RunComfyModel.node.ts'),
			path.join(ROOT, 'test/helpers/engine.ts'),
		],
		include: [],
	};
	const configPath = path.join(out, 'tsconfig.json');
	fs.writeFileSync(configPath, JSON.stringify(config));
	const tsc = require.resolve('typescript/bin/tsc', { paths: [ROOT] });
	const started = Date.now();
	const res = spawnSync(process.execPath, [tsc, '-p', configPath], { encoding: 'utf8' });
	const engineJs = path.join(out, 'build/test/helpers/engine.js');
	if (!fs.existsSync(engineJs)) {
		throw new Error(`tsc did not produce the harness:\n${res.stdout}\n${res.stderr}`);
	}
	console.log(`(compiled node + harness in ${((Date.now() - started) / 1000).toFixed(1)} s)`);
	// The compiled files live outside the repo: let them resolve n8n-core & co. from the repo's node_modules.
	process.env.NODE_PATH = [path.join(ROOT, 'node_modules'), process.env.NODE_PATH].filter(Boolean).join(path.delimiter);
	Module._initPaths();
	return out;
}

const fmtS = (ms) => `${(ms / 1000).toFixed(2)} s`;
const fmtMiB = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

async function main() {
	const opts = parseArgs(process.argv.slice(2));
	const buildDir = build();
	const { runNode, disposeEngine, getRuntime } = require(path.join(buildDir, 'build/test/helpers/engine.js'));
	const { RunComfyModel } = require(path.join(buildDir, 'build/nodes/RunComfyModel/RunComfyModel.node.js'));
	const { startSandbox } = require(path.join(ROOT, 'sandbox'));
	await getRuntime();

	const node = new RunComfyModel();
	const sb = await startSandbox({ host: '127.0.0.1', runDurationMs: opts.runMs, queueMs: 0, walletMicrodollars: 1e12 });
	const credentials = {
		accessToken: sb.token,
		modelApiBaseUrl: sb.urls.modelApi,
		serverlessApiBaseUrl: sb.urls.serverless,
		trainerApiBaseUrl: sb.urls.trainer,
		allowedDownloadHosts: new URL(sb.urls.files).hostname,
	};
	const MODEL = 'blackforestlabs/flux-2/flash/text-to-image';
	const waitOptions = { pollIntervalSeconds: opts.poll, maxPollIntervalSeconds: opts.maxPoll };
	const params = (extra = {}) => ({
		resource: 'model',
		operation: 'run',
		model: { __rl: true, mode: 'id', value: MODEL },
		inputMode: 'json',
		inputsJson: '={{ JSON.stringify({ prompt: $json.prompt }) }}',
		waitOptions,
		downloadOutputs: false,
		...extra,
	});
	const items = Array.from({ length: opts.items }, (_, i) => ({ json: { prompt: `bench ${i}` } }));
	const rows = [];
	console.log(
		`Sandbox run time ${opts.runMs} ms (no queue); polling ${opts.poll} s growing to ${opts.maxPoll} s; default Parallel Status Checks (10).`,
	);

	try {
		// 1 + 2: batch with the default concurrency
		sb.clearLog();
		let t0 = Date.now();
		const batch = await runNode({ node, credentials, inputItems: items, parameters: params() });
		const batchMs = Date.now() - t0;
		if (batch.error) throw new Error(`batch failed: ${batch.error.message}`);
		const log = sb.log();
		const statusCalls = log.filter((e) => e.method === 'GET' && e.path.endsWith('/status')).length;
		const resultCalls = log.filter((e) => e.method === 'GET' && e.path.endsWith('/result')).length;
		const completed = batch.items.filter((i) => i.json.status === 'succeeded').length;
		rows.push(['Batch of ' + opts.items + ' (default concurrency)', fmtS(batchMs), `${completed}/${opts.items} succeeded`]);
		rows.push(['  status requests per completed run', (statusCalls / Math.max(1, completed)).toFixed(2), `${statusCalls} status, ${resultCalls} result requests`]);

		// 1: the same runs one at a time
		if (opts.sequential) {
			sb.clearLog();
			t0 = Date.now();
			let ok = 0;
			for (const item of items) {
				const one = await runNode({ node, credentials, inputItems: [item], parameters: params() });
				if (!one.error && one.items[0]?.json.status === 'succeeded') ok++;
			}
			const seqMs = Date.now() - t0;
			const seqStatus = sb.log().filter((e) => e.method === 'GET' && e.path.endsWith('/status')).length;
			rows.push([`One at a time (${opts.items} executions of 1 item)`, fmtS(seqMs), `${ok}/${opts.items} succeeded`]);
			rows.push(['  status requests per completed run', (seqStatus / Math.max(1, ok)).toFixed(2), '']);
			rows.push(['  ratio one-at-a-time / batch', `${(seqMs / batchMs).toFixed(1)}×`, 'higher = batch waits better']);
		}

		// 3: peak memory while downloading a large output
		if (opts.download) {
			const size = Math.round(opts.largeMb * 1024 * 1024);
			sb.configure({ largeOutputBytes: size, runDurationMs: 50 });
			global.gc?.();
			const base = process.memoryUsage();
			let peakRss = base.rss;
			let peakHeap = base.heapUsed;
			let peakExternal = base.external + base.arrayBuffers;
			const sampler = setInterval(() => {
				const m = process.memoryUsage();
				peakRss = Math.max(peakRss, m.rss);
				peakHeap = Math.max(peakHeap, m.heapUsed);
				peakExternal = Math.max(peakExternal, m.external + m.arrayBuffers);
			}, 20);
			t0 = Date.now();
			const dl = await runNode({
				node,
				credentials,
				parameters: {
					...params({ downloadOutputs: true, maxDownloadSizeMb: 2048 }),
					model: { __rl: true, mode: 'id', value: 'runcomfy/test/large-output' },
					inputsJson: '{"prompt": "big"}',
				},
			});
			const dlMs = Date.now() - t0;
			clearInterval(sampler);
			if (dl.error) throw new Error(`download failed: ${dl.error.message}`);
			const stored = fs.statSync(dl.binaryPath(dl.items[0])).size;
			rows.push([`Download of a ${fmtMiB(size)} output`, fmtS(dlMs), `stored ${fmtMiB(stored)} on disk`]);
			rows.push(['  peak RSS growth', fmtMiB(peakRss - base.rss), `${((100 * (peakRss - base.rss)) / size).toFixed(1)} % of the file size`]);
			rows.push(['  peak heap growth', fmtMiB(peakHeap - base.heapUsed), '']);
			rows.push(['  peak buffers growth', fmtMiB(peakExternal - base.external - base.arrayBuffers), '(includes the in-process sandbox)']);
			fs.rmSync(dl.binaryPath(dl.items[0]), { force: true });
		}
	} finally {
		await sb.close();
		await disposeEngine();
		fs.rmSync(buildDir, { recursive: true, force: true });
	}

	const w0 = Math.max(...rows.map((r) => r[0].length));
	const w1 = Math.max(...rows.map((r) => r[1].length));
	console.log('');
	for (const [a, b, c] of rows) console.log(`${a.padEnd(w0)}  ${b.padStart(w1)}  ${c}`);
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
