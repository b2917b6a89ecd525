/**
 * n8n's production queue topology with the package: Redis + PostgreSQL (scripts/queue), a main (`n8n start`,
 * N8N_DISABLE_PRODUCTION_MAIN_PROCESS=true: it serves no production or waiting webhooks, n8n 2.41.1
 * server.js/abstract-server.js), two `n8n worker` processes and one `n8n webhook` process whose address is
 * WEBHOOK_URL on every process. One cluster for all cases.
 *
 * - 20 parked Inference → Run executions and 200 fire-and-forget deliveries (Deliver Results To → RunComfy Webhook
 *   Trigger) at once, with duplicate and out-of-order deliveries: every result once, each request submitted once,
 *   every callback and delivery sent to (and answered by) the webhook process, the executions run by the workers.
 * - A worker killed (SIGKILL) while Inference → Run waits in the execution, the other worker alive: what n8n does
 *   (the live worker's stall check fails the job; the webhook process, which queued it, stores the execution as an
 *   error after n8n's grace; nothing runs again) and each paid request id in the dead worker's log, as
 *   docs/queue-mode.md says. test/e2e/queue/worker-death.test.ts covers Model → Run with a worker started after the
 *   death.
 */
import { startSandbox } from '../../../sandbox';
import type { RequestLogEntry, Sandbox, SandboxConfig } from '../../../sandbox';
import * as h from '../../../scripts/e2e/n8n';
import type { ExecutionItem, UserFolder, WorkflowJson } from '../../../scripts/e2e/n8n';
import {
	deliveriesSettled,
	deliveryStats,
	executionsOf,
	isFinal,
	productionUrl,
	receivedRuns,
	receiverWorkflow,
	submitBatch,
	submitterWorkflow,
} from '../../../scripts/e2e/fire-and-forget';
import { deliveryInFlight, parkingWorkflow, waitFor, waitForStatus } from '../../../scripts/e2e/parking';
import * as q from '../../../scripts/queue/queue';
import type { QueueCluster, QueueServices } from '../../../scripts/queue/queue';

const PARKED = 20;
const DELIVERED = 200;
const KILLED_RUNS = 5;
const CONFIG: SandboxConfig = {
	runDurationMs: 1500,
	spread: 0.3,
	queueMs: 200,
	// A deployment's max instances: the results come 20 at a time, not all 220 within the same second.
	capacity: 20,
	// RunComfy's exponential back-off (service-facts §7), shortened: 0.5 s doubling up to 30 s, 20 tries, so a
	// delivery the busy webhook process answers late is tried again after it has caught up.
	webhooks: { baseDelayMs: 500, maxDelayMs: 30_000, maxAttempts: 20, duplicateRate: 0.2, outOfOrderRate: 0.2, holdMs: 500 },
};
/** n8n's job lock and stall check shortened, so the dead worker's job is seen stalled sooner (same path). */
const N8N_ENV = {
	// A busy machine: PostgreSQL's answers to n8n's pings may be slow for a moment, and n8n's default pool of 2
	// connections per process fails executions of a burst of deliveries ("timeout exceeded when trying to connect").
	DB_PING_TIMEOUT_MS: '60000',
	DB_POSTGRESDB_POOL_SIZE: '10',
	DB_POSTGRESDB_CONNECTION_TIMEOUT: '60000',
	// An expression isolate only when an expression is evaluated, not one per webhook request (docs/dev/webhook-bursts.md).
	N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE: 'true',
	QUEUE_WORKER_LOCK_DURATION: '20000',
	QUEUE_WORKER_LOCK_RENEW_TIME: '4000',
	QUEUE_WORKER_STALLED_INTERVAL: '5000',
};

let services: QueueServices | undefined;
let cluster: QueueCluster | undefined;
let sandbox: Sandbox;
let userFolder: UserFolder | undefined;
let parking: WorkflowJson;
let waiting: WorkflowJson;
let receiver: WorkflowJson;
const token = `topology_${h.newId()}`;

