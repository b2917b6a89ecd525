/**
 * The RunComfy triggers inside a REAL n8n (`n8n start`, the pinned version, the package installed as a community
 * package), workflows PUBLISHED (activated) through n8n's REST API as the editor's "Publish" button does.
 *
 * Polling (RunComfy Trigger): examples/trigger-training-finished.json with the sandbox credential and real job
 * ids; n8n itself polls the in-process sandbox. n8n 2.41 runs a polling trigger's first poll when the workflow is
 * activated (ActiveWorkflowTriggers.activatePollTrigger → executePollTrigger(true), before the cron "every
 * minute" is registered), so no test waits for the minute schedule: each (re)activation is one poll.
 *
 * Webhook (RunComfy Webhook Trigger): deliveries shaped as RunComfy sends them, for requests made on the sandbox,
 * are POSTed to the production URL (loopback), in parallel, repeated and late, and again after n8n restarted; the
 * trigger confirms each final event with the sandbox's API (the workflow's credential) and ignores forged ones.
 *
 * Assertions are on the executions n8n stores (GET /rest/executions) and on what reached the sandbox.
 */
import { startSandbox } from '../../sandbox';
import type { Sandbox } from '../../sandbox';
import * as h from '../../scripts/e2e/n8n';
import type { N8nInstance, UserFolder, WorkflowJson } from '../../scripts/e2e/n8n';
import { JOBS, client, jobReaches, jobState, readyDataset, runReaches, submitInference, submitJob } from '../helpers/sandboxCalls';
import { triggerKit } from './triggerKit';

const EXAMPLE = 'examples/trigger-training-finished.json';
const LORA_MODEL = 'blackforestlabs/flux-1/dev/lora/text-to-image';
const TEST_TIMEOUT = 3 * 60 * 1000;
/**
 * n8n on SQLite (a pool of 3 connections) pings its database with SELECT 1 every 2 s and, when the ping waits
 * more than DB_PING_TIMEOUT_MS (5 s by default) behind other queries, answers every request with 503
 * "Database is not ready!" until it recovers. On this 2-core machine 200 parallel webhook deliveries queue the
 * ping that long; a production n8n would rather use Postgres. The webhook test needs the ping to wait.
 */
const N8N_ENV = { DB_PING_TIMEOUT_MS: '60000' };

let sandbox: Sandbox;
let userFolder: UserFolder;
let credential: { id: string; name: string };
let n8n: N8nInstance;

const { executionsOf, items, publish, unpublish, renameNode, postDelivery } = triggerKit(() => n8n);

/** Saves a workflow as the editor does (the examples' credential reference pointed at the sandbox credential). */
const save = async (workflow: object): Promise<WorkflowJson> =>
	(await n8n.rest.createWorkflow(h.prepareWorkflow(workflow, { credential }))) as unknown as WorkflowJson;

const loraSubmits = () => sandbox.log().filter((e) => e.api === 'model' && e.method === 'POST' && e.path === `/v1/models/${LORA_MODEL}`);
const statusPolls = (jobId: string) =>
	sandbox.log().filter((e) => e.api === 'trainer' && e.method === 'GET' && e.path === `${JOBS}/${jobId}/status`);

beforeAll(
	async () => {
		await h.ensureN8n();
		await h.ensureBuilt();
		userFolder = h.createUserFolder();
		sandbox = await startSandbox({ runDurationMs: 50, queueMs: 0, trainingStepMs: 1, trainingQueueMs: 0, datasetReadyMs: 10 });
		n8n = await h.startN8n(userFolder, { env: N8N_ENV });
		await n8n.rest.setupOwner();
		credential = await n8n.rest.createCredential(h.sandboxCredential(sandbox));
	},
	15 * 60 * 1000,
);

afterAll(async () => {
	await n8n?.stop();
	await sandbox?.close();
	userFolder?.cleanup();
});

