#!/usr/bin/env node
'use strict';
/**
 * `npm run bench`: the benchmark suite (not a test). Measures, side by side in one run against the sandbox
 * (its own process, on loopback), and writes every section's tables to bench/results/latest.md (BENCHMARKS.md is the
 * dated summary, whose rows are taken from such reports):
 *
 *   batch      1/10/100/500 model runs of a fixed run time: one execution with the default wait options, the
 *              same with Parallel Status Checks = 1, and one run at a time (N executions back to back)
 *   requests   status requests per completed run vs the minimum (from the sandbox's request log)
 *   cpu        process CPU time while 100 runs of 30 s are being waited for
 *   items      one Model → Run execution of 1, 1,000 and 10,000 items: node CPU time per item, peak RSS, requests per
 *              item, and where the CPU time goes (a profiled execution); each size in a process of its own
 *              (bench/lib/items.js)
 *   memory     peak RSS downloading a 1 GiB and a 4 GiB output, uploading a 500 MB file and a 140 MB URL to a dataset
 *              (n8n's filesystem binary mode), against the file size
 *   pickers    time to the first page of the model picker on a 5,000-model catalog
 *   real       the same batch in the real n8n: HTTP Request + Wait + IF loop vs the RunComfy Model node;
 *              and the picker through n8n's editor REST API
 *   detection  how soon a run's end is seen and how many status requests it takes: the built wait engine on its
 *              fake clock (learned timing vs plain backoff) against Wait 1 s / 5 s loops, runs of 2 s to 5 min
 *              with ±20 % spread (bench/lib/detection.js; simulated, so it needs neither sandbox nor n8n)
 *              and Training's Wait for Completion with and without the job's step progress, jobs of 10 min
 *              to 4 h (bench/lib/training-wait.js, simulated the same way)
 *   detection-n8n  the same question in the real n8n (one `n8n start`, all run times at once): the Model node (from
 *              its second run of a model) vs HTTP Request + Wait 1 s / 5 s + IF loops, runs of 2 s to 5 min with ±20 %
 *              spread and the sandbox's queueing; delay and status requests per run from the sandbox's log
 *   cold-n8n   batches of 10 runs of 2 s, 20 s and 60 s in the real n8n with nothing learned (`n8n execute`, the first
 *              execution after `n8n start`) and warm (its second), next to the Wait 1 s / 5 s loops: batch wall time
 *              and status + result requests (bench/lib/cold-n8n.js)
 *   parking    queue-mode n8n (Redis + PostgreSQL, main + 1 worker of concurrency 2): N executions of one
 *              deployment run each, parked until RunComfy calls back vs waited for in the execution; status
 *              requests while parked; main and worker restarted while parked; RSS of the n8n processes
 *   fire-and-forget  N deployment requests submitted with Deliver Results To = a RunComfy Webhook Trigger's URL,
 *              delivered by the sandbox with duplicates and out-of-order events: executions of the receiving
 *              workflow, each request exactly once, deliveries made, time to the last execution, n8n's RSS;
 *              and a burst (every result within seconds) to the trigger with n8n's defaults, to the trigger with
 *              lazy expression isolates, and to n8n's plain Webhook node: late answers, time, RSS
 *   webhook-ledger  ms per delivery to the RunComfy Webhook Trigger with 1,000 and 50,000 requests in its copy of
 *              the dedupe ledger, in n8n-core's engine (bench/lib/webhook-ledger.js; needs neither sandbox nor n8n)
 *   queue-throughput  queue-mode n8n, one main: N executions of one deployment run waited for in the execution
 *              with 1 worker, then 2 workers (each of the same concurrency): executions per minute
 *
 * The nodes run as built (dist/, rebuilt first when stale) inside n8n-core's engine in this process
 * (bench/lib/harness.js), or inside the real n8n (scripts/e2e/n8n.js) for `real`; bench/lib/report.js writes the
 * Markdown.
 *
 * Usage: npm run bench [-- --only=batch,downloads,cpu,items,memory,pickers,real,detection,detection-n8n,cold-n8n,parking,fire-and-forget,webhook-ledger,queue-throughput]
 *                          [--quick] [--lengths=2000,20000] [--cold-parts=shares]
 *                          [--out=FILE] [--no-write]
 *                          [--json=FILE] [--from-json=FILE]
 *   --quick      smaller sizes (for trying the script; figures are not representative)
 *   --lengths=2000,20000  detection-n8n and cold-n8n: only these run times (ms); detection-n8n then 2 rounds each
 *   --cold-parts=shares  cold-n8n: only these parts (cli, start, shares)
 *   --only       run some sections (bench/results/latest.md is then only written with --out)
 *   --json       also save the raw figures; --from-json re-renders a saved run without measuring
 */
