'use strict';
/**
 * Queue throughput: does a second worker double what n8n in queue mode gets done? Redis + PostgreSQL
 * (scripts/queue), one main, first ONE worker then TWO (the second started beside the first), each of concurrency
 * `concurrency`: `n` executions started at once through a webhook, each one deployment run of `runMs` waited for
 * in the execution (the default Wait Mode), so each holds one of its worker's slots for the whole run. Executions
 * per minute from n8n's own startedAt/stoppedAt (first start to last end).
 *
 * The workflow is bench/lib/parking.js's (Webhook → Split Out → Inference → Run → No Op), downloads off.
 */
const h = require('../../scripts/e2e/n8n');
const q = require('../../scripts/queue/queue');
const { fmtS } = require('./measure');
const { inProcessWorkflow, runBatch, treeCpuMs, treeRss } = require('./parking');

const PATH = 'bench-in-process';

/** The whole section; `sb` is the benchmark's sandbox process (bench/lib/sandbox.js). */
async function queueThroughput(sb, { n, runMs, concurrency, log }) {
	await h.ensureN8n({ log });
	log('  queue-throughput: starting Redis + PostgreSQL (scripts/queue/services.sh)');
	const services = await q.startServices();
	const uf = h.createUserFolder();
	let cluster;
	const workers = [];
	sb.baseConfig = { queueMs: 0 };
	try {
		const credential = await q.importCredential(uf, services, h.sandboxCredential(sb));
		const wf = await q.importWorkflow(uf, services, inProcessWorkflow(credential), { publish: true });
		cluster = await q.startCluster(uf, { services, workers: 1, concurrency, log });
		workers.push(...cluster.workers);
		await cluster.main.rest.setupOwner();
		const view = {
			main: () => cluster.main,
			rss: () => ({ main: treeRss(cluster.main.process.pid), worker: workers.reduce((s, w) => s + treeRss(w.process.pid), 0) }),
			cpu: () => ({ main: treeCpuMs(cluster.main.process.pid), worker: workers.reduce((s, w) => s + treeCpuMs(w.process.pid), 0) }),
		};
		const batch = async (label, size, ms) => {
			const ran = workers.map((w) => w.executions().length);
			const r = await runBatch(view, sb, { workflowId: wf.id, path: PATH, n: size, runMs: ms, maxWait: 3600, log });
			return { label, ...r, perWorker: workers.map((w, i) => w.executions().length - ran[i]) };
		};
		// Warm-up of the first worker (module loading, connections): not reported.
		await batch('warm-up', 2, 1000);
		log(`  queue-throughput: ${n} executions × one ${runMs / 1000} s run, 1 worker of concurrency ${concurrency}`);
		const one = await batch('1 worker', n, runMs);
		const second = await q.startWorker(uf, q.queueEnv(services, { N8N_EVENTBUS_LOGWRITER_LOGBASENAME: 'n8nEventLog-worker-2' }), {
			concurrency,
			name: 'worker-2',
		});
		workers.push(second);
		log(`  queue-throughput: the same with 2 workers of concurrency ${concurrency}`);
		const two = await batch('2 workers', n, runMs);
		return { n, runMs, concurrency, rows: [one, two] };
	} finally {
		await Promise.all(workers.slice(1).map((w) => w.stop()));
		await cluster?.stop();
		await services.stop();
		uf.cleanup();
	}
}

const perMinute = (r) => (r.n * 60000) / r.firstStartToLastEndMs;

function queueThroughputSummary(t) {
	const [one, two] = t.rows;
	return (
		`Queue throughput (${t.n} executions of one ${t.runMs / 1000} s run waited for in the execution, worker concurrency ${t.concurrency}): ` +
		`1 worker ${perMinute(one).toFixed(1)} executions/min, 2 workers ${perMinute(two).toFixed(1)} (${(perMinute(two) / perMinute(one)).toFixed(2)}×).`
	);
}

/** The report's section (`table` renders a Markdown table). */
function queueThroughputSection(t, table) {
	const waves = (workers) => Math.ceil(t.n / (workers * t.concurrency));
	return [
		'## Queue throughput: one worker vs two',
		'',
		`n8n ${h.N8N_VERSION} in queue mode (Redis + PostgreSQL from scripts/queue, one main), first with one worker, then with a ` +
			`second worker started beside it, each \`--concurrency=${t.concurrency}\`. ${t.n} executions started at once through a webhook, ` +
			`each Inference → Run of one deployment request of ${t.runMs / 1000} s waited for in the execution (the default Wait Mode), so each ` +
			`holds a worker slot for the whole run: one worker runs them in ${waves(1)} waves of ${t.concurrency}, two in ${waves(2)}. ` +
			'Time from the first execution start to the last end (n8n startedAt/stoppedAt). The second worker learns run times from nothing.',
		'',
		table(
			['Workers', 'Succeeded', 'First start → last end', 'Executions/min', 'Per worker', 'Submit / status / result requests'],
			t.rows.map((r) => [
				r.label,
				`${r.succeeded}/${r.n}`,
				fmtS(r.firstStartToLastEndMs),
				perMinute(r).toFixed(1),
				r.perWorker.join(' + '),
				`${r.requests.submit} / ${r.requests.status} / ${r.requests.result}`,
			]),
		),
		'',
		`Two workers: ${(perMinute(t.rows[1]) / perMinute(t.rows[0])).toFixed(2)}× the executions per minute of one.`,
	].join('\n');
}

module.exports = { queueThroughput, queueThroughputSection, queueThroughputSummary };