describe('RunComfy Trigger in a real n8n: an activated workflow polling the sandbox', () => {
	it(
		'training jobs: publishing records what already ended without firing; a later finish fires once (the LoRA tried); a renamed node fires nothing again; the next transition fires alone',
		async () => {
			// The service's side: a READY dataset "dogs", a job that finished before the workflow is published (A),
			// one waiting in the queue for an hour (B), and one whose server was reclaimed half-way (C: "preempt" in
			// its name makes the sandbox stop its first attempt early; it finishes once resumed).
			await readyDataset(sandbox, 'dogs');
			const jobA = await submitJob(sandbox, 'sks_dog_v1', 'dogs', 20);
			await jobReaches(sandbox, jobA, (j) => j.status === 'STOPPED');
			const jobC = await submitJob(sandbox, 'preempt_sks_dog', 'dogs', 20);
			await jobReaches(sandbox, jobC, (j) => j.status === 'STOPPED');
			expect(jobState(sandbox, jobC).current_step).toBe(10);
			sandbox.configure({ trainingQueueMs: 60 * 60 * 1000 });
			const jobB = await submitJob(sandbox, 'sks_cat', 'dogs', 20);
			sandbox.configure({ trainingQueueMs: 0 });

			// The example, as is, with the placeholder replaced by the three job ids.
			const example = h.prepareWorkflow(EXAMPLE, { credential });
			const triggerNode = example.nodes.find((n) => n.name === 'RunComfy Trigger');
			expect(triggerNode?.type).toBe(h.NODE_TYPES.trigger);
			expect(triggerNode?.parameters.jobIds).toBe('YOUR_TRAINING_JOB_ID');
			expect(triggerNode?.parameters.fireForExisting).toBeUndefined();
			if (triggerNode) triggerNode.parameters.jobIds = `${jobA}, ${jobB}, ${jobC}`;
			const wf = await save(example);
			sandbox.clearLog();

			// Publish: n8n polls at once. A finished and C stopped early before: recorded, not fired (checked at the
			// end: the executions of this workflow are exactly the two transitions below).
			await publish(wf.id);
			for (const job of [jobA, jobB, jobC]) expect(statusPolls(job).length).toBeGreaterThanOrEqual(1);

			// C is resumed and runs to the end; publishing again polls once more and fires C alone.
			expect((await client(sandbox).post(`${sandbox.urls.trainer}${JOBS}/${jobC}/resume`, {})).status).toBe(200);
			await jobReaches(sandbox, jobC, (j) => j.status === 'STOPPED' && j.current_step === 20);
			await unpublish(wf.id);
			await publish(wf.id);
			const [first] = await executionsOf(wf.id, 1);
			expect(first.mode).toBe('trigger');
			expect(first.status).toBe('success');
			const run1 = await n8n.rest.getExecution(first.id);
			expect(run1.data.resultData.error).toBeUndefined();

			const checkpoint = `${sandbox.urls.files}/files/train/${jobC}/preempt_sks_dog.safetensors`;
			const fired = items(run1, 'RunComfy Trigger');
			expect(fired).toHaveLength(1);
			expect(fired[0].json).toMatchObject({
				event: 'training.finished',
				job_id: jobC,
				name: 'preempt_sks_dog',
				status: 'succeeded',
				service_status: 'STOPPED',
				latest_checkpoint_url: checkpoint,
				lora: { path: checkpoint },
			});
			expect(fired[0].json.checkpoint_urls).toEqual(expect.arrayContaining([checkpoint]));
			expect((fired[0].json.progress as { current_step: number }).current_step).toBe(20);
			// The next nodes ran on it: the Filter kept it, "Try the LoRA" generated an image with the checkpoint.
			expect(items(run1, 'Only Finished Jobs').map((i) => i.json.job_id)).toEqual([jobC]);
			const tried = items(run1, 'Try the LoRA');
			expect(tried).toHaveLength(1);
			expect(tried[0].json).toMatchObject({ model_id: LORA_MODEL, status: 'succeeded' });
			// The LoRA model's default output_format is jpeg (the sandbox follows a model's defaults).
			expect(tried[0].binary?.data?.mimeType).toBe('image/jpeg');
			const submits = loraSubmits();
			expect(submits).toHaveLength(1);
			expect(submits[0].body).toEqual({
				prompt: 'a photo of sks dog on the beach, trained LoRA preempt_sks_dog',
				lora: { path: checkpoint },
			});

			// Once per transition: publishing again asks the service again, finds the same states, fires nothing.
			let polled = statusPolls(jobC).length;
			await unpublish(wf.id);
			await publish(wf.id);
			expect(statusPolls(jobC).length).toBeGreaterThan(polled);

			// Renamed in the editor (saved and published again): the state follows the node, nothing fires again.
			await renameNode(wf.id, 'RunComfy Trigger', 'When Training Ends');
			polled = statusPolls(jobC).length;
			await publish(wf.id);
			expect(statusPolls(jobC).length).toBeGreaterThan(polled);

			// A new transition: B is cancelled. The next activation poll fires B only; the Filter drops it.
			const cancel = await client(sandbox).post(`${sandbox.urls.trainer}${JOBS}/${jobB}/cancel`, {});
			expect(cancel.status).toBe(200);
			polled = statusPolls(jobB).length;
			await unpublish(wf.id);
			await publish(wf.id);
			expect(statusPolls(jobB).length).toBeGreaterThan(polled);

			// Exactly two executions: the first publication, the re-publication and the rename started none (had
			// any of them fired A or C again, that execution would come before B's, which follows its cancellation).
			const all = await executionsOf(wf.id, 2);
			expect(all).toHaveLength(2);
			expect(all[0].id).toBe(first.id);
			const run2 = await n8n.rest.getExecution(all[1].id);
			expect(run2.status).toBe('success');
			const fired2 = items(run2, 'When Training Ends');
			expect(fired2.map((i) => [i.json.event, i.json.job_id, i.json.status])).toEqual([['training.cancelled', jobB, 'cancelled']]);
			expect(items(run2, 'Only Finished Jobs')).toEqual([]);
			expect(h.nodeItems(run2, 'Try the LoRA')).toBeUndefined();
			expect(loraSubmits()).toHaveLength(1);

			// Still active, and nothing n8n logged contains the token.
			expect((await n8n.rest.getWorkflow(wf.id)).active).toBe(true);
			expect(n8n.logs().includes(sandbox.token)).toBe(false);
			await unpublish(wf.id);
		},
		TEST_TIMEOUT,
	);

	it(
		'balance below threshold: fires once when crossing below, not again while below, again after going back above',
		async () => {
			const wf = await save({
				name: 'e2e: balance below $1',
				nodes: [
					{
						id: 'b0f3b1e2-0000-4e5f-8a9b-7c1d2e3f4a01',
						name: 'RunComfy Trigger',
						type: h.NODE_TYPES.trigger,
						typeVersion: 1,
						position: [0, 0],
						parameters: { pollTimes: { item: [{ mode: 'everyMinute' }] }, event: 'balanceBelow', thresholdUsd: 1 },
						credentials: { runComfyApi: { id: credential.id, name: credential.name } },
					},
					{
						id: 'b0f3b1e2-0000-4e5f-8a9b-7c1d2e3f4a02',
						name: 'Top Up Alert',
						type: 'n8n-nodes-base.noOp',
						typeVersion: 1,
						position: [220, 0],
						parameters: {},
					},
				],
				connections: { 'RunComfy Trigger': { main: [[{ node: 'Top Up Alert', type: 'main', index: 0 }]] } },
				settings: { executionOrder: 'v1' },
			});
			const balancePolls = () => sandbox.log().filter((e) => e.api === 'serverless' && e.method === 'GET' && e.path === '/prod/v2/balance');
			/** Sets the wallet, then unpublishes and publishes again: one poll (the activation poll) sees it. */
			const pollWith = async (microdollars: number) => {
				sandbox.configure({ walletMicrodollars: microdollars });
				const before = balancePolls().length;
				await unpublish(wf.id);
				await publish(wf.id);
				expect(balancePolls().length).toBeGreaterThan(before);
			};

			// Exactly at the threshold ($1.00 = 1,000,000 µ$) is not below it.
			sandbox.configure({ walletMicrodollars: 1_000_000 });
			await publish(wf.id);
			await pollWith(999_999); // crosses below: fires
			await pollWith(999_999); // still below: nothing
			await pollWith(400_000); // lower still: nothing
			await pollWith(2_000_000); // back above: nothing, re-armed
			await pollWith(500_000); // below again: fires

			const runs = await executionsOf(wf.id, 2);
			expect(runs).toHaveLength(2);
			const fired: Array<Record<string, unknown>> = [];
			for (const e of runs) {
				expect(e.mode).toBe('trigger');
				expect(e.status).toBe('success');
				const run = await n8n.rest.getExecution(e.id);
				const out = items(run, 'RunComfy Trigger');
				expect(out).toHaveLength(1);
				expect(items(run, 'Top Up Alert').map((i) => i.json)).toEqual(out.map((i) => i.json));
				fired.push(out[0].json);
			}
			expect(fired).toEqual([
				expect.objectContaining({
					event: 'balance.below_threshold',
					balance_microdollars: 999_999,
					threshold_microdollars: 1_000_000,
					threshold_usd: 1,
					below_threshold: true,
				}),
				expect.objectContaining({ event: 'balance.below_threshold', balance_microdollars: 500_000, below_threshold: true }),
			]);
			await unpublish(wf.id);
		},
		TEST_TIMEOUT,
	);
});

