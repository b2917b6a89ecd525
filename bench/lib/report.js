'use strict';
/**
 * The report of `npm run bench` (bench/run.js): bench/results/latest.md in Markdown, from the plain figures the
 * measurements return (or a run saved with --json).
 */
const h = require('../../scripts/e2e/n8n');
const fs = require('fs');
const path = require('path');

const { detectionSection } = require('./detection');
const { detectionBatchSection } = require('./detection-batch');
const { trainingWaitSection, trainingWaitSummary } = require('./training-wait');
const { detectionN8nSection, detectionN8nSummary } = require('./detection-n8n');
const { coldN8nSection, coldN8nSummary } = require('./cold-n8n-report');
const { webhookLedgerSection, webhookLedgerSummary } = require('./webhook-ledger');
const { parkingSection } = require('./parking');
const { queueThroughputSection, queueThroughputSummary } = require('./queue-throughput');
const { fireAndForgetBurstSection, fireAndForgetBurstSummary, fireAndForgetSection, fireAndForgetSummary } = require('./fire-and-forget');
const inproc = require('./inprocess');
const { itemsSection, itemsSummary } = require('./items');
const { memorySection } = require('./memory-report');
const { fmtS, fmtBytes, pct, GiB, MiB } = require('./measure');

const ratio = (a, b) => `${(a / b).toFixed(2)}×`;

function table(head, rows) {
	// Numeric columns right-aligned, text columns left-aligned.
	const numeric = head.map((_, i) => rows.length > 0 && rows.every((r) => /^[≈\d—]/.test(String(r[i]))));
	const lines = [`| ${head.join(' | ')} |`, `| ${head.map((_, i) => (numeric[i] ? '---:' : '---')).join(' | ')} |`];
	for (const r of rows) lines.push(`| ${r.join(' | ')} |`);
	return lines.join('\n');
}

function describeRepeats(b) {
	const parts = b.rows.map((r) => `${r.default.repeats || 1}× for ${r.n}`);
	return parts.join(', ');
}

function batchSection(b) {
	const one = b.rows.find((r) => r.n === 1);
	const out = [];
	out.push(`## Batch throughput (${b.runMs / 1000} s per run)`);
	out.push('');
	out.push(
		'Every run takes exactly ' +
			`${b.runMs / 1000} s on the sandbox (no queueing). **Default**: one execution of the RunComfy Model node with N input ` +
			'items and the default wait options (all items submitted first, then polled together; Parallel Status Checks 10; ' +
			'the first status request 1 s after submitting, then the interval growing ×1.5 up to 10 s). **Parallel Status Checks = 1**: the same with at most one status ' +
			'request in flight. **One at a time**: N executions of one item each, back to back — what a per-item loop ' +
			'(Loop Over Items with batch size 1, or a workflow called per item) does. ' +
			`Default and Parallel Status Checks = 1 are run ${describeRepeats(b)} and the median is shown; ` +
			`each status poll is spread ±10 % at random, so one run of ${b.runMs / 1000} s alone varies by a few tenths of a second.`,
	);
	out.push('');
	const rows = b.rows.map((r) => {
		const seq = r.sequential ? fmtS(r.sequential.ms) : r.sequentialEstimate ? `≈ ${fmtS(r.sequentialEstimate.ms)} (estimated)` : '—';
		const seqMs = r.sequential ? r.sequential.ms : r.sequentialEstimate ? r.sequentialEstimate.ms : undefined;
		return [
			String(r.n),
			`${fmtS(r.default.ms)} (${r.default.ok}/${r.n} ok)`,
			ratio(r.default.ms, one.default.ms),
			`${fmtS(r.concurrency1.ms)} (${r.concurrency1.ok}/${r.n} ok)`,
			ratio(r.concurrency1.ms, one.default.ms),
			r.sequential ? `${seq} (${r.sequential.ok}/${r.n} ok)` : seq,
			seqMs ? ratio(seqMs, r.default.ms) : '—',
		];
	});
	out.push(
		table(['Runs', 'Default', 'vs 1 run', 'Parallel Status Checks = 1', 'vs 1 run', 'One at a time', 'One at a time ÷ default'], rows),
	);
	out.push('');
	out.push(
		'Where the time of the default batch goes (from the sandbox log): validating the items and reading the model schema before the first submit, submitting every item (4 submits in flight), then waiting until the last result was fetched.',
	);
	out.push('');
	out.push(
		table(
			['Runs', 'Start → first submit', 'First → last submit', 'First submit → last result', 'Whole execution'],
			b.rows.map((r) => [
				String(r.n),
				r.default.firstSubmitAtMs === undefined ? '—' : fmtS(r.default.firstSubmitAtMs),
				r.default.submitPhaseMs === undefined ? '—' : fmtS(r.default.submitPhaseMs),
				r.default.firstSubmitToLastResultMs === undefined ? '—' : fmtS(r.default.firstSubmitToLastResultMs),
				fmtS(r.default.ms),
			]),
		),
	);
	const hundred = b.rows.find((r) => r.n === 100);
	if (hundred) {
		const r = hundred.default.ms / one.default.ms;
		out.push('');
		out.push(
			`**Goal: 100 runs take under 1.5× one run.** Measured: ${r.toFixed(2)}× (${fmtS(hundred.default.ms)} vs ${fmtS(one.default.ms)}) — ${r < 1.5 ? 'met' : 'NOT met'}.`,
		);
	}
	const est = b.rows.filter((r) => r.sequentialEstimate);
	if (est.length) {
		out.push('');
		out.push(
			`One at a time for ${est.map((r) => r.n).join(', ')} runs is not run (it would take longer than the whole suite's budget); the estimate is N × the mean per run measured one at a time for ${est[0].sequentialEstimate.basis} runs.`,
		);
	}
	return out.join('\n');
}

