/**
 * Fire-and-forget in a REAL n8n (`n8n start`, sqlite, the package installed as a community package): workflow A
 * runs Inference → Run with Options → Deliver Results To = the production URL of workflow B's RunComfy Webhook
 * Trigger and answers at once with the request ids; the sandbox delivers every result there like the live
 * service, with duplicates, out-of-order and intermediate events; B starts exactly once per request, with its
 * outputs. A delivery to a URL without the secret path token is refused and starts nothing. Workflows: see
 * scripts/e2e/fire-and-forget.js (shared with the benchmark). In-process tests of the details:
 * test/RunComfyWebhookTrigger/ and test/RunComfyDeployment/deliverResultsTo.test.ts.
 */
import receiveExample from '../../examples/fire-and-forget-receive.json';
import { startSandbox } from '../../sandbox';
import type { RequestLogEntry, Sandbox, SandboxConfig } from '../../sandbox';
import * as h from '../../scripts/e2e/n8n';
import type { N8nInstance, UserFolder, WorkflowJson } from '../../scripts/e2e/n8n';
import {
	allExecutions,
	deliveriesSettled,
	deliveryStats,
	executionsOf,
	isFinal,
	productionUrl,
	receivedRuns,
	receiverWorkflow,
	submitBatch,
	submitterWorkflow,
} from '../../scripts/e2e/fire-and-forget';
import { waitFor } from '../../scripts/e2e/parking';

const TEST_TIMEOUT = 4 * 60 * 1000;
const REQUESTS = 12;
/**
 * Runs of about 2 s with spread; every delivered event is sent twice half of the time and held back behind the
 * request's next event 30 % of the time; failed deliveries are retried quickly (a few seconds in all).
 */
const CONFIG: SandboxConfig = {
	runDurationMs: 2000,
	spread: 0.3,
	queueMs: 200,
	webhooks: { baseDelayMs: 200, maxDelayMs: 2000, maxAttempts: 6, duplicateRate: 0.5, outOfOrderRate: 0.3, holdMs: 500 },
};
/** See test/e2e/trigger.test.ts: bursts of parallel deliveries must not make n8n's SQLite ping give up. */
const N8N_ENV = { DB_PING_TIMEOUT_MS: '60000' };

let sandbox: Sandbox;
let userFolder: UserFolder;
let n8n: N8nInstance;
let submitter: WorkflowJson;
let receiver: WorkflowJson;
let pathToken: string;
let deployment: string;
/** examples/fire-and-forget-receive.json as a user sets it up: a Secret Path Token of their own, published. */
let exampleReceiver: WorkflowJson;
const exampleToken = `example_${h.newId()}`;
const exampleWebhookId = () => String(exampleReceiver.nodes[0].webhookId);

const isPoll = (e: RequestLogEntry) => e.api === 'serverless' && e.method === 'GET' && /\/requests\/[^/]+\/(status|result)$/.test(e.path);
const isSubmit = (e: RequestLogEntry) => e.api === 'serverless' && e.method === 'POST' && /\/inference$/.test(e.path);

beforeAll(
	async () => {
		await h.ensureN8n();
		await h.ensureBuilt();
		sandbox = await startSandbox(CONFIG);
		deployment = sandbox.stable.deployments.textToImage;
		userFolder = h.createUserFolder();
		const credential = h.sandboxCredential(sandbox);
		pathToken = `fnf_${h.newId()}`;
		const example = h.prepareWorkflow(receiveExample, { credential });
		example.nodes[0].parameters = { ...example.nodes[0].parameters, pathToken: exampleToken };
		const started = await h.startN8nWithPublished(
			userFolder,
			{
				credentials: [credential],
				workflows: [submitterWorkflow({ credential }), receiverWorkflow({ token: pathToken, credential }), example],
			},
			{ env: N8N_ENV },
		);
		n8n = started.n8n;
		[submitter, receiver, exampleReceiver] = started.workflows;
		expect(started.statuses).toEqual(['published', 'published', 'published']);
	},
	15 * 60 * 1000,
);

afterAll(async () => {
	await n8n?.stop();
	await sandbox?.close();
	userFolder?.cleanup();
});

beforeEach(() => sandbox.reset(CONFIG));

