/* eslint-disable @n8n/community-nodes/no-restricted-globals */
/**
 * The RunComfy Trigger inside a REAL n8n (`n8n start`, the pinned version, the package installed as a community
 * package): examples/trigger-training-finished.json is imported with the sandbox credential and a real job id,
 * PUBLISHED (activated) through n8n's REST API as the editor's "Publish" button does, and n8n itself polls the
 * in-process sandbox. Assertions are on the executions n8n stores (GET /rest/executions) and on what reached the
 * sandbox.
 *
 * n8n 2.41 runs a polling trigger's first poll when the workflow is activated (ActiveWorkflowTriggers
 * .activatePollTrigger → executePollTrigger(true), before the cron "every minute" is registered), so no test
 * waits for the minute schedule: each (re)activation is one poll.
 */
import { startSandbox } from '../../sandbox';
import type { Sandbox } from '../../sandbox';
import * as h from '../../scripts/e2e/n8n';
import type { CredentialJson, ExecutionItem, ExecutionSummary, N8nInstance, RunJson, UserFolder } from '../../scripts/e2e/n8n';
import { JOBS, client, jobReaches, jobState, readyDataset, submitJob } from '../RunComfyTrigger/setup';

const EXAMPLE = 'examples/trigger-training-finished.json';
const LORA_MODEL = 'blackforestlabs/flux-1/dev/lora/text-to-image';
const TEST_TIMEOUT = 3 * 60 * 1000;

let sandbox: Sandbox;
let userFolder: UserFolder;
let credential: CredentialJson;
let n8n: N8nInstance;

/** Polls n8n's REST API (250 ms apart, bounded) until `done` holds; fails with the last value. */
async function waitFor<T>(what: string, fn: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 60000): Promise<T> {
	const deadline = Date.now() + timeoutMs;
	let last: T | undefined;
	for (;;) {
		last = await fn();
		if (done(last)) return last;
		if (Date.now() > deadline) throw new Error(`${what}: not reached in ${timeoutMs} ms; last: ${JSON.stringify(last)}\n${n8n.logs().slice(-3000)}`);
		await new Promise((r) => setTimeout(r, 250));
	}
}

const isDone = (e: ExecutionSummary) => !['new', 'running', 'waiting', 'unknown'].includes(e.status);

/** The workflow's executions, oldest first, once `count` of them exist and all have ended. */
async function executionsOf(workflowId: string, count: number): Promise<ExecutionSummary[]> {
	const list = await waitFor(
		`${count} finished execution(s) of workflow ${workflowId}`,
		async () => await n8n.rest.listExecutions({ workflowId }),
		(l) => l.length >= count && l.every(isDone),
	);
	return [...list].sort((a, b) => Number(a.id) - Number(b.id));
}

function items(run: RunJson, node: string, output = 0): ExecutionItem[] {
	const list = h.nodeItems(run, node, { output });
	if (!list) throw new Error(`node "${node}" has no output ${output} in the execution: ${JSON.stringify(Object.keys(run.data.resultData.runData))}`);
	return list;
}

/**
 * Publishes the workflow as the editor does and waits until n8n 2.41's publication (asynchronous, through its
 * outbox) has settled with the trigger activated, which includes the activation poll.
 */
async function publish(workflowId: string): Promise<void> {
	const activated = await n8n.rest.activateWorkflow(workflowId);
	expect(activated.active).toBe(true);
	const st = await n8n.rest.waitForPublication(workflowId, { versionId: activated.versionId });
	expect(st.status).toBe('published');
	expect(st.triggers.map((t) => [t.status, t.errorMessage ?? null])).toEqual([['activated', null]]);
}

async function unpublish(workflowId: string): Promise<void> {
	await n8n.rest.deactivateWorkflow(workflowId);
	const st = await n8n.rest.waitForPublication(workflowId);
	expect(st.status).toBe('not_published');
}

const loraSubmits = () => sandbox.log().filter((e) => e.api === 'model' && e.method === 'POST' && e.path === `/v1/models/${LORA_MODEL}`);
const statusPolls = (jobId: string) => sandbox.log().filter((e) => e.api === 'trainer' && e.method === 'GET' && e.path === `${JOBS}/${jobId}/status`);

beforeAll(async () => {
	await h.ensureN8n();
	await h.ensureBuilt();
	userFolder = h.createUserFolder();
	sandbox = await startSandbox({ runDurationMs: 50, queueMs: 0, trainingStepMs: 1, trainingQueueMs: 0, datasetReadyMs: 10 });
	credential = await h.importCredential(userFolder, h.sandboxCredential(sandbox));
	n8n = await h.startN8n(userFolder);
	await n8n.rest.setupOwner();
}, 15 * 60 * 1000);

afterAll(async () => {
	await n8n?.stop();
	await sandbox?.close();
	userFolder?.cleanup();
});

