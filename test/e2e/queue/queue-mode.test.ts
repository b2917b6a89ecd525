/**
 * n8n queue mode with the package: Redis and PostgreSQL from Debian's packages on loopback
 * (scripts/queue/services.sh installs them when missing), a real n8n main (`n8n start`, EXECUTIONS_MODE=queue,
 * PostgreSQL as its database) and two `n8n worker` processes, all loading the package as a community package
 * from one user folder. A webhook workflow (Webhook -> RunComfy Model, downloads on -> Code node reading the
 * binary) is called with a batch of concurrent requests; the main enqueues each execution in Redis, the
 * workers run them against the sandbox.
 *
 * Shown: both workers executed jobs (their logs), every result came back (the webhook answers and the
 * executions stored in PostgreSQL), each run was submitted once (the sandbox log), and the downloaded file
 * is readable by the next node on the worker that ran it (n8n's `database` binary mode, the queue default),
 * byte for byte. Setup and limits: docs/queue-mode.md.
 */
import { startSandbox } from '../../../sandbox';
import type { RequestLogEntry, Sandbox } from '../../../sandbox';
import * as h from '../../../scripts/e2e/n8n';
import type { CredentialJson, UserFolder, WorkflowJson } from '../../../scripts/e2e/n8n';
import * as q from '../../../scripts/queue/queue';
import type { QueueCluster, QueueServices } from '../../../scripts/queue/queue';

const MODEL = 'blackforestlabs/flux-2/flash/text-to-image';
const WEBHOOK_PATH = 'runcomfy-queue-batch';
/** More concurrent executions than one worker may hold (concurrency 2), each run lasting 1.5 s. */
const BATCH = 6;
const WORKER_CONCURRENCY = 2;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

interface ReadBack {
	prompt: string;
	request_id: string;
	status: string;
	url: string;
	bytes: number;
	base64: string;
	binaryId: string;
	mimeType: string;
	fileName: string;
}

let services: QueueServices | undefined;
let cluster: QueueCluster | undefined;
let sandbox: Sandbox | undefined;
let userFolder: UserFolder | undefined;
let workflow: WorkflowJson;
let responses: Array<{ status: number; body: string }> = [];
let results: ReadBack[] = [];
let batchLog: RequestLogEntry[] = [];

/** Code node: reads each item's downloaded file back through n8n's binary helpers, where it runs. */
const READ_BINARY_CODE = `
const items = $input.all();
const out = [];
for (let i = 0; i < items.length; i++) {
	const meta = (items[i].binary || {}).data || {};
	const buffer = await this.helpers.getBinaryDataBuffer(i, 'data');
	out.push({ json: {
		prompt: $('Webhook').first().json.body.prompt,
		request_id: items[i].json.request_id,
		status: items[i].json.status,
		url: ((items[i].json.output_urls || [])[0] || {}).url,
		bytes: buffer.length,
		base64: buffer.toString('base64'),
		binaryId: meta.id,
		mimeType: meta.mimeType,
		fileName: meta.fileName,
	} });
}
return out;
`;

function batchWorkflow(credential: CredentialJson): object {
	return {
		name: 'Queue mode: webhook batch',
		settings: { executionOrder: 'v1' },
		nodes: [
			{
				id: 'c0a8e9f0-0000-4000-8000-000000000001',
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: 'c0a8e9f0-0000-4000-8000-0000000000aa',
				parameters: { httpMethod: 'POST', path: WEBHOOK_PATH, responseMode: 'lastNode', options: {} },
			},
			{
				id: 'c0a8e9f0-0000-4000-8000-000000000002',
				name: 'Generate',
				type: h.NODE_TYPES.model,
				typeVersion: 1,
				position: [220, 0],
				parameters: {
					resource: 'model',
					operation: 'run',
					model: { __rl: true, mode: 'id', value: MODEL },
					inputMode: 'json',
					inputsJson: '={{ JSON.stringify({ prompt: $json.body.prompt, output_format: "png" }) }}',
					waitOptions: { pollIntervalSeconds: 0.2, maxPollIntervalSeconds: 0.5, maxWaitSeconds: 120 },
					downloadOutputs: true,
				},
				credentials: { runComfyApi: { id: credential.id, name: credential.name } },
			},
			{
				id: 'c0a8e9f0-0000-4000-8000-000000000003',
				name: 'Read Binary',
				type: 'n8n-nodes-base.code',
				typeVersion: 2,
				position: [440, 0],
				parameters: { jsCode: READ_BINARY_CODE },
			},
		],
		connections: {
			Webhook: { main: [[{ node: 'Generate', type: 'main', index: 0 }]] },
			Generate: { main: [[{ node: 'Read Binary', type: 'main', index: 0 }]] },
		},
	};
}

const isSubmit = (e: RequestLogEntry) => e.api === 'model' && e.method === 'POST' && /^\/v1\/models\//.test(e.path);