describe('fire and forget in a real n8n: Deliver Results To → RunComfy Webhook Trigger', () => {
	it(
		`A returns the ${REQUESTS} request ids at once; B starts exactly once per request with its outputs, under duplicate, out-of-order and intermediate deliveries`,
		async () => {
			const url = productionUrl(n8n.url, pathToken);
			const batch = await submitBatch(n8n.url, { deployment, n: REQUESTS, deliverTo: url, intermediate: true });

			// A: every item submitted with B's URL, answered with its id and "queued", nothing waited for.
			const runs = sandbox.state().runs;
			expect(runs).toHaveLength(REQUESTS);
			expect(runs.every((r) => r.webhook === url)).toBe(true);
			const ids = batch.items.map((i) => String(i.request_id));
			expect(new Set(ids).size).toBe(REQUESTS);
			expect([...ids].sort()).toEqual(runs.map((r) => r.id).sort());
			for (const item of batch.items) expect(item).toMatchObject({ deployment_id: deployment, status: 'queued' });
			expect(sandbox.log().filter(isSubmit)).toHaveLength(REQUESTS);
			const [runA] = await executionsOf(n8n.rest, submitter.id, 1);
			expect(runA.status).toBe('success');

			// The sandbox delivers everything (retrying what n8n did not take), then B's executions are counted.
			await waitFor('every result delivered', async () => deliveriesSettled(sandbox.log(), ids) || undefined, { limitMs: 120_000 });
			const log = sandbox.log();
			const stats = deliveryStats(log, ids);
			// The chaos really happened: results delivered (and taken) twice, events out of order, queued/running events.
			expect(stats.finalDuplicatesAnswered).toBeGreaterThan(0);
			expect(stats.outOfOrder).toBeGreaterThan(0);
			expect(new Set(log.filter((e) => e.api === 'webhook').map((e) => e.event))).toEqual(
				new Set(['in_queue', 'in_progress', 'succeeded']),
			);
			expect(stats.finalAnswered).toBe(REQUESTS + stats.finalDuplicatesAnswered);
			// B asked the API for each finished request's result once before starting, whatever the duplicates; A polled
			// nothing. Nothing else was asked.
			const asked = log
				.filter(isPoll)
				.map((e) => e.path.replace(/^.*\/deployments\/([^/]+)\/requests\/([^/]+)\/(status|result)$/, '$1 $2 $3'));
			expect([...asked].sort()).toEqual(ids.map((id) => `${deployment} ${id} result`).sort());

			const executions = await executionsOf(n8n.rest, receiver.id, REQUESTS);
			expect(executions.length).toBe(REQUESTS);
			const received = await receivedRuns(n8n.rest, executions);
			for (const run of received) {
				expect([run.mode, run.status, run.fired.length]).toEqual(['webhook', 'success', 1]);
				expect(run.kept).toEqual(run.fired);
			}
			const fired = received.map((r) => r.fired[0]);
			expect(fired.map((json) => String(json.request_id)).sort()).toEqual([...ids].sort());
			for (const json of fired) {
				const requestId = String(json.request_id);
				expect(json).toMatchObject({ event: 'request.succeeded', status: 'succeeded', source: 'webhook', deployment_id: deployment });
				const images = (json.outputs as Record<string, { images?: Array<{ url: string }> }>)['9']?.images ?? [];
				expect(images.length).toBeGreaterThan(0);
				expect(json.output_urls).toEqual(images.map((img, i) => ({ path: `outputs["9"].images[${i}].url`, url: img.url })));
				expect(images.every((img) => img.url.includes(requestId))).toBe(true);
			}

			// The API token is nowhere in n8n's logs or in what A and B stored; the path token is in no output of B (only
			// in its workflow's parameters, which n8n keeps with each execution).
			const stored = JSON.stringify(await n8n.rest.getExecution(runA.id)) + JSON.stringify(received.map((r) => r.raw));
			expect(stored.includes(sandbox.token)).toBe(false);
			expect(JSON.stringify(received.map((r) => r.raw.data.resultData)).includes(pathToken)).toBe(false);
			expect(n8n.logs().includes(sandbox.token)).toBe(false);
			expect(n8n.logs().includes(pathToken)).toBe(false);
		},
		TEST_TIMEOUT,
	);

	it(
		'results delivered to a URL without the secret path token are refused (404, retried, given up) and start nothing',
		async () => {
			const before = (await allExecutions(n8n.rest, receiver.id)).length;
			const wrong = productionUrl(n8n.url, `not_the_token_${h.newId()}`);
			const batch = await submitBatch(n8n.url, { deployment, n: 1, deliverTo: wrong, intermediate: false, prefix: 'wrong' });
			const [requestId] = batch.items.map((i) => String(i.request_id));
			expect(batch.items[0]).toMatchObject({ status: 'queued' });

			await waitFor(
				'the sandbox to give up the delivery',
				async () => sandbox.log().some((e) => isFinal(e) && e.requestId === requestId && e.gaveUp) || undefined,
				{
					limitMs: 60_000,
				},
			);
			const attempts = sandbox.log().filter((e) => e.api === 'webhook' && e.requestId === requestId);
			expect(attempts.map((e) => [e.attempt, e.status])).toEqual(
				Array.from({ length: CONFIG.webhooks?.maxAttempts ?? 0 }, (_, i) => [i + 1, 404]),
			);
			expect(deliveryStats(sandbox.log(), [requestId]).answered).toBe(0);
			// Every refused attempt was answered before the next one: had any started B, it would be listed by now.
			const after = await allExecutions(n8n.rest, receiver.id);
			expect(after).toHaveLength(before);
			expect(n8n.logs().includes(pathToken)).toBe(false);
		},
		TEST_TIMEOUT,
	);

	it(
		'examples/fire-and-forget-receive.json, with a token set and published: one execution per request, its image downloaded, routed to "Use the Images"',
		async () => {
			const url = `${n8n.url}/webhook/${exampleWebhookId()}/${exampleToken}`;
			const batch = await submitBatch(n8n.url, { deployment, n: 3, deliverTo: url, intermediate: false, prefix: 'example' });
			const ids = batch.items.map((i) => String(i.request_id));
			await waitFor('every result delivered', async () => deliveriesSettled(sandbox.log(), ids) || undefined, { limitMs: 120_000 });

			const executions = await executionsOf(n8n.rest, exampleReceiver.id, ids.length);
			expect(executions).toHaveLength(ids.length);
			const used: string[] = [];
			for (const summary of executions) {
				const execution = await n8n.rest.getExecution(String(summary.id));
				expect(execution.status).toBe('success');
				expect(h.nodeItems(execution, 'Handle the Failure')).toBeUndefined();
				const [item] = h.nodeItems(execution, 'Use the Images') ?? [];
				expect(item.json).toMatchObject({ status: 'succeeded', event: 'request.succeeded', deployment_id: deployment });
				expect(item.binary?.data).toMatchObject({ mimeType: 'image/png' });
				used.push(String(item.json.request_id));
			}
			expect(used.sort()).toEqual([...ids].sort());
		},
		TEST_TIMEOUT,
	);
});
