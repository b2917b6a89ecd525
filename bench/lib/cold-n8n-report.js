'use strict';
/**
 * BENCHMARKS.md's section of bench/lib/cold-n8n.js's figures: cold batches in the real n8n.
 */
const h = require('../../scripts/e2e/n8n');

const sec = (ms) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : '—');
const secs = (ms) => `${ms / 1000} s`;

/** A batch's cells: wall time, last run's end → last result, first request, status, result and all requests. */
const cells = (b) =>
	b
		? [sec(b.wallMs), sec(b.afterLastEndMs), sec(b.firstRequestMs), String(b.status), String(b.result), String(b.requests)]
		: ['—', '—', '—', '—', '—', '—'];

/** The batches of one run time, labelled, in the table's order. */
function batchesOf(d, meanMs) {
	const cli = d.cli?.[meanMs] || {};
	const s = d.start || {};
	const at = (round, key) => s[round]?.[meanMs]?.[key];
	return [
		['Node, `n8n execute` (nothing learned)', cli.first],
		['Node, `n8n start`, first execution after the start (nothing learned)', at('cold', 'node')],
		['Node, `n8n start`, second execution (learned in the process)', at('warm', 'node')],
		['HTTP Request + Wait 1 s + IF loop, beside the first executions', at('cold', 'wait1')],
		['HTTP Request + Wait 1 s + IF loop, beside the second executions', at('warm', 'wait1')],
		['HTTP Request + Wait 5 s + IF loop, beside the first executions', at('cold', 'wait5')],
		['HTTP Request + Wait 5 s + IF loop, beside the second executions', at('warm', 'wait5')],
	];
}

/** The done-when of issue 28, per run time. */
function verdicts(d) {
	return d.lengthsMs.map((meanMs) => {
		const at = (round, key) => d.start?.[round]?.[meanMs]?.[key];
		const wait1 = at('cold', 'wait1');
		const wait5 = at('cold', 'wait5');
		const cold = (b) =>
			b && wait1 && wait5
				? {
						delay: b.wallMs - wait1.wallMs,
						within: b.wallMs - wait1.wallMs <= 1000,
						cheaper: b.requests <= wait5.requests,
						text: `${sec(b.wallMs)} (${b.wallMs >= wait1.wallMs ? '+' : '−'}${sec(Math.abs(b.wallMs - wait1.wallMs))} against the Wait 1 s loop's ${sec(wait1.wallMs)}) with ${b.requests} requests (the Wait 5 s loop ${wait5.requests})`,
					}
				: undefined;
		return { meanMs, start: cold(at('cold', 'node')), cli: cold(d.cli?.[meanMs]?.first) };
	});
}

const ok = (c) =>
	c
		? c.within && c.cheaper
			? 'met'
			: `NOT met (${c.within ? '' : 'more than 1 s behind the Wait 1 s loop'}${!c.within && !c.cheaper ? ', ' : ''}${c.cheaper ? '' : 'more requests than the Wait 5 s loop'})`
		: '—';

const shareLabel = (share) => (typeof share === 'number' ? `${share * 100} %` : share);