/** The info line the node logs for each paid run (nodes/shared/jobs/paidRecord.ts, PAID_LOG_PREFIX). */
const PAID_LINE = /RunComfy paid: request submitted \(node "Run", item (\d+), request_id ([^\s)]+)\)/g;

const isDelivery = (e: RequestLogEntry) => e.api === 'webhook';
const isSubmit = (e: RequestLogEntry) => e.api === 'serverless' && e.method === 'POST' && /\/inference$/.test(e.path);

/** The parking workflow waiting in the execution (the default Wait Mode), on a path of its own. */
function waitInExecutionWorkflow(credential: { id: string; name: string }): object {
	const wf = parkingWorkflow({ credential, path: 'runcomfy-topology-wait', name: 'Deployment runs waited for in the execution' });
	for (const node of wf.nodes as Array<{ name: string; id: string; webhookId?: string; parameters: Record<string, unknown> }>) {
		if (node.name === 'Webhook')
			Object.assign(node, { id: 'c7a1e000-0000-4000-8000-000000000021', webhookId: 'c7a1e000-0000-4000-8000-0000000000cc' });
		if (node.name === 'Run') delete node.parameters.waitMode;
	}
	return wf;
}

/** POSTs `body`; resolves with the status, and the answer's text after it when not 200 (so a failure says why). */
async function post(url: string, body: unknown): Promise<number | string> {
	const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
	const text = await res.text();
	return res.status === 200 ? 200 : `${res.status} ${text.slice(0, 500)}`;
}

/** What the sandbox did with the callbacks of a parked execution that did not resume, for the failure message. */
function parkedDiagnosis(executionIds: string[]): string {
	const runs = sandbox.state().runs.filter((r) => executionIds.some((id) => String(r.webhook).includes(`/${id}/`)));
	const calls = sandbox.log().filter((e) => isDelivery(e) && runs.some((r) => r.id === e.requestId));
	return JSON.stringify({
		runs: runs.map((r) => ({ id: r.id, status: r.status, webhook: r.webhook })),
		callbacks: calls.map((e) => [e.requestId, e.attempt, e.event, e.status, e.error, e.duplicate]),
		webhookLog: cluster?.webhook?.logs().slice(-3000),
	});
}

/** What the sandbox did with the deliveries not yet answered, for the failure message. */
function deliveryDiagnosis(ids: string[]): string {
	const log = sandbox.log();
	const answered = new Set(log.filter((e) => isFinal(e) && e.status >= 200 && e.status < 300).map((e) => e.requestId));
	const open = ids.filter((id) => !answered.has(id));
	const attempts = log.filter((e) => isDelivery(e) && open.includes(String(e.requestId)));
	return JSON.stringify({
		stats: deliveryStats(log, ids),
		inFlight: log.filter(deliveryInFlight).length,
		unanswered: open.length,
		attempts: attempts.slice(-40).map((e) => [e.requestId, e.attempt, e.event, e.status, e.error, e.time]),
		webhookLog: cluster?.webhook?.logs().slice(-3000),
	});
}

/** POSTs until the webhook process knows the path (n8n registers published webhooks after it is ready). */
async function postRegistered(url: string, body: unknown): Promise<number | string> {
	return await waitFor(`${url} registered`, async () => {
		const status = await post(url, body);
		return String(status).startsWith('404 ') ? undefined : status;
	});
}

