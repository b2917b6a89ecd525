'use strict';
/**
 * Items at scale: one Model → Run execution of 1, 1,000 and 10,000 items (runs of a few ms on the sandbox, its
 * own process), each in a fresh process (./items-child.js) so its peak RSS is its own. Node time per item is the
 * CPU time of the engine process over the execution divided by the items (the sandbox's CPU is not in it, and
 * waiting costs none), side by side with the time of one item; requests per item from the sandbox log. A
 * profiled execution (V8's sampling profiler) says where the CPU time goes.
 */
const { spawn } = require('child_process');
const path = require('path');

const { credentialsFor } = require('./sandbox');
const { countRequests } = require('./inprocess');
const { fmtMiB } = require('./measure');

const CHILD = path.join(__dirname, 'items-child.js');

async function measureChild(sb, n, { profile = false, tag } = {}) {
	await sb.clearLog();
	const arg = JSON.stringify({ n, creds: credentialsFor(sb), profile, tag: tag || `items ${n}` });
	const child = spawn(process.execPath, [CHILD, arg], { stdio: ['ignore', 'pipe', 'pipe'] });
	let out = '';
	let err = '';
	child.stdout.on('data', (d) => (out += d));
	child.stderr.on('data', (d) => (err += d));
	const code = await new Promise((resolve) => child.on('exit', resolve));
	if (code !== 0) throw new Error(`items child for ${n} exited with ${code}: ${err.slice(-2000)}`);
	const r = JSON.parse(out.trim().split('\n').pop());
	const log = (await sb.log()).filter((e) => e.time >= r.startEpoch);
	return { ...r, requests: countRequests(log) };
}

async function itemsAtScale(sb, { sizes, runMs, profileSize, log }) {
	await sb.reset({ runDurationMs: runMs, queueMs: 0 });
	const rows = [];
	for (const n of sizes) {
		const r = await measureChild(sb, n);
		log(`  items ${n}: ${(r.cpuMs / n).toFixed(2)} ms CPU per item, wall ${(r.wallMs / 1000).toFixed(2)} s, peak RSS ${fmtMiB(r.maxRss)}`);
		rows.push(r);
	}
	let profiled;
	if (profileSize) {
		profiled = await measureChild(sb, profileSize, { profile: true, tag: 'items profiled' });
		log(`  items ${profileSize} profiled: ${(profiled.cpuMs / profileSize).toFixed(2)} ms CPU per item`);
	}
	await sb.reset({});
	return { runMs, rows, profiled };
}

const ORDER = [
	'package',
	'n8n-workflow',
	'n8n-core',
	'node (http, net, timers)',
	'v8 (builtins, native)',
	'gc',
	'other libraries',
	'harness',
];
const WHAT = {
	package: 'this package (dist/nodes, dist/credentials)',
	'n8n-workflow': 'n8n-workflow (parameters, expressions)',
	'n8n-core': 'n8n-core (execute context, HTTP helpers, engine)',
	'node (http, net, timers)': "Node's own JavaScript (HTTP client, sockets, timers)",
	'v8 (builtins, native)': 'V8 builtins and native code (incl. the expression isolate)',
	gc: 'garbage collection',
	'other libraries': 'other libraries (axios, luxon, logger, ...)',
	harness: 'test harness (credentials helper of the in-process engine)',
};

function itemsSection(it, { table, fmtS }) {
	const out = [];
	const one = it.rows.find((r) => r.n === 1);
	out.push(`## Items at scale (Model → Run, runs of ${it.runMs} ms)`);
	out.push('');
	out.push(
		'One execution of the RunComfy Model node with N input items (default wait options, downloads off, the inputs from an expression per item) ' +
			'against the sandbox in its own process, each size in a fresh engine process after a warm-up execution of 2 items. **Node CPU per item**: ' +
			"CPU time of the engine process during the execution ÷ N (the sandbox's work is not in it; waiting costs none). Peak RSS: the process's " +
			'peak (getrusage maxRSS), and its growth over the RSS before the execution. Requests per item from the sandbox log.',
	);
	out.push('');
	out.push(
		table(
			[
				'Items',
				'Node CPU per item',
				'vs 1 item',
				'Execution (wall)',
				'Wall per item',
				'Peak RSS (growth)',
				'Submits / status / result per item',
				'Succeeded',
			],
			it.rows.map((r) => [
				String(r.n),
				`${(r.cpuMs / r.n).toFixed(2)} ms`,
				one ? `${(r.cpuMs / r.n / one.cpuMs).toFixed(3)}×` : '—',
				fmtS(r.wallMs),
				`${(r.wallMs / r.n).toFixed(2)} ms`,
				`${fmtMiB(r.maxRss)} (+${fmtMiB(Math.max(0, r.maxRss - r.rssBefore))})`,
				`${(r.requests.submit / r.n).toFixed(2)} / ${(r.requests.status / r.n).toFixed(2)} / ${(r.requests.result / r.n).toFixed(2)}`,
				`${r.ok}/${r.n}`,
			]),
		),
	);
	if (it.profiled && it.profiled.cpuBreakdown) {
		const p = it.profiled;
		const b = p.cpuBreakdown;
		const busy = Object.entries(b)
			.filter(([k]) => k !== 'idle')
			.reduce((s, [, v]) => s + v, 0);
		out.push('');
		out.push(
			`Where the CPU time of a profiled execution of ${p.n} items goes (V8's sampling profiler, self time by where the code comes from; ` +
				`${(p.cpuMs / p.n).toFixed(2)} ms CPU per item with the profiler on):`,
		);
		out.push('');
		out.push(
			table(
				['Code', 'CPU per item', 'Share'],
				ORDER.filter((k) => b[k]).map((k) => [WHAT[k], `${(b[k] / p.n).toFixed(3)} ms`, `${((100 * b[k]) / busy).toFixed(1)} %`]),
			),
		);
	}
	return out.join('\n');
}

function itemsSummary(it) {
	const one = it.rows.find((r) => r.n === 1);
	const parts = it.rows.map((r) => `${r.n}: ${(r.cpuMs / r.n).toFixed(2)} ms CPU per item, peak RSS ${fmtMiB(r.maxRss)}`);
	const last = it.rows[it.rows.length - 1];
	const req = last
		? ` ${(last.requests.submit / last.n).toFixed(2)} submit, ${(last.requests.status / last.n).toFixed(2)} status and ${(last.requests.result / last.n).toFixed(2)} result requests per item at ${last.n}.`
		: '';
	return `Items at scale (one Model → Run execution): ${parts.join('; ')}${one ? ` (one item alone: ${one.cpuMs.toFixed(1)} ms CPU)` : ''}.${req}`;
}

module.exports = { itemsAtScale, itemsSection, itemsSummary };