describe('RunComfy Webhook Trigger in a real n8n: deliveries POSTed to the published production URL', () => {
	const WEBHOOK_TRIGGER = `${h.PACKAGE_NAME}.runComfyWebhookTrigger`;
	const REQUESTS = 50;

	/** The trigger item of every execution of the workflow, oldest first. */
	async function firedItems(workflowId: string, count: number): Promise<Array<Record<string, unknown>>> {
		const runs = await executionsOf(workflowId, count);
		const out: Array<Record<string, unknown>> = [];
		for (const e of runs) {
			expect([e.mode, e.status]).toEqual(['webhook', 'success']);
			const run = await n8n.rest.getExecution(e.id);
			const fired = items(run, 'RunComfy Webhook Trigger');
			expect(fired).toHaveLength(1);
			expect(items(run, 'Keep Result').map((i) => i.json)).toEqual([fired[0].json]);
			out.push(fired[0].json);
		}
		return out;
	}

	it(
		'each request fires once per stage under 200 parallel duplicates, late deliveries and a restart of n8n; forged final events and a wrong token start nothing',
		async () => {
			const token = `e2e_${h.newId()}`;
			const webhookId = '9d3c1f2e-7a4b-4c5d-8e6f-0a1b2c3d4e5f';
			const wf = await save({
				name: 'e2e: RunComfy webhook deliveries',
				nodes: [
					{
						id: 'c1d2e3f4-0000-4a5b-8c6d-7e8f9a0b1c01',
						name: 'RunComfy Webhook Trigger',
						type: WEBHOOK_TRIGGER,
						typeVersion: 2,
						position: [0, 0],
						webhookId,
						parameters: { event: 'deploymentRequest', pathToken: token, includeIntermediate: true },
						credentials: { runComfyApi: { id: credential.id, name: credential.name } },
					},
					{
						id: 'c1d2e3f4-0000-4a5b-8c6d-7e8f9a0b1c02',
						name: 'Keep Result',
						type: 'n8n-nodes-base.noOp',
						typeVersion: 1,
						position: [220, 0],
						parameters: {},
					},
				],
				connections: { 'RunComfy Webhook Trigger': { main: [[{ node: 'Keep Result', type: 'main', index: 0 }]] } },
				settings: { executionOrder: 'v1' },
			});
			await publish(wf.id);
			const productionUrl = () => `${n8n.url}/webhook/${webhookId}/${token}`;
			const deployment = sandbox.stable.deployments.textToImage;
			// Real requests on the sandbox, finished: the trigger asks its API about each final event.
			sandbox.configure({ walletMicrodollars: 5_000_000 });
			const submitted: string[] = [];
			for (let i = 0; i <= REQUESTS; i++) submitted.push(await submitInference(sandbox, deployment));
			for (const id of submitted) await runReaches(sandbox, id, 'completed');
			const newRequest = String(submitted.pop());
			const ids = [...submitted].sort();
			const resultOf = async (id: string) =>
				(await client(sandbox).get(`${sandbox.urls.serverless}/prod/v2/deployments/${deployment}/requests/${id}/result`)).data as Record<
					string,
					unknown
				>;
			const delivery = (requestId: string, status: string): Record<string, unknown> => ({
				request_id: requestId,
				deployment_id: deployment,
				status,
				created_at: '2026-11-25T10:00:00Z',
				...(status === 'succeeded'
					? {
							finished_at: '2026-11-25T10:00:09Z',
							outputs: {
								'9': {
									images: [
										{ filename: `${requestId}.png`, subfolder: '', type: 'output', url: `${sandbox.urls.files}/files/${requestId}.png` },
									],
								},
							},
						}
					: {}),
			});
			const all = async (bodies: Array<Record<string, unknown>>) =>
				await Promise.all(bodies.map(async (b) => await postDelivery(productionUrl(), b)));

			// Not the token: n8n itself refuses (no such webhook), nothing starts.
			const wrong = await postDelivery(`${n8n.url}/webhook/${webhookId}/not-the-token-0123456789`, delivery(ids[0], 'succeeded'));
			expect(wrong.status).toBe(404);

			// Forged final events (anyone holding the URL): a "failed" for a request that succeeded, a made-up request id,
			// "succeeded" for a request of another deployment. The API contradicts each: answered, nothing starts.
			const forged = await all([
				{ ...delivery(ids[0], 'failed'), error: 'forged' },
				delivery('e2e-made-up-request', 'succeeded'),
				{ ...delivery(ids[1], 'succeeded'), deployment_id: sandbox.stable.deployments.imageToImage },
			]);
			expect(forged.map((a) => [a.status, a.body.started])).toEqual([
				[200, false],
				[200, false],
				[200, false],
			]);

			// Queued events: one execution each.
			const queued = await all(ids.map((id) => delivery(id, 'in_queue')));
			expect(queued.map((a) => a.status)).toEqual(ids.map(() => 200));
			expect(queued.map((a) => a.body.started)).toEqual(ids.map(() => true));

			// 200 deliveries at once: every request's "succeeded" four times. One execution per request.
			const burst = await all(ids.flatMap((id) => [1, 2, 3, 4].map(() => delivery(id, 'succeeded'))));
			expect(burst.filter((a) => a.status !== 200)).toEqual([]);
			const startedIds = burst.filter((a) => a.body.started === true).map((a) => a.body.request_id);
			expect([...startedIds].sort()).toEqual(ids);
			expect(burst.filter((a) => a.body.started === false).map((a) => a.body.reason)).toEqual(
				ids.flatMap(() => ['already delivered', 'already delivered', 'already delivered']),
			);

			// Late and repeated deliveries after the end: all acknowledged, none starts anything.
			const late = await all(ids.flatMap((id) => [delivery(id, 'in_progress'), delivery(id, 'in_queue'), delivery(id, 'succeeded')]));
			expect(late.filter((a) => a.status !== 200 || a.body.started !== false)).toEqual([]);

			const fired = await firedItems(wf.id, 2 * REQUESTS);
			expect(fired).toHaveLength(2 * REQUESTS);
			const stages = new Map<string, string[]>();
			for (const json of fired) stages.set(String(json.request_id), [...(stages.get(String(json.request_id)) ?? []), String(json.event)]);
			expect([...stages.keys()].sort()).toEqual(ids);
			for (const id of ids) expect(stages.get(id)).toEqual(['request.queued', 'request.succeeded']);
			// The item is the API's result, not the delivery's body (whose outputs named another file).
			const done = fired.find((json) => json.request_id === ids[7] && json.event === 'request.succeeded');
			const truth = await resultOf(ids[7]);
			expect(done).toMatchObject({
				source: 'webhook',
				request_type: 'deployment',
				deployment_id: deployment,
				status: 'succeeded',
				outputs: truth.outputs,
			});
			expect(JSON.stringify(done)).not.toContain(`${sandbox.urls.files}/files/${ids[7]}.png`);

			// One more delivery on its own once every other was answered, as RunComfy's retries keep coming: the parallel
			// bursts' saves can land out of order and leave an older copy last; the next delivery heals it (the copy it
			// saves is then the last write), however slow the database was.
			const healing = await postDelivery(productionUrl(), delivery(ids[0], 'succeeded'));
			expect([healing.status, healing.body.started]).toEqual([200, false]);

			// n8n restarts (RunComfy keeps retrying for up to 24 h): the saved copy still knows every request.
			await n8n.stop();
			n8n = await h.startN8n(userFolder, { env: N8N_ENV });
			await n8n.rest.login();
			await n8n.rest.waitForPublication(wf.id);
			const retried = await all(ids.map((id) => delivery(id, 'succeeded')));
			expect(retried.map((a) => [a.status, a.body.started])).toEqual(ids.map(() => [200, false]));
			// A new request still fires.
			expect((await postDelivery(productionUrl(), delivery(newRequest, 'succeeded'))).body).toMatchObject({ started: true });
			const after = await executionsOf(wf.id, 2 * REQUESTS + 1);
			expect(after).toHaveLength(2 * REQUESTS + 1);
			await unpublish(wf.id);
		},
		2 * TEST_TIMEOUT,
	);
});
