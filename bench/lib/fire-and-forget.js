'use strict';
/**
 * Fire-and-forget (issue 14's measured goal), in a real n8n (`n8n start`, SQLite): workflow A submits N
 * deployment requests with Options → Deliver Results To = the production URL of workflow B's RunComfy Webhook
 * Trigger and ends at once; the sandbox delivers each result there like the live service, with a share of the
 * deliveries sent twice and a share held back behind a later event (queued and running events included, which B
 * acknowledges without starting). Measured: B's executions, distinct request ids among them, request ids seen
 * twice, the deliveries the sandbox made (duplicates, out of order, retries), the time from A's start to A's
 * answer and to the last B execution, and the RSS of the n8n process (with its task runner).
 *
 * The workflows are scripts/e2e/fire-and-forget.js's (shared with test/e2e/fire-and-forget.test.ts).
 */
const h = require('../../scripts/e2e/n8n');
const f = require('../../scripts/e2e/fire-and-forget');
const { waitFor } = require('../../scripts/e2e/parking');
const { treeRss } = require('./parking');
const { fmtMiB, fmtS } = require('./measure');

/** See test/e2e/trigger.test.ts: bursts of parallel deliveries must not make n8n's SQLite ping give up. */
const N8N_ENV = { DB_PING_TIMEOUT_MS: '60000' };

function sandboxConfig({ runMs, spread, instances, duplicateRate, outOfOrderRate }) {
	return {
		runDurationMs: runMs,
		spread,
		queueMs: 200,
		// The deployment's max instances: at most this many requests run at once, the others wait in its queue.
		capacity: instances,
		// Retried long enough that nothing is given up (the live service retries for 24 h).
		webhooks: { baseDelayMs: 250, maxDelayMs: 8000, maxAttempts: 60, duplicateRate, outOfOrderRate, holdMs: 1000 },
	};
}

/** One batch: A once with `n` items, then until every result was delivered and B's executions have all ended. */
async function oneBatch(n8n, sb, { submitter, receiver, token, n, prefix, intermediate, log }) {
	const rest = n8n.rest;
	const known = new Set((await f.allExecutions(rest, receiver.id)).map((e) => String(e.id)));
	let peakRss = 0;
	const sampler = setInterval(() => {
		try {
			peakRss = Math.max(peakRss, treeRss(n8n.process.pid));
		} catch {
			// n8n's process tree changed while it was read
		}
	}, 250);
	try {
		const batch = await f.submitBatch(n8n.url, {
			deployment: sb.stable.deployments.textToImage,
			n,
			deliverTo: f.productionUrl(n8n.url, token),
			intermediate,
			prefix,
		});
		const ids = batch.items.map((i) => String(i.request_id));
		log(`    A answered with ${ids.length} request ids in ${fmtS(batch.endedAt - batch.startedAt)}`);
		await waitFor('every result delivered', async () => f.deliveriesSettled(await sb.log(), ids) || undefined, {
			limitMs: Math.max(300_000, n * 3000),
			intervalMs: 500,
		});
		// A backlogged n8n may not have started (or ended) every execution in time: what there is gets reported.
		let timedOut;
		const all = await f.executionsOf(rest, receiver.id, known.size + n, { limitMs: 300_000 }).catch(async (error) => {
			timedOut = error.message;
			log(`    ${error.message}`);
			return await f.allExecutions(rest, receiver.id);
		});
		const fresh = all.filter((e) => !known.has(String(e.id)));
		const received = await f.receivedRuns(rest, fresh);
		const [runA] = (await rest.listExecutions({ workflowId: submitter.id, limit: 1 })) || [];
		return { batch, ids, received, runA, peakRss, timedOut, sandboxLog: await sb.log(), state: await sb.state() };
	} finally {
		clearInterval(sampler);
	}
}