function requestsSection(b, cpu) {
	const out = ['## Requests per run', ''];
	out.push(
		'Counted in the sandbox request log. **Minimum**: one request per run, a result request that lands just after the run finished (what the node sends where its learned plan expects the end; ' +
			'a pattern that asks for the status first needs one status request and then the result request). ' +
			"**Node's plain backoff**: the status requests the wait engine's plain backoff needs to see a run of that length finish, plus the result request (the first poll 1 s after submitting, then at 2.5 s, 4.75 s, … growing ×1.5 up to a 10 s interval), as for a model never seen before; from the second run of a model on it polls around the learned run time (see Detection). " +
			'**Fixed 1 s polling**: what a Wait 1 s loop sends, with its result request.',
	);
	out.push('');
	const rows = [];
	const add = (label, n, runMs, part) => {
		const ok = part.ok;
		const rq = part.requests;
		rows.push([
			label,
			`${rq.status} (${(rq.status / ok).toFixed(2)} per run)`,
			`${rq.result} (${(rq.result / ok).toFixed(2)} per run)`,
			String(rq.submit),
			String(rq.duplicateSubmits),
			'1',
			String(inproc.backoffPolls(runMs) + 1),
			String(Math.ceil(runMs / 1000) + 1),
		]);
	};
	for (const r of b.rows) {
		add(`${r.n} × ${b.runMs / 1000} s, default`, r.n, b.runMs, r.default);
		if (r.n === 100 || r.n === 500) add(`${r.n} × ${b.runMs / 1000} s, Parallel Status Checks = 1`, r.n, b.runMs, r.concurrency1);
		if (r.n === 100 && r.sequential) add(`${r.n} × ${b.runMs / 1000} s, one at a time`, r.n, b.runMs, r.sequential);
	}
	if (cpu) add(`${cpu.items} × ${cpu.runMs / 1000} s, default`, cpu.items, cpu.runMs, { ok: cpu.ok, requests: cpu.requests });
	out.push(
		table(
			[
				'Batch',
				'Status requests',
				'Result requests',
				'Submits',
				'Submitted twice',
				'Minimum status + result per run',
				"Node's plain backoff, status + result",
				'Fixed 1 s polling, status + result',
			],
			rows,
		),
	);
	return out.join('\n');
}