const fs = require('fs');
const os = require('os');
const path = require('path');

const h = require('../scripts/e2e/n8n');
const { loadHarness } = require('./lib/harness');
const { startSandboxProcess, credentialsFor } = require('./lib/sandbox');
const inproc = require('./lib/inprocess');
const { compareInRealN8n } = require('./lib/real-n8n');
const { detection } = require('./lib/detection');
const { detectionBatch } = require('./lib/detection-batch');
const { trainingWait } = require('./lib/training-wait');
const { detectionInN8n } = require('./lib/detection-n8n');
const { coldInN8n } = require('./lib/cold-n8n');
const { parkingAtScale } = require('./lib/parking');
const { fireAndForget, fireAndForgetBurst } = require('./lib/fire-and-forget');
const { webhookLedger } = require('./lib/webhook-ledger');
const { queueThroughput } = require('./lib/queue-throughput');
const { memory } = require('./lib/memory');
const { itemsAtScale } = require('./lib/items');
const { machine, fmtS, GiB, MiB } = require('./lib/measure');
const { report } = require('./lib/report');

const ROOT = path.resolve(__dirname, '..');
const SECTIONS = [
	'batch',
	'downloads',
	'cpu',
	'items',
	'memory',
	'pickers',
	'real',
	'detection',
	'detection-n8n',
	'cold-n8n',
	'parking',
	'fire-and-forget',
	'webhook-ledger',
	'queue-throughput',
];

function parseArgs(argv) {
	const opts = {
		only: SECTIONS,
		quick: false,
		out: undefined,
		write: true,
		json: undefined,
		fromJson: undefined,
		lengths: undefined,
		coldParts: undefined,
	};
	for (const arg of argv) {
		if (arg === '--quick') opts.quick = true;
		else if (arg.startsWith('--json=')) opts.json = path.resolve(arg.slice(7));
		else if (arg.startsWith('--from-json=')) opts.fromJson = path.resolve(arg.slice(12));
		else if (arg === '--no-write') opts.write = false;
		else if (arg.startsWith('--cold-parts=')) opts.coldParts = arg.slice(13).split(',').filter(Boolean);
		else if (arg.startsWith('--only='))
			opts.only = arg
				.slice(7)
				.split(',')
				.map((s) => s.trim())
				.filter(Boolean);
		else if (arg.startsWith('--out=')) opts.out = path.resolve(arg.slice(6));
		else if (arg.startsWith('--lengths='))
			opts.lengths = arg
				.slice(10)
				.split(',')
				.map(Number)
				.filter((n) => n > 0);
		else if (arg === '--help' || arg === '-h') {
			console.log(
				fs
					.readFileSync(__filename, 'utf8')
					.split('*/')[0]
					.replace(/^[\s\S]*?\/\*\*/, ''),
			);
			process.exit(0);
		} else throw new Error(`unknown option ${arg} (see --help)`);
	}
	for (const s of opts.only) if (!SECTIONS.includes(s)) throw new Error(`unknown section ${s}; sections: ${SECTIONS.join(', ')}`);
	return opts;
}