beforeAll(
	async () => {
		await h.ensureN8n();
		await h.ensureBuilt();
		[services, sandbox] = await Promise.all([q.startServices(), startSandbox(CONFIG)]);
		userFolder = h.createUserFolder();
		const credential = await q.importCredential(userFolder, services, h.sandboxCredential(sandbox));
		let submitter: WorkflowJson;
		[parking, waiting, submitter, receiver] = await q.importWorkflow(userFolder, services, [
			parkingWorkflow({ credential }),
			waitInExecutionWorkflow(credential),
			submitterWorkflow({ credential }),
			receiverWorkflow({ token, credential }),
		]);
		cluster = await q.startCluster(userFolder, {
			services,
			workers: 2,
			concurrency: 5,
			webhook: true,
			env: N8N_ENV,
			readyTimeoutMs: 600_000,
		});
		const rest = cluster.main.rest;
		await rest.setupOwner();
		// Published through the main's REST API, as the editor does (no n8n CLI process to boot per workflow).
		for (const wf of [parking, waiting, submitter, receiver]) {
			const { versionId } = await rest.activateWorkflow(wf.id);
			expect((await rest.waitForPublication(wf.id, { versionId })).status).toBe('published');
		}
	},
	20 * 60 * 1000,
);

afterAll(
	async () => {
		await cluster?.stop();
		await services?.stop();
		await sandbox?.close();
		userFolder?.cleanup();
	},
	3 * 60 * 1000,
);