function cpuSection(c) {
	const perSec = c.windowMs ? c.windowCpuMs / (c.windowMs / 1000) : NaN;
	return [
		`## CPU while waiting (${c.items} runs of ${c.runMs / 1000} s)`,
		'',
		`process.cpuUsage() of the process running the n8n engine (the sandbox runs in its own process). Window: from 1 s after the last submit to 0.5 s before the first result, i.e. only waiting.`,
		'',
		table(
			['Measure', 'Value'],
			[
				[
					'Whole execution (submit, wait, results)',
					`${c.totalCpuMs.toFixed(0)} ms CPU in ${fmtS(c.wallMs)} wall (${pct(c.totalCpuMs, c.wallMs)} of one core)`,
				],
				[
					'Waiting window',
					`${c.windowCpuMs.toFixed(0)} ms CPU in ${fmtS(c.windowMs)} (${perSec.toFixed(1)} ms CPU per second = ${pct(c.windowCpuMs, c.windowMs)} of one core)`,
				],
				[
					'Status requests in the window',
					`${c.statusInWindow} (${c.windowMs ? (c.windowCpuMs / Math.max(1, c.statusInWindow)).toFixed(2) : '—'} ms CPU per request, all included)`,
				],
				['Runs completed', `${c.ok}/${c.items}`],
			],
		),
	].join('\n');
}

function pickersSection(p, real) {
	p = p || { total: real.catalogTotal, repeats: real.pickerRepeats, rows: [] };
	const rows = p.rows.map((r) => [
		'in-process engine (LoadOptionsContext → sandbox)',
		r.label,
		`${r.first.toFixed(1)} ms`,
		`${r.median.toFixed(1)} ms`,
		`${r.results}${r.more ? ' (more pages)' : ''}`,
	]);
	if (real) {
		for (const r of real.picker) {
			rows.push([
				'real n8n editor API (HTTP → n8n → sandbox)',
				r.label,
				`${r.first.toFixed(1)} ms`,
				`${r.median.toFixed(1)} ms`,
				String(r.results),
			]);
		}
	}
	return [
		`## Model picker (catalog of ${p.total} models)`,
		'',
		`Time to the first page of "Model → From list" (the node's \`searchModels\`: search and paging on the server, one page per call): the first call and the median of ${p.repeats}${real ? ` (editor API: of ${real.pickerRepeats})` : ''}.`,
		'',
		table(['Path', 'Case', 'First call', 'Median', 'Results on the first page'], rows),
	].join('\n');
}

function realSection(r) {
	const rows = [];
	for (const row of r.rows) {
		const add = (label, x) =>
			rows.push([
				`${r.n} × ${row.runMs / 1000} s`,
				label,
				fmtS(x.execMs),
				x.firstSubmitToLastResultMs === undefined ? '—' : fmtS(x.firstSubmitToLastResultMs),
				`${x.requests.status} (${(x.requests.status / r.n).toFixed(1)} per run)`,
				String(x.requests.total),
				`${x.results}/${r.n}`,
			]);
		for (const l of row.loops) add(`HTTP Request + Wait ${l.waitSeconds} s + IF loop`, l);
		add('RunComfy Model node (defaults)', row.node);
	}
	return [
		'## The same batch in the real n8n: HTTP Request + Wait + IF loop vs the RunComfy Model node',
		'',
		`n8n ${h.N8N_VERSION} with the package installed as a community package, each workflow run with \`n8n execute\`. ` +
			'The loop: Edit Fields + Split Out (N prompts) → HTTP Request POST /v1/models/{model} (Header Auth) → Wait → HTTP Request GET …/status → ' +
			'IF status = completed → HTTP Request GET …/result (false branch back to Wait); all items go round the loop together. ' +
			'The node: the same N prompts → RunComfy Model (Run, default wait options, downloads off like the loop). ' +
			"Execution time is n8n's own (startedAt → stoppedAt); requests from the sandbox log (the node also reads the model's schema once).",
		'',
		'Run times are fixed, so each pattern finishes at its first poll after the run ended. Each `n8n execute` is a new process, so the node ' +
			'has learned nothing: it polls the batch as one (a cold batch, docs/waiting.md): one status request per tick for the run checked ' +
			'longest ago, ticks 1/16 of the time waited apart (1 s to 10 s), until the first run seen ended teaches the rest its run time. ' +
			'A Wait N s loop polls every N s plus the time of one loop round. In the loop all items go round together, which is its best case; ' +
			'a per-item loop (Loop Over Items) runs them one after another like "one at a time" above.',
		'',
		table(['Batch', 'Pattern', 'Execution time', 'First submit → last result', 'Status requests', 'All requests', 'Results'], rows),
	].join('\n');
}