/** The figures of one batch (plain data for the report and --json). */
function figures({ batch, ids, received, runA, peakRss, timedOut, sandboxLog, state }) {
	const firedIds = received.flatMap((r) => r.fired.map((json) => String(json.request_id)));
	const counts = new Map();
	for (const id of firedIds) counts.set(id, (counts.get(id) || 0) + 1);
	const mine = new Set(ids);
	const lastB = Math.max(...received.map((r) => r.stoppedAt || 0));
	const byStatus = {};
	for (const r of received) byStatus[r.status] = (byStatus[r.status] || 0) + 1;
	const lastRunEnd = Math.max(...state.runs.filter((r) => mine.has(r.id)).map((r) => r.finishedAt || 0));
	return {
		requests: ids.length,
		queuedAtOnce: batch.items.filter((i) => i.status === 'queued').length,
		aStatus: runA && runA.status,
		executions: received.length,
		succeededExecutions: received.filter((r) => r.status === 'success').length,
		executionsByStatus: byStatus,
		timedOut,
		distinctIds: counts.size,
		idsTwice: [...counts.values()].filter((c) => c > 1).length,
		missing: ids.filter((id) => !counts.has(id)).length,
		foreign: [...counts.keys()].filter((id) => !mine.has(id)).length,
		withOutputs: received.filter((r) => r.fired.some((json) => json.status === 'succeeded' && json.outputs)).length,
		deliveries: f.deliveryStats(sandboxLog, ids),
		statusPolls: sandboxLog.filter(
			(e) => e.api === 'serverless' && e.method === 'GET' && /\/requests\/[^/]+\/(status|result)$/.test(e.path),
		).length,
		aMs: batch.endedAt - batch.startedAt,
		toLastBMs: lastB - batch.startedAt,
		lastRunEndToLastBMs: lastB - lastRunEnd,
		firstRunEndMs: Math.min(...state.runs.filter((r) => mine.has(r.id)).map((r) => r.finishedAt || Infinity)) - batch.startedAt,
		peakRss,
	};
}

/**
 * Starts an n8n (`env` added to its environment) with workflow A and workflow B (`receiver`: 'trigger' for the
 * RunComfy Webhook Trigger, 'webhook' for n8n's plain Webhook node), runs a warm-up batch and one measured batch
 * of `n` requests on the sandbox configured with `config`; the figures of the measured one, and n8n's idle RSS.
 */
async function measureBatch(sb, { n, config, receiver = 'trigger', env = {}, intermediate = false, log }) {
	await h.ensureN8n({ log });
	const uf = h.createUserFolder();
	const token = `bench_${h.newId()}`;
	const receiverWorkflow = receiver === 'webhook' ? f.plainWebhookReceiverWorkflow : f.receiverWorkflow;
	let n8n;
	try {
		const credential = h.sandboxCredential(sb);
		const started = await h.startN8nWithPublished(
			uf,
			{
				credentials: [credential],
				workflows: [
					f.submitterWorkflow({ credential, name: 'Bench: fire and forget (submit)' }),
					receiverWorkflow({ token, credential, name: 'Bench: fire and forget (receive)' }),
				],
			},
			{ env: { ...N8N_ENV, ...env }, readyTimeoutMs: 180_000, publicationTimeoutMs: 120_000 },
		);
		n8n = started.n8n;
		const [submitter, receiverWf] = started.workflows;
		const ctx = { submitter, receiver: receiverWf, token, intermediate, log };

		// Warm-up (first executions: module loading, the trigger's ledger): not reported.
		await sb.reset(config);
		await oneBatch(n8n, sb, { ...ctx, n: 2, prefix: 'warm-up' });
		const rssIdle = treeRss(n8n.process.pid);

		await sb.reset(config);
		return { rssIdle, ...figures(await oneBatch(n8n, sb, { ...ctx, n, prefix: 'bench' })) };
	} finally {
		await n8n?.stop();
		uf.cleanup();
	}
}

/** The whole section; `sb` is the benchmark's sandbox process (bench/lib/sandbox.js). */
async function fireAndForget(sb, { n, runMs, spread, instances, duplicateRate, outOfOrderRate, intermediate = false, log }) {
	log(
		`  fire-and-forget: ${n} deployment requests of ${runMs / 1000} s ±${Math.round(spread * 100)} % on ${instances} instances, ${duplicateRate * 100} % duplicates, ${outOfOrderRate * 100} % out of order`,
	);
	const config = sandboxConfig({ runMs, spread, instances, duplicateRate, outOfOrderRate });
	const measured = await measureBatch(sb, { n, config, intermediate, log });
	log(
		`    B ran ${measured.executions} times for ${measured.distinctIds} distinct ids (${measured.idsTwice} twice), last one ${fmtS(measured.toLastBMs)} after A started`,
	);
	return { n, runMs, spread, instances, duplicateRate, outOfOrderRate, intermediate, ...measured };
}