describe('n8n queue mode as in production: main, 2 workers, a webhook process (PostgreSQL, Redis)', () => {
	it(
		'20 parked executions and 200 fire-and-forget deliveries: every result once, nothing paid twice, all received by the webhook process',
		async () => {
			const c = cluster as QueueCluster;
			const hook = c.webhook!;
			const rest = c.main.rest;
			const deployment = sandbox.stable.deployments.textToImage;
			sandbox.clearLog();
			// The main serves no production webhook: the same call to it starts nothing.
			expect(await post(`${c.main.url}/webhook/runcomfy-park`, { items: [] })).toMatch(/^404 /);

			const [parkStatuses, batch] = await Promise.all([
				Promise.all(
					Array.from({ length: PARKED }, (_, i) =>
						postRegistered(`${hook.url}/webhook/runcomfy-park`, { items: [{ deployment, prompt: `topology parked ${i}` }], maxWait: 600 }),
					),
				),
				submitBatch(hook.url, { deployment, n: DELIVERED, deliverTo: productionUrl(hook.url, token), intermediate: false }),
			]);
			expect(parkStatuses).toEqual(Array(PARKED).fill(200));
			const delivered = batch.items.map((i) => String(i.request_id));
			expect(new Set(delivered).size).toBe(DELIVERED);

			const parked = await executionsOf(rest, parking.id, PARKED, { limitMs: 300_000 }).catch(async (error: Error) => {
				const stuck = (await rest.listExecutions({ workflowId: parking.id })).filter((e) => e.status === 'waiting');
				throw new Error(`${error.message}\n${parkedDiagnosis(stuck.map((e) => String(e.id)))}`);
			});
			await waitFor('every result delivered', async () => deliveriesSettled(sandbox.log(), delivered) || undefined, {
				limitMs: 300_000,
			}).catch((error: Error) => {
				throw new Error(`${error.message}\n${deliveryDiagnosis(delivered)}`);
			});
			const received = await receivedRuns(rest, await executionsOf(rest, receiver.id, DELIVERED, { limitMs: 300_000 }));
			const log = sandbox.log();

			// Each request submitted once: 20 parked, 200 delivered.
			const submits = log.filter(isSubmit);
			expect(submits).toHaveLength(PARKED + DELIVERED);
			const created = submits.map((e) => String(e.createdId));
			expect(new Set(created).size).toBe(PARKED + DELIVERED);

			// Parked: each execution ended with its one result; together, the 20 other requests.
			const parkedIds: string[] = [];
			for (const summary of parked) {
				const execution = await rest.getExecution(String(summary.id));
				expect(execution.status).toBe('success');
				const out = h.nodeItems(execution, 'Run') as ExecutionItem[];
				expect(out.map((i) => i.json.status)).toEqual(['succeeded']);
				expect(String(out[0].binary?.data?.id)).toMatch(/^database:/);
				parkedIds.push(String(out[0].json.request_id));
			}
			expect([...parkedIds].sort()).toEqual(created.filter((id) => !delivered.includes(id)).sort());

			// The requests that started the receiver more than once, with what the sandbox sent for them, if any.
			const firedIds = received.flatMap((r) => r.fired.map((j) => String(j.request_id)));
			const twice = [...new Set(firedIds.filter((id, i) => firedIds.indexOf(id) !== i))];
			// Executions without exactly one delivered item: n8n starts a failed one when webhook() throws.
			const odd = received.filter((r) => r.status !== 'success' || r.fired.length !== 1);
			if (twice.length || odd.length || received.length !== DELIVERED)
				throw new Error(
					`${received.length} executions of the receiver for ${DELIVERED} requests; not one item or not a success: ${JSON.stringify(
						odd.map((r) => ({ id: r.id, status: r.status, fired: r.fired, error: r.raw?.data?.resultData?.error?.message })),
					)}; started more than once: ${JSON.stringify(
						twice.map((id) => ({
							id,
							executions: received
								.filter((r) => r.fired.some((j) => String(j.request_id) === id))
								.map((r) => [r.id, r.startedAt, r.stoppedAt]),
							attempts: log
								.filter((e) => isDelivery(e) && e.requestId === id)
								.map((e) => [e.attempt, e.event, e.status, e.error, e.duplicate, e.outOfOrder, e.time]),
						})),
					)}`,
				);
			// Delivered: one execution of the receiver per request, none twice, though some results were sent twice.
			expect(received.map((r) => [r.status, r.fired.length])).toEqual(Array(DELIVERED).fill(['success', 1]));
			expect(received.map((r) => String(r.fired[0].request_id)).sort()).toEqual([...delivered].sort());
			const deliveries = log.filter(isDelivery);
			expect(deliveries.some((e) => e.duplicate && e.status === 200)).toBe(true);

			// Every callback and delivery went to the webhook process (WEBHOOK_URL), which answered each delivery 200.
			expect(deliveries.length).toBeGreaterThanOrEqual(PARKED + DELIVERED);
			expect(deliveries.filter((e) => !String(e.url).startsWith(`${hook.url}/`))).toEqual([]);
			for (const id of delivered) expect(deliveries.some((e) => e.requestId === id && e.status === 200)).toBe(true);

			// The workers ran every execution, neither the main nor the webhook process any. A parked one ran twice:
			// parked, then resumed by a callback answered 200. Under load a run can end before its node parks: the node
			// then finishes it in the first run, and n8n answers its callbacks 409 (the execution is running or finished).
			const byWorker = c.executionsByWorker();
			for (const ids of Object.values(byWorker)) expect(ids.length).toBeGreaterThan(0);
			const ran = Object.values(byWorker).flat();
			const parkedRuns = parked.map((summary, i) => {
				const callbacks = deliveries.filter((e) => e.requestId === parkedIds[i]);
				return {
					runs: ran.filter((id) => id === String(summary.id)).length,
					answers: callbacks.map((e) => e.status || e.error),
					resumedBy200: callbacks.some((e) => e.status === 200),
				};
			});
			for (const p of parkedRuns) {
				if (p.runs === 2) expect(p).toMatchObject({ resumedBy200: true });
				else expect(p).toMatchObject({ runs: 1, answers: p.answers.map(() => 409) });
			}
			for (const r of received) expect(ran.filter((id) => id === r.id)).toHaveLength(1);
			expect(c.main.logs()).not.toMatch(/Worker started execution/);
			expect(hook.logs()).not.toMatch(/Worker started execution/);
		},
		10 * 60 * 1000,
	);

	it(
		"a worker killed while Inference → Run waits: the other worker does not run it again, the execution fails, the paid ids are in the dead worker's log",
		async () => {
			const c = cluster as QueueCluster;
			const rest = c.main.rest;
			// The runs outlast the test: still going on the service when the worker dies.
			sandbox.reset({ ...CONFIG, runDurationMs: 60 * 60 * 1000 });
			const deployment = sandbox.stable.deployments.textToImage;
			const before = new Set((await rest.listExecutions({ workflowId: waiting.id, limit: 100 })).map((e) => String(e.id)));
			const items = Array.from({ length: KILLED_RUNS }, (_, i) => ({ deployment, prompt: `topology killed ${i}` }));
			expect(await postRegistered(`${c.webhook!.url}/webhook/runcomfy-topology-wait`, { items, maxWait: 3600 })).toBe(200);
			const executionId = await waitFor('the execution the webhook started', async () =>
				(await rest.listExecutions({ workflowId: waiting.id, limit: 100 })).map((e) => String(e.id)).find((id) => !before.has(id)),
			);
			const victim = await waitFor('the worker that runs it', async () => c.workers.find((w) => w.executions().includes(executionId)));
			const survivor = c.workers.find((w) => w !== victim)!;
			const ranBefore = survivor.executions().length;

			// Killed once every run is paid and logged, while the node waits for them.
			const paid = await waitFor(
				'a log line for every paid run',
				async () => {
					// Only this execution's runs: the worker's log also has the parked ones of the first test.
					const created = new Set(
						sandbox
							.log()
							.filter(isSubmit)
							.map((e) => String(e.createdId)),
					);
					const lines = [...victim.logs().matchAll(PAID_LINE)].filter((m) => created.has(m[2]));
					return lines.length === KILLED_RUNS ? lines.map((m) => ({ item: Number(m[1]), id: m[2] })) : undefined;
				},
				{ limitMs: 120_000 },
			).catch((error: Error) => {
				const submitted = sandbox.log().filter(isSubmit).length;
				const paidLines = (w: (typeof c.workers)[number]) =>
					w
						.logs()
						.split('\n')
						.filter((l) => l.includes('RunComfy paid:')).length;
				throw new Error(
					`${error.message}; execution ${executionId} on ${victim.name}; ${submitted} submitted; paid lines: ${c.workers.map((w) => `${w.name} ${paidLines(w)}`).join(', ')}; the worker's log ends:\n${victim.logs().slice(-3000)}`,
				);
			});
			h.killGroup(victim.process as Parameters<typeof h.killGroup>[0], 'SIGKILL');
			expect(await victim.exited).toMatchObject({ signal: 'SIGKILL' });

			// n8n's stall check (on the live worker) fails the job: the execution ends as an error without node data.
			const ended = await waitForStatus(rest, waiting.id, executionId, ['success', 'error', 'crashed', 'canceled'], {
				limitMs: 5 * 60_000,
			});
			expect(ended.status).toBe('error');
			const execution = await rest.getExecution(executionId);
			expect(String(execution.data?.resultData?.error?.message)).toMatch(/failed to be processed too many times and will no longer retry/);
			expect(Object.keys(execution.data?.resultData?.runData ?? {})).toEqual([]);
			// Not run again: the live worker started nothing since, and each run was submitted once.
			expect(survivor.executions().slice(ranBefore)).toEqual([]);
			const submits = sandbox.log().filter(isSubmit);
			expect(submits).toHaveLength(KILLED_RUNS);
			// The dead worker's log names every paid run with its item: what the user recovers the runs with.
			expect(paid.map((p) => p.item).sort((a, b) => a - b)).toEqual(Array.from({ length: KILLED_RUNS }, (_, i) => i));
			expect(paid.map((p) => p.id).sort()).toEqual(submits.map((e) => String(e.createdId)).sort());
			// Those runs are still going on the service, where the ids reach them (Get Result, Cancel).
			const runs = sandbox.state().runs.filter((r) => paid.some((p) => p.id === r.id));
			expect(runs.map((r) => r.status)).toEqual(Array(KILLED_RUNS).fill('in_progress'));
		},
		10 * 60 * 1000,
	);
});
