'use strict';
/**
 * One measurement of the items section (./items.js) in a process of its own, so that its peak RSS is its own:
 * loads the in-process engine harness (./harness.js), runs a warm-up execution of 2 items, then one Model → Run
 * execution of N items against the sandbox (another process) and prints one JSON line: wall time, CPU time of
 * this process, RSS before the run and its peak (getrusage maxRSS), and with `profile` where the CPU time went
 * (V8's sampling profiler over the measured run, self time by where the code comes from).
 *
 * argv[2]: JSON { n, creds, tag?, profile? }.
 */
const inspector = require('inspector');
const { performance } = require('perf_hooks');

const { loadHarness } = require('./harness');
const { runNodeRetrying, runParams } = require('./inprocess');

/** Where a profiled function comes from (by its script URL). */
function origin(url, name) {
	if (!url) return name === '(garbage collector)' ? 'gc' : name === '(idle)' ? 'idle' : 'v8 (builtins, native)';
	if (/\/dist\/(nodes|credentials)\//.test(url)) return 'package';
	if (url.includes('runcomfy-bench')) return 'harness';
	if (url.includes('/n8n-workflow/')) return 'n8n-workflow';
	if (url.includes('/n8n-core/')) return 'n8n-core';
	if (url.startsWith('node:')) return 'node (http, net, timers)';
	return 'other libraries';
}

function breakdown(profile) {
	const byId = new Map(profile.nodes.map((n) => [n.id, n]));
	const out = {};
	profile.samples.forEach((id, i) => {
		const { url, functionName } = byId.get(id).callFrame;
		const key = origin(url, functionName);
		out[key] = (out[key] || 0) + (profile.timeDeltas[i] || 0) / 1000;
	});
	return out;
}

const post = (session, method, params) =>
	new Promise((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))));

async function main() {
	const { n, creds, tag = 'items', profile } = JSON.parse(process.argv[2]);
	const { harness, nodes } = loadHarness();
	await harness.getRuntime();
	const prompts = (k, t) => Array.from({ length: k }, (_, i) => ({ json: { prompt: `${t} ${i}` } }));
	const run = async (input) =>
		await runNodeRetrying(harness, { node: new nodes.RunComfyModel(), credentials: creds, inputItems: input, parameters: runParams({}) });
	// Warm-up: JIT, the first connections, the expression isolate.
	const warm = await run(prompts(2, `${tag} warm-up`));
	if (warm.error) throw new Error(`warm-up failed: ${warm.error.message}`);
	const input = prompts(n, tag);
	let session;
	if (profile) {
		session = new inspector.Session();
		session.connect();
		await post(session, 'Profiler.enable');
		await post(session, 'Profiler.setSamplingInterval', { interval: 500 });
		await post(session, 'Profiler.start');
	}
	const rssBefore = process.memoryUsage().rss;
	const cpu0 = process.cpuUsage();
	const startEpoch = Date.now();
	const t0 = performance.now();
	const res = await run(input);
	const wallMs = performance.now() - t0;
	const cpu = process.cpuUsage(cpu0);
	const maxRss = process.resourceUsage().maxRSS * 1024;
	const cpuBreakdown = session ? breakdown((await post(session, 'Profiler.stop')).profile) : undefined;
	if (res.error) throw new Error(`${n} items failed: ${res.error.message} ${res.error.description || ''}`);
	const ok = res.items.filter((i) => i.json.status === 'succeeded').length;
	process.stdout.write(
		`${JSON.stringify({ n, ok, wallMs, cpuMs: (cpu.user + cpu.system) / 1000, startEpoch, rssBefore, maxRss, cpuBreakdown })}\n`,
	);
	await harness.disposeEngine();
}

main().then(
	() => process.exit(0),
	(error) => {
		console.error(error);
		process.exit(1);
	},
);
