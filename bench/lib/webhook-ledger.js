'use strict';
/**
 * The RunComfy Webhook Trigger's dedupe ledger at scale: ms per delivery when the workflow's static data already
 * holds a copy of 1,000 and of 50,000 requests, side by side. In-process (no n8n server, no API: queued events,
 * which the trigger takes without asking the API): each delivery goes through the built node's webhook() in
 * n8n-core's WebhookContext, the static data loaded from a JSON "row" and written back to it when changed, as n8n
 * does for every webhook request (test/helpers/engine-trigger.ts `deliver`); that JSON round trip of the whole row
 * is n8n's own cost and is counted. The copy is seeded as a delivery saves it (requests spread over the last 24 h).
 *
 * Per size: the first delivery (a restarted process reads the copy), then `deliveries` new requests one after the
 * other, then a repeat of each (a duplicate); ms per delivery is wall time ÷ deliveries, whole (n8n's JSON load and
 * save of the row included) and inside the node's webhook() alone; and the ledger's own calls (admit, copyToSave)
 * alone, 2,000 deliveries in a row against a copy of the same size.
 */
const path = require('path');

const { loadHarness } = require('./harness');

const SIZES = [1_000, 50_000];
const DAY_MS = 24 * 60 * 60 * 1000;

function queued(requestId) {
	return { request_id: requestId, deployment_id: 'bench-deployment', status: 'in_queue', created_at: new Date().toISOString() };
}

/** A copy of `entries` requests spread over the last 24 h, as a delivery saves it (`scope`: a process of its own). */
function seededCopy(ledger, scope, entries, now) {
	for (let i = 0; i < entries; i++)
		ledger.admit(scope, undefined, `seed-${entries}-${i}`, 3, now - DAY_MS + Math.floor((i * DAY_MS) / entries));
	return ledger.copyToSave(scope, undefined, now).copy;
}

/** ms per delivery of the ledger's own calls: `count` new requests against a copy of `entries`. */
function ledgerAlone(ledger, entries, count) {
	const scope = `bench-ledger-alone-${entries}-${Date.now()}`;
	const now = Date.now();
	let row = seededCopy(ledger, scope, entries, now);
	const started = process.hrtime.bigint();
	for (let i = 0; i < count; i++) {
		const loaded = row;
		ledger.admit(scope, loaded, `alone-${entries}-${i}`, 1, now + i);
		const due = ledger.copyToSave(scope, loaded, now + i);
		if (due) {
			row = due.copy;
			due.settle();
		}
	}
	return Number(process.hrtime.bigint() - started) / 1e6 / count;
}

async function measureSize(harness, Trigger, ledgerKeyOf, ledger, entries, deliveries) {
	const node = new Trigger();
	// The node's own share: the time inside webhook().
	let inNodeMs = 0;
	const webhook = node.webhook;
	node.webhook = async function (...args) {
		const started = process.hrtime.bigint();
		try {
			return await webhook.apply(this, args);
		} finally {
			inNodeMs += Number(process.hrtime.bigint() - started) / 1e6;
		}
	};
	const now = Date.now();
	const key = ledgerKeyOf({ id: 'trigger-node', name: 'RunComfy Webhook Trigger' });
	const seeded = seededCopy(ledger, `bench-seed-${entries}-${now}`, entries, now);
	const store = { data: JSON.parse(JSON.stringify({ global: { [key]: seeded } })) };
	const workflowId = `bench-ledger-${entries}-${process.pid}-${now}`;
	const send = async (requestId) =>
		await harness.deliver({
			node,
			parameters: { event: 'deploymentRequest', pathToken: 'k7Qz2vX9mT4pR8sLw3nYb6cH', includeIntermediate: true },
			store,
			body: queued(requestId),
			workflowId,
		});
	const timed = async (ids) => {
		inNodeMs = 0;
		const started = process.hrtime.bigint();
		const results = [];
		for (const id of ids) results.push(await send(id));
		return { ms: Number(process.hrtime.bigint() - started) / 1e6, nodeMs: inNodeMs, results };
	};
	const first = await timed([`seed-${entries}-0`]);
	const ids = Array.from({ length: deliveries }, (_, i) => `new-${entries}-${i}`);
	const fresh = await timed(ids);
	const repeats = await timed(ids);
	return {
		entries,
		deliveries,
		firstMs: first.ms,
		newMs: fresh.ms / deliveries,
		duplicateMs: repeats.ms / deliveries,
		newNodeMs: fresh.nodeMs / deliveries,
		duplicateNodeMs: repeats.nodeMs / deliveries,
		started: fresh.results.filter((r) => r.started).length,
		duplicatesStarted: repeats.results.filter((r) => r.started).length + first.results.filter((r) => r.started).length,
		rowBytes: Buffer.byteLength(JSON.stringify(store.data)),
		ledgerMs: ledgerAlone(ledger, entries, 2_000),
	};
}