function config(quick) {
	return quick
		? {
				runMs: 2000,
				sizes: [1, 10, 100],
				sequentialSizes: [1, 10],
				downloads: { n: 10, runMs: 5000, fileMs: 400, repeats: 1 },
				cpu: { items: 20, runMs: 10000 },
				items: { sizes: [1, 100, 1000], runMs: 20, profileSize: 200 },
				memory: {
					downloadNode: [64 * MiB],
					download1: 256 * MiB,
					download4: 1 * GiB,
					upload: 200 * 1000 * 1000,
					uploadFromUrl: 50 * 1000 * 1000,
				},
				pickers: { catalogExtra: 5000, repeats: 5 },
				real: { n: 5, scenarios: [{ runMs: 2000, waits: [1] }], pickerRepeats: 3 },
				detection: { runs: 40, bounds: false },
				detectionBatch: { seeds: 5 },
				trainingWait: { jobs: 20 },
				detectionN8n: { lengthsMs: [2000, 20000], n: 4, warmup: 2, rounds: { 2000: 2 }, sideBySide: { 20000: 2 } },
				coldN8n: { lengthsMs: [2000], n: 4 },
				parking: { n: 6, runMs: 10000 },
				fireAndForget: { n: 20, runMs: 3000, spread: 0.5, instances: 5, duplicateRate: 0.2, outOfOrderRate: 0.2 },
				fireAndForgetBurst: { n: 20, runMs: 3000, spread: 0.1 },
				queueThroughput: { n: 10, runMs: 4000, concurrency: 5 },
			}
		: {
				runMs: 2000,
				sizes: [1, 10, 100, 500],
				repeats: { 1: 3, 10: 3, 100: 3 },
				sequentialSizes: [1, 10, 100],
				downloads: { n: 10, runMs: 20000, fileMs: 400, repeats: 3 },
				cpu: { items: 100, runMs: 30000 },
				items: { sizes: [1, 1000, 10000], runMs: 20, profileSize: 2000 },
				memory: {
					downloadNode: [256 * MiB],
					download1: 1 * GiB,
					download4: 4 * GiB,
					upload: 500 * 1000 * 1000,
					uploadFromUrl: 140 * 1000 * 1000,
				},
				pickers: { catalogExtra: 5000, repeats: 10 },
				real: {
					n: 10,
					scenarios: [
						{ runMs: 2000, waits: [1] },
						{ runMs: 20000, waits: [1, 5] },
					],
					pickerRepeats: 5,
				},
				detection: { runs: 200, bounds: true },
				detectionBatch: { seeds: 30, batch: 10 },
				trainingWait: { jobs: 100 },
				detectionN8n: {
					lengthsMs: [2000, 20000, 60000, 300000],
					n: 10,
					warmup: 10,
					rounds: { 2000: 10, 20000: 6, 60000: 4 },
					sideBySide: { 300000: 4 },
				},
				coldN8n: { lengthsMs: [2000, 20000, 60000], n: 10 },
				parking: { n: 20, runMs: 30000 },
				fireAndForget: { n: 200, runMs: 5000, spread: 0.5, instances: 20, duplicateRate: 0.2, outOfOrderRate: 0.2 },
				fireAndForgetBurst: { n: 200, runMs: 5000, spread: 0.1 },
				// 50 executions fill a worker of concurrency 5 ten times over, two workers five times: the ratio is theirs.
				queueThroughput: { n: 50, runMs: 20000, concurrency: 5 },
			};
}

const log = (msg) => process.stderr.write(`${msg}\n`);
// ------------------------------------------------------------------------------------------------------------