/** Downloads at the end of a batch (inprocess.js `downloadTail`). */
function downloadsSection(d) {
	const { on, off } = d;
	return (
		'## Downloads at the end of a batch\n\n' +
		`${d.n} runs of ${d.runMs / 1000} s (±20 %, learned), every file answer held back ${d.fileMs} ms by the sandbox ` +
		`(a CDN's time to the first byte), one file per run, median of ${d.repeats} by the tail: the node ended ${fmtS(off.tailMs)} after the batch's last run ` +
		`with Download Outputs off and ${fmtS(on.tailMs)} with it on (+${fmtS(on.tailMs - off.tailMs)}); ${on.filesBeforeLastEnd} of its ${on.files} files were ` +
		'fetched before the last run ended, as each run was seen ended (they used to wait for the last run, then go at most 4 at a time).'
	);
}

function summaryLines(results) {
	const lines = [];
	const d = results.downloads;
	if (d)
		lines.push(
			`Downloads: a batch of ${d.n} runs of ${d.runMs / 1000} s with Download Outputs ends ${fmtS(d.on.tailMs - d.off.tailMs)} later than without ` +
				`(each file answer held back ${d.fileMs} ms); ${d.on.filesBeforeLastEnd} of ${d.on.files} files were fetched before the last run ended.`,
		);
	const b = results.batch;
	if (b) {
		const one = b.rows.find((r) => r.n === 1);
		const hundred = b.rows.find((r) => r.n === 100);
		if (one && hundred) {
			const r = hundred.default.ms / one.default.ms;
			lines.push(
				`Batch: 100 runs of ${b.runMs / 1000} s take ${r.toFixed(2)}× as long as one run in one execution (goal under 1.5×: ${r < 1.5 ? 'met' : 'not met'}); ` +
					(hundred.sequential
						? `one at a time they take ${(hundred.sequential.ms / hundred.default.ms).toFixed(0)}× as long as the batch.`
						: ''),
			);
		}
		const dup = b.rows.reduce((acc, r) => acc + r.default.requests.duplicateSubmits + r.concurrency1.requests.duplicateSubmits, 0);
		const perRun = b.rows.map((r) => (r.default.requests.status + r.default.requests.result) / r.default.ok);
		const lo = Math.min(...perRun).toFixed(1);
		const hi = Math.max(...perRun).toFixed(1);
		lines.push(
			`Requests: ${lo === hi ? lo : `${lo}–${hi}`} status and result requests per ${b.runMs / 1000} s run (minimum 1, a result request just after the end; the plain backoff, for a model never seen before, needs ${inproc.backoffPolls(b.runMs) + 1}: from the second run on the node polls around the learned run time), ${dup} runs submitted twice.`,
		);
	}
	if (results.cpu) {
		const c = results.cpu;
		lines.push(
			`CPU: waiting for ${c.items} runs of ${c.runMs / 1000} s costs ${pct(c.windowCpuMs, c.windowMs)} of one core (${(c.windowCpuMs / Math.max(1, c.statusInWindow)).toFixed(1)} ms per status request) — no busy loop.`,
		);
	}
	if (results.items) lines.push(itemsSummary(results.items));
	if (results.memory) {
		const m = results.memory;
		const all = [
			...(m.nodeSmall || []),
			m.node1g,
			m.shared4g,
			m.chunkedCap,
			m.upload,
			...(m.uploadFromUrl ? [m.uploadFromUrl, m.uploadFromUrlCapped] : []),
		];
		const maxGrowth = Math.max(...all.map((x) => x.growth));
		lines.push(
			`Memory: peak RSS grows by at most ${(maxGrowth / MiB).toFixed(0)} MiB for files from ${fmtBytes(Math.min(...all.map((x) => Math.min(x.bytes, x.maxBytes || Infinity))))} to ${fmtBytes(Math.max(...all.map((x) => x.stored || 0)))} stored (filesystem binary mode): it does not grow with the file.`,
		);
	}
	const p = results.pickers;
	if (p) {
		lines.push(
			`Model picker: first page of a ${p.total}-model catalog in ${p.rows.map((r) => `${r.median.toFixed(0)} ms (${r.label})`).join(', ')} in the engine` +
				(results.real ? `, ${results.real.picker.map((r) => `${r.median.toFixed(0)} ms`).join(' / ')} through the n8n editor API.` : '.'),
		);
	}
	if (results.detection) {
		const d = results.detection;
		const parts = d.rows.map((r) => {
			const l = r.patterns.learned;
			return `${r.meanMs / 1000} s: ${(l.medianDelayMs / 1000).toFixed(2)} s with ${l.medianRequests} (Wait 1 s loop ${(r.patterns.wait1.medianDelayMs / 1000).toFixed(2)} s; Wait 5 s loop ${r.patterns.wait5.medianRequests} requests)`;
		});
		lines.push(
			`Detection (simulated, learned timing, median delay and requests per run besides its one result fetch): ${parts.join('; ')}.`,
		);
	}
	if (results.detectionBatch) {
		const b = results.detectionBatch;
		const parts = b.rows.map(
			(r) =>
				`${r.meanMs / 1000} s ${r.variants.timestamps.beat}/${b.seeds}` +
				(r.variants.sideBySide ? ` (${b.sideBySide} side by side: ${r.variants.sideBySide.beat}/${b.seeds})` : ''),
		);
		lines.push(
			`Detection, simulated like the real-n8n section (a first batch of ${b.batch} runs, then a measured batch of ${b.batch}) over ${b.seeds} seeds: measured executions that beat both the Wait 1 s loop on delay and the Wait 5 s loop on requests on the same runs: ${parts.join(', ')}.`,
		);
	}
	if (results.trainingWait) lines.push(trainingWaitSummary(results.trainingWait));
	if (results.detectionN8n) lines.push(detectionN8nSummary(results.detectionN8n));
	if (results.coldN8n) lines.push(coldN8nSummary(results.coldN8n));
	if (results.webhookLedger) lines.push(webhookLedgerSummary(results.webhookLedger));
	if (results.real) {
		for (const row of results.real.rows) {
			lines.push(
				`Real n8n, ${results.real.n} runs of ${row.runMs / 1000} s: the node ${fmtS(row.node.execMs)} with ${row.node.requests.status} status requests; ` +
					row.loops.map((l) => `Wait ${l.waitSeconds} s loop ${fmtS(l.execMs)} with ${l.requests.status}`).join('; ') +
					'.',
			);
		}
	}
	if (results.parking) {
		const p = results.parking;
		lines.push(
			`Parking (queue mode, 1 worker of concurrency 2): ${p.n} executions of one ${p.runMs / 1000} s run all done in ${(p.parked.firstStartToLastEndMs / p.runMs).toFixed(2)}× one run parked ` +
				`(${p.parked.statusWhileParked} status requests while parked), ${(p.inProcess.firstStartToLastEndMs / p.runMs).toFixed(1)}× waited for in the execution; ` +
				`main and worker restarted while parked: ${p.restart.succeeded}/${p.n} succeeded.`,
		);
	}
	if (results.fireAndForget) lines.push(fireAndForgetSummary(results.fireAndForget));
	if (results.fireAndForgetBurst) lines.push(fireAndForgetBurstSummary(results.fireAndForgetBurst));
	if (results.queueThroughput) lines.push(queueThroughputSummary(results.queueThroughput));
	return lines;
}

