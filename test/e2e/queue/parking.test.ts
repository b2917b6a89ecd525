/**
 * Parked Inference → Run in n8n queue mode (Redis + PostgreSQL, one main and one worker, as in
 * test/e2e/queue/queue-mode.test.ts): the worker runs the node, which parks the execution in PostgreSQL; the
 * callbacks reach the main (n8n's waiting-webhook route), whose webhook call of the node finishes the batch
 * (downloads into the database binary store) and puts the resumed execution on the queue for the worker. The
 * main and the worker are both restarted while the execution is parked, and nothing is lost. On the same
 * stack, Model → Run's polled waiting: the worker learns a model's run time across executions.
 */
import { startSandbox } from '../../../sandbox';
import type { RequestLogEntry, Sandbox, SandboxConfig } from '../../../sandbox';
import * as h from '../../../scripts/e2e/n8n';
import type { ExecutionItem, N8nInstance, UserFolder, WorkflowJson } from '../../../scripts/e2e/n8n';
import { parkingWorkflow, requestsByItem, startRun, waitFor, waitForStatus } from '../../../scripts/e2e/parking';
import { modelRunWorkflow, requestsPerRun, runModels } from '../../../scripts/e2e/polling';
import * as q from '../../../scripts/queue/queue';
import type { QueueServices, QueueWorker } from '../../../scripts/queue/queue';
import { holdDeploymentQueue } from '../../helpers/sandboxCalls';

const CONFIG: SandboxConfig = {
	runDurationMs: 4000,
	queueMs: 0,
	webhooks: { baseDelayMs: 250, maxDelayMs: 2000, maxAttempts: 60 },
};

let services: QueueServices | undefined;
let sandbox: Sandbox | undefined;
let userFolder: UserFolder | undefined;
let main: N8nInstance | undefined;
let worker: QueueWorker | undefined;
let workflow: WorkflowJson;
let port: number;
const started: Record<string, string[]> = {};

const isCallback = (e: RequestLogEntry) => e.api === 'webhook';
const isResult = (e: RequestLogEntry) => e.api === 'serverless' && e.method === 'GET' && /\/result$/.test(e.path);

async function startMain(): Promise<void> {
	main = await h.startN8n(userFolder as UserFolder, { port, env: q.queueEnv(services as QueueServices), readyTimeoutMs: 180_000 });
	await main.rest.login().catch(async () => await (main as N8nInstance).rest.setupOwner());
}

/**
 * Workers need n8n's public URL too: the node builds the resume URL where it runs. Each worker has its own event
 * log, like a worker container without a persistent n8n folder: n8n 2.41's crash recovery ("extensive") on a
 * worker that finds its old log marks every execution it parked and that has not ended as crashed (waiting ones
 * included; see docs/queue-mode.md), so the restarted worker here starts with a fresh one.
 */
async function startWorker(name: string): Promise<void> {
	const env = q.queueEnv(services as QueueServices, {
		WEBHOOK_URL: `http://127.0.0.1:${port}/`,
		N8N_EVENTBUS_LOGWRITER_LOGBASENAME: `n8nEventLog-${name}`,
	});
	worker = await q.startWorker(userFolder as UserFolder, env, { concurrency: 2, name });
}

async function stopWorker(): Promise<void> {
	if (!worker) return;
	started[worker.name] = worker.executions();
	await worker.stop();
	worker = undefined;
}

beforeAll(
	async () => {
		await h.ensureN8n();
		await h.ensureBuilt();
		services = await q.startServices();
		sandbox = await startSandbox(CONFIG);
		userFolder = h.createUserFolder();
		const credential = await q.importCredential(userFolder, services, h.sandboxCredential(sandbox));
		workflow = await q.importWorkflow(userFolder, services, parkingWorkflow({ credential }), { publish: true });
		await q.importWorkflow(userFolder, services, modelRunWorkflow({ credential }), { publish: true });
		port = await h.freePort();
		await startMain();
		await startWorker('worker-a');
	},
	20 * 60 * 1000,
);

afterAll(
	async () => {
		await stopWorker();
		await main?.stop();
		await services?.stop();
		await sandbox?.close();
		userFolder?.cleanup();
	},
	3 * 60 * 1000,
);