beforeAll(
	async () => {
		// Cold machine: apt-get install of redis-server/postgresql and the n8n provisioning take minutes (cached after).
		await h.ensureN8n();
		await h.ensureBuilt();
		services = await q.startServices();
		sandbox = await startSandbox({ runDurationMs: 1500, queueMs: 0 });
		userFolder = h.createUserFolder();
		// The first CLI command migrates the empty PostgreSQL database.
		const credential = await q.importCredential(userFolder, services, h.sandboxCredential(sandbox));
		workflow = await q.importWorkflow(userFolder, services, batchWorkflow(credential), { publish: true });
		cluster = await q.startCluster(userFolder, { services, workers: 2, concurrency: WORKER_CONCURRENCY });

		sandbox.clearLog();
		const url = `${cluster.main.url}/webhook/${WEBHOOK_PATH}`;
		responses = await Promise.all(
			Array.from({ length: BATCH }, async (_, i) => {
				const res = await fetch(url, {
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify({ prompt: `queue prompt ${i}` }),
				});
				return { status: res.status, body: await res.text() };
			}),
		);
		batchLog = sandbox.log();
		results = responses.map((r) => {
			try {
				return JSON.parse(r.body) as ReadBack;
			} catch {
				return { status: `unparseable: HTTP ${r.status} ${r.body.slice(0, 500)}` } as ReadBack;
			}
		});
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

describe('n8n queue mode (Redis + PostgreSQL, main + 2 workers) with the RunComfy Model node', () => {
	it('uses PostgreSQL and Redis started on loopback for this run', () => {
		expect(services?.env).toMatchObject({
			EXECUTIONS_MODE: 'queue',
			DB_TYPE: 'postgresdb',
			QUEUE_BULL_REDIS_HOST: '127.0.0.1',
			QUEUE_BULL_REDIS_PORT: String(services?.redisPort),
			DB_POSTGRESDB_PORT: String(services?.pgPort),
		});
		expect(cluster?.workers).toHaveLength(2);
	});

	it('delivers every result of the batch', () => {
		expect(responses.map((r) => r.status)).toEqual(Array(BATCH).fill(200));
		expect(results.map((r) => r.status)).toEqual(Array(BATCH).fill('succeeded'));
		expect(results.map((r) => r.prompt).sort()).toEqual(Array.from({ length: BATCH }, (_, i) => `queue prompt ${i}`).sort());
		for (const r of results) expect(r.request_id).toMatch(UUID);
		expect(new Set(results.map((r) => r.request_id)).size).toBe(BATCH);
	});

	it('submits each run exactly once, and every result is one the service created', () => {
		const submits = batchLog.filter(isSubmit);
		expect(submits).toHaveLength(BATCH);
		expect(submits.every((e) => e.status === 200 || e.status === 201)).toBe(true);
		const created = submits.map((e) => e.createdId).sort();
		expect(new Set(created).size).toBe(BATCH);
		expect(results.map((r) => r.request_id).sort()).toEqual(created);
	});

	it('runs the jobs on both workers, not on the main', () => {
		const byWorker = cluster!.executionsByWorker();
		const all = Object.values(byWorker).flat();
		expect(Object.keys(byWorker)).toHaveLength(2);
		for (const [name, ids] of Object.entries(byWorker)) {
			expect({ name, count: ids.length > 0 }).toEqual({ name, count: true });
		}
		expect(all).toHaveLength(BATCH);
		expect(new Set(all).size).toBe(BATCH);
		expect(cluster!.main.logs()).not.toMatch(/Worker started execution/);
	});

	it('stores the executions in PostgreSQL as successful webhook executions', async () => {
		const rest = cluster!.main.rest;
		await rest.setupOwner();
		const list = (await rest.get(
			`/rest/executions?filter=${encodeURIComponent(JSON.stringify({ workflowId: workflow.id }))}&limit=50`,
		)) as { results: Array<{ id: string; status: string; mode: string }> };
		const executions = list.results;
		expect(executions).toHaveLength(BATCH);
		expect(executions.map((e) => e.status)).toEqual(Array(BATCH).fill('success'));
		expect(executions.map((e) => e.mode)).toEqual(Array(BATCH).fill('webhook'));
		expect(executions.map((e) => String(e.id)).sort()).toEqual(Object.values(cluster!.executionsByWorker()).flat().sort());
	});

	it('makes the downloaded file readable, byte for byte, in the next node on the worker', async () => {
		for (const r of results) {
			expect(r.binaryId).toMatch(/^database:/);
			expect(r.mimeType).toBe('image/png');
			expect(r.fileName).toMatch(/\.png$/);
			expect(r.url.startsWith(sandbox!.urls.files)).toBe(true);
			const original = Buffer.from(await (await fetch(r.url)).arrayBuffer());
			expect(original.length).toBeGreaterThan(8);
			expect(r.bytes).toBe(original.length);
			expect(Buffer.from(r.base64, 'base64').equals(original)).toBe(true);
		}
		const downloads = batchLog.filter((e) => e.api === 'files' && e.method === 'GET');
		expect(downloads).toHaveLength(BATCH);
		// Downloads never carry the API token.
		expect(downloads.every((e) => !e.authorization)).toBe(true);
	});
});