async function main() {
	const opts = parseArgs(process.argv.slice(2));
	if (opts.fromJson) {
		const saved = JSON.parse(fs.readFileSync(opts.fromJson, 'utf8'));
		const md = report(saved);
		console.log(md);
		if (opts.out) fs.writeFileSync(opts.out, md);
		return;
	}
	const cfg = config(opts.quick);
	if (opts.lengths?.length) {
		const d = cfg.detectionN8n;
		cfg.detectionN8n = { ...d, lengthsMs: opts.lengths, rounds: Object.fromEntries(opts.lengths.map((ms) => [ms, 2])), sideBySide: {} };
		cfg.coldN8n = { ...cfg.coldN8n, lengthsMs: opts.lengths };
	}
	const started = Date.now();
	const load = { start: os.loadavg()[0] };
	const m = machine();
	log(`[bench] ${m.nproc} CPUs, ${(m.memory / GiB).toFixed(1)} GiB, Node ${m.node}`);
	if (await h.ensureBuilt({ log })) log('[bench] built the package (dist/ was stale)');
	const versions = {
		core: require(require.resolve('n8n-core/package.json', { paths: [ROOT] })).version,
		workflow: require(require.resolve('n8n-workflow/package.json', { paths: [ROOT] })).version,
	};
	const sb = await startSandboxProcess({ walletMicrodollars: 1e13, runDurationMs: cfg.runMs, queueMs: 0 });
	log(`[bench] sandbox pid ${sb.pid} at ${sb.urls.modelApi}`);
	const results = {};
	let harnessLoaded;
	try {
		const inProcess = opts.only.some((s) => ['batch', 'downloads', 'cpu', 'memory', 'pickers'].includes(s));
		if (inProcess) {
			harnessLoaded = loadHarness();
			await harnessLoaded.harness.getRuntime();
			const ctx = { ...harnessLoaded, sb, creds: credentialsFor(sb) };
			if (opts.only.includes('batch')) {
				log('[bench] batch throughput + requests');
				results.batch = await inproc.batchThroughput(ctx, {
					sizes: cfg.sizes,
					sequentialSizes: cfg.sequentialSizes,
					runMs: cfg.runMs,
					repeats: cfg.repeats,
					log,
				});
			}
			if (opts.only.includes('downloads')) {
				log('[bench] downloads at the end of a batch');
				results.downloads = await inproc.downloadTail(ctx, { ...cfg.downloads, log });
			}
			if (opts.only.includes('cpu')) {
				log('[bench] CPU while waiting');
				results.cpu = await inproc.cpuWhileWaiting(ctx, { ...cfg.cpu, log });
			}
			if (opts.only.includes('memory')) {
				log('[bench] memory');
				results.memory = await memory(ctx, { sizes: cfg.memory, log });
			}
			if (opts.only.includes('pickers')) {
				log('[bench] pickers');
				results.pickers = await inproc.pickers(ctx, { ...cfg.pickers, log });
			}
			await harnessLoaded.harness.disposeEngine();
		}
		if (opts.only.includes('items')) {
			log('[bench] items at scale (each size in a process of its own)');
			results.items = await itemsAtScale(sb, { ...cfg.items, log });
		}
		if (opts.only.includes('detection')) {
			log("[bench] detection (simulated on the wait engine's fake clock)");
			results.detection = await detection({ ...cfg.detection, log });
			results.detectionBatch = await detectionBatch({ ...cfg.detectionBatch, log });
			results.trainingWait = await trainingWait({ ...cfg.trainingWait, log });
		}
		if (opts.only.includes('real')) {
			log('[bench] real n8n');
			await h.ensureN8n({ log });
			results.real = await compareInRealN8n(sb, { ...cfg.real, catalogExtra: cfg.pickers.catalogExtra, log });
		}
		if (opts.only.includes('detection-n8n')) {
			log('[bench] detection in the real n8n (node vs Wait 1 s / 5 s loops, all run times at once)');
			results.detectionN8n = await detectionInN8n(sb, { ...cfg.detectionN8n, log });
		}
		if (opts.only.includes('cold-n8n')) {
			log('[bench] cold batches in the real n8n (n8n execute, n8n start, queue shares)');
			results.coldN8n = await coldInN8n(sb, { ...cfg.coldN8n, ...(opts.coldParts ? { parts: opts.coldParts } : {}), log });
		}
		if (opts.only.includes('parking')) {
			log('[bench] parking at scale (queue mode)');
			results.parking = await parkingAtScale(sb, { ...cfg.parking, log });
		}
		if (opts.only.includes('fire-and-forget')) {
			log('[bench] fire-and-forget (Deliver Results To → RunComfy Webhook Trigger)');
			results.fireAndForget = await fireAndForget(sb, { ...cfg.fireAndForget, log });
			results.fireAndForgetBurst = await fireAndForgetBurst(sb, { ...cfg.fireAndForgetBurst, log });
		}
		if (opts.only.includes('webhook-ledger')) {
			log('[bench] the Webhook Trigger dedupe ledger at 1,000 and 50,000 requests');
			results.webhookLedger = await webhookLedger({ log, loaded: harnessLoaded });
		}
		if (opts.only.includes('queue-throughput')) {
			log('[bench] queue throughput (queue mode, 1 worker vs 2)');
			results.queueThroughput = await queueThroughput(sb, { ...cfg.queueThroughput, log });
		}
	} finally {
		await sb.close();
	}
	const finished = Date.now();
	load.end = os.loadavg()[0];
	results.engineRetries = inproc.engineRetries.count;
	const data = { started, finished, opts, m, results, versions, load };
	if (opts.json) fs.writeFileSync(opts.json, JSON.stringify(data, null, 1));
	const md = report(data);
	console.log(md);
	const full = SECTIONS.every((s) => opts.only.includes(s)) && !opts.quick;
	const target = opts.out || (full ? path.join(ROOT, 'bench', 'results', 'latest.md') : undefined);
	if (opts.write && target) {
		fs.writeFileSync(target, md);
		log(`[bench] wrote ${path.relative(process.cwd(), target) || target}`);
	} else if (opts.write) {
		log('[bench] partial or --quick run: bench/results/latest.md left as it is (use --out=FILE to save these figures)');
	}
	log(`[bench] done in ${fmtS(finished - started)}`);
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