describe('parked Inference → Run in n8n queue mode (main + worker, PostgreSQL, Redis)', () => {
	it(
		'parks on the worker, survives a restart of main and worker, and resumes on the callbacks with every result',
		async () => {
			const sb = sandbox as Sandbox;
			const rest = () => (main as N8nInstance).rest;
			const deployment = sb.stable.deployments.textToImage;
			const known = new Set<string>();
			// The requests stay queued until both processes are down, however slow the machine (../../helpers/sandboxCalls).
			const hold = await holdDeploymentQueue(sb, deployment, 3);
			sb.clearLog();
			const id = await startRun(rest(), (main as N8nInstance).url, {
				workflowId: workflow.id,
				known,
				body: { items: [0, 1, 2].map((i) => ({ deployment, prompt: `queue parked ${i}` })), maxWait: 600 },
			});
			await waitForStatus(rest(), workflow.id, id, ['waiting'], { limitMs: 120_000 });
			expect((worker as QueueWorker).executions()).toContain(id);

			// Both processes go down while parked; the requests run and end only then, and their callbacks fail.
			await stopWorker();
			await (main as N8nInstance).stop();
			await hold.release();
			const ids = requestsByItem(sb.state().runs).map((r) => r.id);
			await waitFor(
				'a failed callback for every request',
				async () => ids.every((rid) => sb.log().some((e) => isCallback(e) && e.requestId === rid && e.status !== 200)) || undefined,
				{ limitMs: 60_000 },
			);
			await startMain();
			await startWorker('worker-b');

			await waitForStatus(rest(), workflow.id, id, ['success', 'error', 'crashed'], { limitMs: 180_000 });
			const execution = await rest().getExecution(id);
			expect(execution.status).toBe('success');
			const out = h.nodeItems(execution, 'Run') as ExecutionItem[];
			expect(out.map((i) => [i.json.request_id, i.json.status])).toEqual(ids.map((rid) => [rid, 'succeeded']));
			// The files were downloaded by the main's webhook call into the database store every process reads.
			for (const item of out) expect(String(item.binary?.data?.id)).toMatch(/^database:/);
			expect(h.nodeItems(execution, 'After')).toHaveLength(3);
			// The restarted worker ran the resumed execution; the first one parked it; the main ran none.
			expect((worker as QueueWorker).executions()).toContain(id);
			expect(started['worker-a']).toContain(id);
			expect((main as N8nInstance).logs()).not.toMatch(/Worker started execution/);
			expect(sb.log().filter(isResult)).toHaveLength(3);
			expect(
				sb
					.log()
					.filter(isCallback)
					.some((e) => e.status === 200),
			).toBe(true);
		},
		10 * 60 * 1000,
	);

	it(
		'Model → Run on the worker: from the second execution of a model on, each run is seen by its one result request',
		async () => {
			const sb = sandbox as Sandbox;
			sb.reset(CONFIG);
			const batch = (tag: string) => [0, 1, 2].map((i) => ({ model: sb.stable.models.textToImage, prompt: `${tag} ${i}` }));
			const ran = (worker as QueueWorker).executions().length;
			const first = await runModels((main as N8nInstance).url, batch('queue first'));
			// The second execution's runs end sooner than learned: its planned result requests find them ended however
			// late the worker sends them; a worker that had not learned would still ask for their status first.
			sb.configure({ runDurationMs: CONFIG.runDurationMs! / 2 });
			const second = await runModels((main as N8nInstance).url, batch('queue second'));
			expect([...first.items, ...second.items].map((item) => item.status)).toEqual(Array(6).fill('succeeded'));
			// Both executions ran on the one worker, which learned from the first what plans the second.
			expect((worker as QueueWorker).executions().length - ran).toBe(2);
			for (const run of requestsPerRun(sb.log(), first.items)) expect(run.status).toBeGreaterThanOrEqual(1);
			expect(requestsPerRun(sb.log(), second.items)).toEqual([0, 1, 2].map(() => ({ status: 0, result: 1 })));
		},
		5 * 60 * 1000,
	);
});