function report({ started, finished, opts, m, results, versions, load }) {
	const out = [];
	out.push('# Benchmarks');
	out.push('');
	out.push(
		`Latest figures of \`npm run bench\`${opts.quick ? ' --quick' : ''} (bench/run.js), measured ${new Date(finished).toISOString().replace('T', ' ').slice(0, 16)} UTC in ${fmtS(finished - started)} on:`,
	);
	out.push('');
	out.push(`- ${m.nproc} CPUs (${m.cpuModel}), ${(m.memory / GiB).toFixed(1)} GiB memory, ${m.platform}`);
	out.push(
		`- load average (1 min) ${load.start.toFixed(2)} at the start, ${load.end.toFixed(2)} at the end (other work on the machine shows up here)`,
	);
	out.push(
		`- Node ${m.node}; n8n-core ${versions.core}, n8n-workflow ${versions.workflow} (in-process engine); n8n ${h.N8N_VERSION} (real n8n)`,
	);
	out.push('- the sandbox (sandbox/, the local stand-in of the RunComfy API) in its own process on loopback');
	out.push('');
	out.push(
		`Reproduce: \`npm run bench\` (all sections, about ${Math.ceil((finished - started) / 60000)} min here; \`npm run bench -- --only=batch,cpu,memory,pickers,real\` for some sections; \`-- --quick\` to try it).`,
	);
	out.push('These are wall-clock figures of one run on one machine; the ratios matter more than the absolute times.');
	if (results.engineRetries) {
		out.push(
			`(${results.engineRetries} execution start(s) were retried: n8n-workflow refused to start them because its 250 ms limit on validation regexes was hit on the busy machine — before any node ran, so nothing was submitted.)`,
		);
	}
	const summary = summaryLines(results);
	if (summary.length) out.push('', '## Summary', '', ...summary.map((l) => `- ${l}`));
	if (results.batch) out.push('', batchSection(results.batch), '', requestsSection(results.batch, results.cpu));
	if (results.downloads) out.push('', downloadsSection(results.downloads));
	if (results.cpu) out.push('', cpuSection(results.cpu));
	if (results.items) out.push('', itemsSection(results.items, { table, fmtS }));
	if (results.memory) out.push('', memorySection(results.memory, table));
	if (results.pickers || results.real) out.push('', pickersSection(results.pickers, results.real));
	if (results.real) out.push('', realSection(results.real));
	if (results.detection) out.push('', detectionSection(results.detection, table));
	if (results.detectionBatch) out.push('', detectionBatchSection(results.detectionBatch, table));
	if (results.detectionN8n) out.push('', detectionN8nSection(results.detectionN8n, table));
	if (results.coldN8n) out.push('', coldN8nSection(results.coldN8n, table));
	if (results.trainingWait) out.push('', trainingWaitSection(results.trainingWait, table));
	if (results.parking) out.push('', parkingSection(results.parking, table));
	if (results.fireAndForget) out.push('', fireAndForgetSection(results.fireAndForget, table));
	if (results.fireAndForgetBurst) out.push('', fireAndForgetBurstSection(results.fireAndForgetBurst, table));
	if (results.webhookLedger) out.push('', webhookLedgerSection(results.webhookLedger, table));
	if (results.queueThroughput) out.push('', queueThroughputSection(results.queueThroughput, table));
	// How the figures are measured: kept in bench/method.md so every written report carries it.
	out.push('', fs.readFileSync(path.join(__dirname, '..', 'method.md'), 'utf8').trimEnd(), '');
	return out.join('\n');
}

module.exports = { report };
