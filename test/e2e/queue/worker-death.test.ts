/**
 * A queue-mode worker that dies (SIGKILL) while Model → Run waits for 10 paid runs. Redis, PostgreSQL, a real
 * n8n main and workers as in test/e2e/queue/queue-mode.test.ts.
 *
 * n8n 2.41.1 creates its Bull queue with `maxStalledCount: 0` (scaling.service.js, `setupQueue`), so the job of a
 * dead worker is failed, never handed to another worker: the execution ends as an error and the runs are not
 * submitted again. What the user is left with is the paid ids in the dead worker's log (docs/queue-mode.md, "A
 * worker that dies mid-run"). The test shortens n8n's job lock and stall check (QUEUE_WORKER_* below) so that
 * the stall is seen sooner; the path is the one of the defaults.
 */
import { startSandbox } from '../../../sandbox';
import type { RequestLogEntry, Sandbox } from '../../../sandbox';
import * as h from '../../../scripts/e2e/n8n';
import type { N8nInstance, UserFolder, WorkflowJson } from '../../../scripts/e2e/n8n';
import { waitFor, waitForStatus } from '../../../scripts/e2e/parking';
import { modelRunWorkflow } from '../../../scripts/e2e/polling';
import * as q from '../../../scripts/queue/queue';
import type { QueueServices, QueueWorker } from '../../../scripts/queue/queue';

const RUNS = 10;
/** Seconds n8n's queue needs to notice the dead worker: its job lock, renewed while alive, and the stall check. */
const QUEUE_TIMING = {
	QUEUE_WORKER_LOCK_DURATION: '20000',
	QUEUE_WORKER_LOCK_RENEW_TIME: '4000',
	QUEUE_WORKER_STALLED_INTERVAL: '5000',
};
const PAID_LINE = /RunComfy paid: run submitted \(node "Run", item (\d+), request_id ([0-9a-f-]{36})\)/g;

let services: QueueServices | undefined;
let sandbox: Sandbox | undefined;
let userFolder: UserFolder | undefined;
let main: N8nInstance | undefined;
const workers: QueueWorker[] = [];
let workflow: WorkflowJson;

const isSubmit = (e: RequestLogEntry) => e.api === 'model' && e.method === 'POST' && /^\/v1\/models\//.test(e.path);

/** Each worker with its own event log, as a worker container without a persistent n8n folder. */
async function startWorker(name: string): Promise<QueueWorker> {
	const env = q.queueEnv(services as QueueServices, { ...QUEUE_TIMING, N8N_EVENTBUS_LOGWRITER_LOGBASENAME: `n8nEventLog-${name}` });
	const worker = await q.startWorker(userFolder as UserFolder, env, { concurrency: 2, name });
	workers.push(worker);
	return worker;
}

beforeAll(
	async () => {
		await h.ensureN8n();
		await h.ensureBuilt();
		services = await q.startServices();
		// The runs last far longer than the test: they are still going on the service when the worker dies.
		sandbox = await startSandbox({ runDurationMs: 60 * 60 * 1000, queueMs: 0 });
		userFolder = h.createUserFolder();
		const credential = await q.importCredential(userFolder, services, h.sandboxCredential(sandbox));
		workflow = await q.importWorkflow(userFolder, services, modelRunWorkflow({ credential }), { publish: true });
		main = await h.startN8n(userFolder, { env: q.queueEnv(services, QUEUE_TIMING), readyTimeoutMs: 180_000 });
		await main.rest.setupOwner();
	},
	20 * 60 * 1000,
);

afterAll(
	async () => {
		await Promise.all(workers.map((w) => w.stop()));
		await main?.stop();
		await services?.stop();
		await sandbox?.close();
		userFolder?.cleanup();
	},
	3 * 60 * 1000,
);

describe('a queue-mode worker killed while Model → Run waits for 10 runs', () => {
	it(
		"is not run again by another worker: nothing is paid twice, the execution fails, the ids are in the dead worker's log",
		async () => {
			const sb = sandbox as Sandbox;
			const n8n = main as N8nInstance;
			const first = await startWorker('worker-a');
			sb.clearLog();
			const items = Array.from({ length: RUNS }, (_, i) => ({ model: sb.stable.models.textToImage, prompt: `worker death ${i}` }));
			// The webhook answers when the execution ends; kept open while the worker dies.
			const call = fetch(`${n8n.url}/webhook/runcomfy-model-run`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ items }),
			}).then(async (res) => ({ status: res.status, body: await res.text() }));

			// Killed once every run is paid and logged, while the node waits for them.
			const paid = await waitFor(
				'a log line for every paid run',
				async () => {
					const lines = [...first.logs().matchAll(PAID_LINE)];
					return lines.length === RUNS ? lines.map((m) => ({ item: Number(m[1]), id: m[2] })) : undefined;
				},
				{ limitMs: 120_000 },
			);
			const [executionId] = first.executions();
			h.killGroup(first.process as Parameters<typeof h.killGroup>[0], 'SIGKILL');
			expect(await first.exited).toMatchObject({ signal: 'SIGKILL' });

			// Another worker takes the queue; n8n's stall check runs in it.
			const second = await startWorker('worker-b');
			const ended = await waitForStatus(n8n.rest, workflow.id, executionId, ['success', 'error', 'crashed', 'canceled'], {
				limitMs: 5 * 60_000,
			});
			const answer = await call;

			expect(ended.status).toBe('error');
			const execution = await n8n.rest.getExecution(executionId);
			expect(String(execution.data?.resultData?.error?.message)).toMatch(/failed to be processed too many times and will no longer retry/);
			// n8n's record of the execution has no node data: the ids are not there.
			expect(Object.keys(execution.data?.resultData?.runData ?? {})).toEqual([]);
			expect(answer.status).toBe(500);

			// No worker ran the execution again, and each run was submitted once.
			expect(second.executions()).toEqual([]);
			expect(first.executions()).toEqual([executionId]);
			const submits = sb.log().filter(isSubmit);
			expect(submits).toHaveLength(RUNS);
			// The dead worker's log names every paid run with its item: the record the user acts on.
			expect(paid.map((p) => p.item).sort((a, b) => a - b)).toEqual(Array.from({ length: RUNS }, (_, i) => i));
			expect(paid.map((p) => p.id).sort()).toEqual(submits.map((e) => e.createdId).sort());
			// Those runs are still going on the service, where the ids reach them (Get Result, Cancel).
			const runs = sb.state().runs.filter((r) => paid.some((p) => p.id === r.id));
			expect(runs.map((r) => r.status)).toEqual(Array(RUNS).fill('in_progress'));
		},
		10 * 60 * 1000,
	);
});