/**
 * The receivers of a burst, each in an n8n of its own. n8n 2.41 takes an expression isolate for the whole webhook
 * request of every start node except its plain Webhook node with fixed parameters; with a pool of one warm isolate
 * (its default) every concurrent delivery starts one. Lazy acquisition takes one only when an expression is
 * evaluated: measured side by side to see whether that is what delays the trigger's answers.
 */
const BURST_RECEIVERS = [
	{ key: 'trigger', label: 'RunComfy Webhook Trigger, n8n defaults', receiver: 'trigger', env: {} },
	{
		key: 'lazy',
		label: 'RunComfy Webhook Trigger, `N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true`',
		receiver: 'trigger',
		env: { N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true' },
	},
	{ key: 'webhook', label: "n8n's plain Webhook node (no dedupe), n8n defaults", receiver: 'webhook', env: {} },
];

/** Every result at once: as many instances as requests, no duplicates; one n8n per receiver in BURST_RECEIVERS. */
async function fireAndForgetBurst(sb, { n, runMs, spread, log }) {
	const config = sandboxConfig({ runMs, spread, instances: n, duplicateRate: 0, outOfOrderRate: 0 });
	const rows = [];
	for (const r of BURST_RECEIVERS) {
		log(`  fire-and-forget burst: ${n} results within seconds to ${r.label}`);
		const m = await measureBatch(sb, { n, config, receiver: r.receiver, env: r.env, log });
		log(`    ${m.deliveries.notAnswered} deliveries answered late, last B execution ${fmtS(m.toLastBMs)} after A started`);
		rows.push({
			key: r.key,
			label: r.label,
			executions: m.executions,
			distinctIds: m.distinctIds,
			late: m.deliveries.notAnswered,
			attempts: m.deliveries.attempts,
			toLastBMs: m.toLastBMs,
			lastRunEndToLastBMs: m.lastRunEndToLastBMs,
			rssIdle: m.rssIdle,
			peakRss: m.peakRss,
		});
	}
	return { n, runMs, spread, rows };
}

function fireAndForgetBurstSection(b, table) {
	return [
		`## Fire-and-forget: ${b.n} results within seconds`,
		'',
		`The fire-and-forget workflows above, with every result arriving at once: ${b.n} requests of ${b.runMs / 1000} s ±${Math.round(b.spread * 100)} % on as many instances, no duplicates. Each receiver in an n8n of its own (\`n8n start\`, SQLite). What differs between them in n8n 2.41's source: for the whole webhook request of every start node except its plain Webhook node with fixed parameters, n8n takes an expression isolate (isolated-vm) and keeps one warm, so a delivery arriving while another is handled starts one of its own; with \`N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true\` it takes one only when an expression is evaluated. One batch per receiver: the late answers vary widely from one run to the next (docs/nodes/webhook-trigger.md).`,
		'',
		table(
			[
				'Receiver',
				'Executions of B',
				"Deliveries answered after RunComfy's 10 s (retried)",
				"A's start → last B execution ended",
				'Last run ended → last B execution ended',
				'n8n RSS idle → peak',
			],
			b.rows.map((r) => [
				r.label,
				String(r.executions),
				String(r.late),
				fmtS(r.toLastBMs),
				fmtS(r.lastRunEndToLastBMs),
				`${fmtMiB(r.rssIdle)} → ${fmtMiB(r.peakRss)}`,
			]),
		),
	].join('\n');
}

function fireAndForgetBurstSummary(b) {
	const by = Object.fromEntries(b.rows.map((r) => [r.key, r]));
	const part = (r) => `${r.late} late answers, last B ${fmtS(r.toLastBMs)} after A started`;
	return (
		`Fire-and-forget burst (${b.n} results within seconds): RunComfy Webhook Trigger ${part(by.trigger)}; ` +
		`with N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true ${part(by.lazy)}; n8n's plain Webhook node ${part(by.webhook)}.`
	);
}

/** The summary line of BENCHMARKS.md. */
function fireAndForgetSummary(r) {
	const ok = r.executions === r.requests && r.distinctIds === r.requests && r.idsTwice === 0 && r.missing === 0;
	return (
		`Fire-and-forget: ${r.requests} deployment requests delivered to the RunComfy Webhook Trigger started workflow B ${r.executions} times, ` +
		`${r.distinctIds} distinct request ids, ${r.idsTwice} seen twice (goal: each exactly once — ${ok ? 'met' : 'NOT met'}) under ${r.deliveries.duplicates} duplicate and ${r.deliveries.outOfOrder} out-of-order deliveries; ` +
		`A answered in ${fmtS(r.aMs)}, the last B execution ended ${fmtS(r.toLastBMs)} after A started.`
	);
}

/** The BENCHMARKS.md section (`table` renders a Markdown table). */
function fireAndForgetSection(r, table) {
	const d = r.deliveries;
	return [
		`## Fire-and-forget (${r.requests} deployment requests delivered to the RunComfy Webhook Trigger)`,
		'',
		`n8n ${h.N8N_VERSION} (\`n8n start\`, SQLite), the package installed as a community package. **Workflow A**: Webhook → Split Out → RunComfy Deployment (Inference → Run, ` +
			`Options → Deliver Results To = the production URL of workflow B, Deliver Intermediate Statuses ${r.intermediate ? 'on' : 'off'}) → No Op, answering with its last node's items. ` +
			'**Workflow B**: RunComfy Webhook Trigger (secret path token, queued and running events off) → No Op. ' +
			`Each request runs ${r.runMs / 1000} s ±${Math.round(r.spread * 100)} % on the sandbox, at most ${r.instances} at once (the deployment's max instances; the others wait in its queue), which delivers its ${r.intermediate ? 'queued, running and final events' : 'final event'} to B; ` +
			`${r.duplicateRate * 100} % of the delivered events are sent a second time and ${r.outOfOrderRate * 100} % are held back behind a later event (a final one behind the next delivery to the same URL, at most 1 s); a delivery not answered 2xx within 10 s (the live service's timeout) is retried with backoff. ` +
			"Executions are counted through n8n's REST API once the sandbox has delivered every result; times are from the call to A's webhook.",
		'',
		table(
			['Measure', 'Value'],
			[
				['Requests A submitted / answered "queued" at once', `${r.requests} / ${r.queuedAtOnce} (A's execution: ${r.aStatus})`],
				[
					'Executions of B',
					`${r.executions} (${Object.entries(r.executionsByStatus || {})
						.map(([k, v]) => `${v} ${k}`)
						.join(', ')})${r.timedOut ? '; not all had ended 5 min after every result was delivered' : ''}`,
				],
				["Distinct request ids among them / of A's, missing / unknown", `${r.distinctIds} / ${r.missing} / ${r.foreign}`],
				['Request ids seen twice', String(r.idsTwice)],
				['Executions carrying their outputs', String(r.withOutputs)],
				['Deliveries the sandbox made (attempts)', `${d.attempts}: ${d.attempts - d.intermediate} final, ${d.intermediate} queued/running`],
				['… of them duplicates / out of order / retries', `${d.duplicates} / ${d.outOfOrder} / ${d.retries}`],
				['… final events answered 2xx (duplicates included)', `${d.finalAnswered} (${d.finalDuplicatesAnswered} duplicates)`],
				[
					'… not answered 2xx (retried)',
					`${d.notAnswered}${
						d.notAnswered
							? ` (${Object.entries(d.notAnsweredBy || {})
									.map(([k, v]) => `${v} × ${k}`)
									.join(', ')})`
							: ''
					}`,
				],
				['Status / result requests (B confirms each finished request: one of each per request expected)', String(r.statusPolls)],
				["A's start → A's answer", fmtS(r.aMs)],
				["A's start → first run ended", fmtS(r.firstRunEndMs)],
				["A's start → last B execution ended", fmtS(r.toLastBMs)],
				['Last run ended → last B execution ended', fmtS(r.lastRunEndToLastBMs)],
				['n8n RSS idle → peak during the batch', `${fmtMiB(r.rssIdle)} → ${fmtMiB(r.peakRss)}`],
			],
		),
		'',
		`**Goal: ${r.requests} executions of B, each request exactly once, under duplicate and out-of-order deliveries.** ` +
			`Measured: ${r.executions} executions, ${r.distinctIds} distinct ids, ${r.idsTwice} twice — ${r.executions === r.requests && r.distinctIds === r.requests && r.idsTwice === 0 ? 'met' : 'NOT met'}.`,
	].join('\n');
}

module.exports = {
	fireAndForget,
	fireAndForgetSection,
	fireAndForgetSummary,
	fireAndForgetBurst,
	fireAndForgetBurstSection,
	fireAndForgetBurstSummary,
};