/** The section's figures, for the built package of this checkout; `loaded`: the harness if already loaded. */
async function webhookLedger({ deliveries = 300, log = () => {}, loaded } = {}) {
	const { harness } = loaded || loadHarness();
	const dist = (p) => require(path.join(__dirname, '..', '..', 'dist', p));
	const { RunComfyWebhookTrigger } = dist('nodes/RunComfyWebhookTrigger/RunComfyWebhookTrigger.node.js');
	const { ledgerKeyOf } = dist('nodes/RunComfyWebhookTrigger/handle.js');
	const ledger = dist('nodes/RunComfyWebhookTrigger/ledger.js');
	await harness.getRuntime();
	// A warm-up: module loading and the engine's first context.
	await measureSize(harness, RunComfyWebhookTrigger, ledgerKeyOf, ledger, 10, 20);
	const sizes = [];
	for (const entries of SIZES) {
		log(`  webhook-ledger: ${entries} requests in the copy, ${deliveries} new deliveries and their repeats`);
		sizes.push(await measureSize(harness, RunComfyWebhookTrigger, ledgerKeyOf, ledger, entries, deliveries));
	}
	return { sizes };
}

const ms = (x) => `${x.toFixed(2)} ms`;

function webhookLedgerSection(r, table) {
	const [small, large] = r.sizes;
	return [
		'## Webhook Trigger: the dedupe ledger at scale',
		'',
		"Milliseconds per delivery to the RunComfy Webhook Trigger when the workflow's static data already holds the ledger's copy of 1,000 and of 50,000 requests (seeded over the last 24 h). " +
			"In-process: each delivery (a queued event, taken without asking the API) goes through the built node's webhook() in n8n-core's WebhookContext, with the whole static data loaded from JSON and written back as JSON when it changed, as n8n does for each webhook request (its own share of the cost). " +
			`Per size: the first delivery (a restarted process reads the copy), then ${small.deliveries} new requests one after the other, then a repeat of each; per delivery, whole and inside the node's webhook() alone. Ledger alone: its own calls for 2,000 new requests in a row, no n8n around them. Row: the static data's JSON size after them.`,
		'',
		table(
			[
				'Requests in the copy',
				'First delivery (reads the copy)',
				'New request: whole / in webhook()',
				'Repeat: whole / in webhook()',
				'Ledger alone, per delivery',
				'Workflows started (new / repeats)',
				'Row',
			],
			r.sizes.map((s) => [
				String(s.entries),
				ms(s.firstMs),
				`${ms(s.newMs)} / ${ms(s.newNodeMs)}`,
				`${ms(s.duplicateMs)} / ${ms(s.duplicateNodeMs)}`,
				`${(s.ledgerMs * 1000).toFixed(0)} µs`,
				`${s.started} / ${s.duplicatesStarted}`,
				`${(s.rowBytes / 1024).toFixed(0)} KiB`,
			]),
		),
		'',
		`50,000 against 1,000, per new request: ${(large.ledgerMs / small.ledgerMs).toFixed(2)}× for the ledger alone, ${(large.newNodeMs / small.newNodeMs).toFixed(2)}× in webhook(), ${(large.newMs / small.newMs).toFixed(2)}× whole; per repeat: ${(large.duplicateNodeMs / small.duplicateNodeMs).toFixed(2)}× in webhook() and ${(large.duplicateMs / small.duplicateMs).toFixed(2)}× whole. ` +
			"What grows is n8n's: it parses the workflow's whole static data on each webhook request and writes it whole when it changed.",
	].join('\n');
}

function webhookLedgerSummary(r) {
	const [small, large] = r.sizes;
	return (
		`Webhook Trigger ledger, per new delivery with 1,000 and 50,000 requests in the copy: the ledger alone ${(small.ledgerMs * 1000).toFixed(0)} and ${(large.ledgerMs * 1000).toFixed(0)} µs (${(large.ledgerMs / small.ledgerMs).toFixed(2)}×); in webhook() ${ms(small.newNodeMs)} and ${ms(large.newNodeMs)} ` +
		`(${(large.newNodeMs / small.newNodeMs).toFixed(2)}×); whole, with n8n's JSON load and save of the row, ${ms(small.newMs)} and ${ms(large.newMs)} (${(large.newMs / small.newMs).toFixed(2)}×).`
	);
}

module.exports = { webhookLedger, webhookLedgerSection, webhookLedgerSummary };

if (require.main === module) {
	webhookLedger({ log: (l) => process.stdout.write(`${l}\n`) })
		.then((r) => {
			process.stdout.write(`${JSON.stringify(r, null, 2)}\n${webhookLedgerSummary(r)}\n`);
			process.exit(0);
		})
		.catch((error) => {
			process.stderr.write(`${error.stack}\n`);
			process.exit(1);
		});
}