/** The queue-share part: per (run time, queue share), the node's first execution against the loops beside it. */
function sharesSection(d, table) {
	const rows = [];
	for (const meanMs of d.lengthsMs) {
		for (const share of [...new Set(d.shares.filter((x) => x.meanMs === meanMs).map((x) => x.share))]) {
			const b = (key) => d.shares.find((x) => x.meanMs === meanMs && x.share === share && x.key === key);
			const [node, wait1, wait5] = [b('node'), b('wait1'), b('wait5')];
			if (!node || !wait1 || !wait5) continue;
			const behind = node.wallMs - wait1.wallMs;
			const met = behind <= 1000 && node.requests <= wait5.requests;
			rows.push([
				secs(meanMs),
				shareLabel(share),
				sec(node.wallMs),
				sec(wait1.wallMs),
				sec(wait5.wallMs),
				`${behind >= 0 ? '+' : '−'}${sec(Math.abs(behind))}`,
				String(node.requests),
				String(wait1.requests),
				String(wait5.requests),
				met ? 'met' : 'NOT met',
			]);
		}
	}
	return [
		'**Queue shares**: one `n8n start`; per run time and queue share, the Model node (default wait options, its first execution of a model of its own) ' +
			`and the Wait 1 s / 5 s loops, ${d.n} runs each, every batch started at once. A share queues that part of each run's time (\`in_queue\`, \`queue_position\`, spread included); ` +
			'"one after another": the runs queue behind each other on one instance (`capacities: 1`), each of a tenth of the run time, so the batch lasts about the run time. ' +
			'Goal: the node within 1 s of the Wait 1 s loop, with no more requests (status + result) than the Wait 5 s loop.',
		'',
		table(
			[
				'Run time',
				'Queued',
				'Node',
				'Wait 1 s loop',
				'Wait 5 s loop',
				'Node − Wait 1 s',
				'Node requests',
				'Wait 1 s requests',
				'Wait 5 s requests',
				'Goal',
			],
			rows,
		),
	].join('\n');
}

function coldN8nSection(d, table) {
	const rows = d.lengthsMs.flatMap((meanMs) => batchesOf(d, meanMs).map(([label, b]) => [secs(meanMs), label, ...cells(b)]));
	const ex = d.start?.executions || {};
	const exText = Object.entries(ex)
		.map(([k, v]) => `${k} ${v.succeeded}/${v.total}`)
		.join(', ');
	const head = [
		'Run time',
		'Batch',
		'Wall time',
		'Last end → last result',
		'First request',
		'Status requests',
		'Result requests',
		'Requests',
	];
	const out = [
		'## Cold batches in the real n8n',
		'',
		`n8n ${h.N8N_VERSION} with the package installed as a community package; batches of ${d.n} runs of one model, each run's time drawn within ±${d.spread * 100} % of the mean ` +
			`${d.queueShare != null ? `with ${d.queueShare * 100} % of it` : `after ${d.queueMs} ms`} in the sandbox's queue (\`in_queue\`, \`queue_position\`); the n-th run of every model gets the same draw (the sandbox's \`drawsPerTarget\`, restarted for each part below), so a batch and the loops beside it wait for the same run times. **Wall time**: from the batch's first submit to the last result fetch that found its run ended (what the workflow waits for), from the sandbox's log; ` +
			"**last end → last result**: from the last run's end to that fetch; **first request**: the batch's first status or result request after its run's submit; " +
			"**requests**: the batch's status and result requests (every run needs one result fetch). " +
			'`n8n execute` (mode cli): the Model node, a process of its own per run time (one user folder each, side by side). ' +
			'`n8n start`: workflows behind webhooks — the Model node with default wait options and the HTTP Request + Wait 1 s / 5 s + IF loops — ' +
			'every run time and workflow with a model of its own, all started together: right after the start every workflow once, then all again. ' +
			'What the node learns stays in its n8n process, so a restart, another `n8n execute` or another queue-mode worker starts like the first execution. ' +
			`Executions succeeded: ${exText}; the section took ${(d.sectionMs / 1000).toFixed(0)} s.`,
		'',
		table(head, rows),
		'',
	];
	for (const v of verdicts(d)) {
		out.push(
			`- ${secs(v.meanMs)}: first execution after \`n8n start\`: ${v.start?.text ?? '—'}: ${ok(v.start)}; ` +
				`\`n8n execute\`: ${v.cli?.text ?? '—'}: ${ok(v.cli)}.`,
		);
	}
	if (d.shares) out.push('', sharesSection(d, table));
	return out.join('\n');
}

/** The one summary line of the report. */
function coldN8nSummary(d) {
	const v = verdicts(d);
	return (
		`Cold batches in the real n8n (${d.n} runs): ` +
		v.map((x) => `${secs(x.meanMs)}: first execution after \`n8n start\` ${x.start?.text ?? '—'} — ${ok(x.start)}`).join('; ') +
		'.'
	);
}

module.exports = { coldN8nSection, coldN8nSummary };