describe('RunComfy Trigger in a real n8n: an activated workflow polling the sandbox', () => {
	it('training job finished: one execution with the training.finished event, the LoRA tried; no second event on re-activation; the next transition fires alone', async () => {
		// The service's side, as the user's training would leave it: a READY dataset "dogs", a job that has
		// finished all its steps (A), and one still waiting in the queue (B).
		await readyDataset(sandbox, 'dogs');
		const jobA = await submitJob(sandbox, 'sks_dog', 'dogs', 20);
		await jobReaches(sandbox, jobA, (j) => j.status === 'STOPPED');
		sandbox.configure({ trainingQueueMs: 60 * 60 * 1000 });
		const jobB = await submitJob(sandbox, 'sks_cat', 'dogs', 20);
		expect(jobState(sandbox, jobB).status).toBe('IN_QUEUE');

		// The example, as is, with the placeholder replaced by the two job ids.
		const example = h.prepareWorkflow(EXAMPLE, { credential });
		const triggerNode = example.nodes.find((n) => n.name === 'RunComfy Trigger');
		expect(triggerNode?.type).toBe(h.NODE_TYPES.trigger);
		expect(triggerNode?.parameters.jobIds).toBe('YOUR_TRAINING_JOB_ID');
		if (triggerNode) triggerNode.parameters.jobIds = `${jobA}, ${jobB}`;
		const wf = await h.importWorkflow(userFolder, example, { credential });
		sandbox.clearLog();

		// Publish: n8n polls at once and starts one execution.
		await publish(wf.id);
		// (">=": n8n's own "every minute" poll may also fall into the test; it changes nothing below.)
		expect(statusPolls(jobA).length).toBeGreaterThanOrEqual(1);
		expect(statusPolls(jobB).length).toBeGreaterThanOrEqual(1);
		const [first] = await executionsOf(wf.id, 1);
		expect(first.mode).toBe('trigger');
		expect(first.status).toBe('success');
		const run1 = await n8n.rest.getExecution(first.id);
		expect(run1.data.resultData.error).toBeUndefined();

		const checkpoint = `${sandbox.urls.files}/files/train/${jobA}/sks_dog.safetensors`;
		const fired = items(run1, 'RunComfy Trigger');
		expect(fired).toHaveLength(1);
		expect(fired[0].json).toMatchObject({
			event: 'training.finished',
			job_id: jobA,
			name: 'sks_dog',
			status: 'STOPPED',
			state: 'stopped_finished',
			latest_checkpoint_url: checkpoint,
			lora: { path: checkpoint },
		});
		expect(fired[0].json.checkpoint_urls).toEqual(expect.arrayContaining([checkpoint]));
		expect((fired[0].json.progress as { current_step: number }).current_step).toBe(20);
		// The next nodes ran on it: the Filter kept it, "Try the LoRA" generated an image with the checkpoint.
		expect(items(run1, 'Only Finished Jobs').map((i) => i.json.job_id)).toEqual([jobA]);
		const tried = items(run1, 'Try the LoRA');
		expect(tried).toHaveLength(1);
		expect(tried[0].json).toMatchObject({ model_id: LORA_MODEL, status: 'succeeded' });
		expect(tried[0].binary?.data?.mimeType).toBe('image/png');
		const submits = loraSubmits();
		expect(submits).toHaveLength(1);
		expect(submits[0].body).toEqual({
			prompt: 'a photo of sks dog on the beach, trained LoRA sks_dog',
			lora: { path: checkpoint },
		});

		// Once per transition: unpublish and publish again. The activation poll asks the service again, finds
		// both jobs as before (A finished, B queued), and n8n's stored static data says A was already reported.
		let polled = statusPolls(jobA).length;
		await unpublish(wf.id);
		await publish(wf.id);
		expect(statusPolls(jobA).length).toBeGreaterThan(polled);

		// A new transition: B is cancelled. The next activation poll fires B only; the Filter drops it.
		const cancel = await client(sandbox).post(`${sandbox.urls.trainer}${JOBS}/${jobB}/cancel`, {});
		expect(cancel.status).toBe(200);
		polled = statusPolls(jobB).length;
		await unpublish(wf.id);
		await publish(wf.id);
		expect(statusPolls(jobB).length).toBeGreaterThan(polled);

		// Exactly two executions: the re-activation in between started none (had it fired A again, its
		// execution would have been created before this one, which is created after B's cancellation).
		const all = await executionsOf(wf.id, 2);
		expect(all).toHaveLength(2);
		expect(all[0].id).toBe(first.id);
		const run2 = await n8n.rest.getExecution(all[1].id);
		expect(run2.status).toBe('success');
		const fired2 = items(run2, 'RunComfy Trigger');
		expect(fired2.map((i) => [i.json.event, i.json.job_id, i.json.state])).toEqual([['training.cancelled', jobB, 'cancelled']]);
		expect(items(run2, 'Only Finished Jobs')).toEqual([]);
		expect(h.nodeItems(run2, 'Try the LoRA')).toBeUndefined();
		expect(loraSubmits()).toHaveLength(1);

		// Still active, and nothing n8n logged contains the token.
		expect((await n8n.rest.getWorkflow(wf.id)).active).toBe(true);
		expect(n8n.logs().includes(sandbox.token)).toBe(false);
		await unpublish(wf.id);
	}, TEST_TIMEOUT);

	it('balance below threshold: fires once when crossing below, not again while below, again after going back above', async () => {
		const wf = await h.importWorkflow(
			userFolder,
			{
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
			},
			{ credential },
		);
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
	}, TEST_TIMEOUT);
});
