/**
 * n8n's "Retry On Fail" (3 tries) on the other submitting operations of the one job flow: Deployment → Inference
 * → Run, Training → Submit and Resume (paid) and Dataset uploads. In each batch of five one item definitively
 * fails on the service; counted in the sandbox log and state over the whole execution: that item is submitted
 * again on each try (what Retry On Fail asks for), every other item exactly once, and the memory of what was
 * submitted is gone when the execution has ended. (Model → Run: retry-on-fail.model.test.ts.)
 */
import type { IDataObject, INodeParameters, INodeType } from 'n8n-workflow';

import { rememberedCount } from '../../nodes/shared/jobs/memory';
import { RunComfyDataset } from '../../nodes/RunComfyDataset/RunComfyDataset.node';
import { RunComfyDeployment } from '../../nodes/RunComfyDeployment/RunComfyDeployment.node';
import { RunComfyTraining } from '../../nodes/RunComfyTraining/RunComfyTraining.node';
import { runNode } from '../helpers/engine';
import type { InputItem, RunNodeResult } from '../helpers/engine';
import { credentialsFor, direct, isInference, readyDataset, trainingConfig, until, useFaultSandbox } from '../helpers/faults-setup';

const RETRY = { retryOnFail: true, maxTries: 3, waitBetweenTries: 10 };
const WAIT = { pollIntervalSeconds: 0.02, maxPollIntervalSeconds: 0.05, maxWaitSeconds: 30 };
const N = 5;
const FAILING = 2;
const GOOD = [0, 1, 3, 4];

const sb = useFaultSandbox();
beforeEach(() => {
	sb.reset({ runDurationMs: 30, queueMs: 0, trainingStepMs: 2, trainingQueueMs: 0, datasetReadyMs: 20, walletMicrodollars: 50_000_000 });
});

async function retried(node: INodeType, parameters: INodeParameters, inputItems: InputItem[]): Promise<RunNodeResult> {
	const result = await runNode({ node, credentials: credentialsFor(sb), parameters, inputItems, nodeOverrides: RETRY });
	expect(result.status).toBe('error');
	expect(rememberedCount()).toBe(0);
	return result;
}

/** How often each key was submitted, from `keys` (one entry per submit). */
function tally(keys: string[]): Map<string, number> {
	const counts = new Map<string, number>();
	for (const key of keys) counts.set(key, (counts.get(key) ?? 0) + 1);
	return counts;
}

function expectOnceEachButTheFailing(counts: Map<string, number>, keyOf: (i: number) => string): void {
	expect(counts.get(keyOf(FAILING))).toBe(RETRY.maxTries);
	for (const i of GOOD) expect(counts.get(keyOf(i))).toBe(1);
}

describe('Retry On Fail (3 tries) never pays twice for a good item', () => {
	it('Deployment → Inference → Run: the request that fails is sent again on each try, the others once', async () => {
		const good = sb.stable.deployments.textToImage;
		const failing = sb.stable.deployments.imageToImage;
		sb.configure({ failingModels: { [failing]: 'CUDA out of memory' } });
		const result = await retried(
			new RunComfyDeployment(),
			{
				resource: 'inference',
				operation: 'run',
				deploymentId: { __rl: true, mode: 'id', value: '={{ $json.deployment }}' },
				inputMode: 'json',
				overridesJson: '={{ JSON.stringify({ "6": { "inputs": { "text": $json.prompt } } }) }}',
				downloadOutputs: false,
				waitOptions: WAIT,
			},
			Array.from({ length: N }, (_, i) => ({ json: { prompt: `item ${i}`, deployment: i === FAILING ? failing : good } })),
		);
		expect(result.error?.message).toMatch(/CUDA out of memory/);
		const prompts = sb
			.log()
			.filter(isInference)
			.map((e) => String(((e.body as IDataObject).overrides as Record<string, { inputs: { text: string } }>)['6'].inputs.text));
		expectOnceEachButTheFailing(tally(prompts), (i) => `item ${i}`);
	});

	it('Training → Submit: the job that fails is submitted again on each try, the others once', async () => {
		const dataset = await readyDataset(sb, 'retry-set');
		const nameOf = (i: number) => (i === FAILING ? `will_fail_${i}` : `good_job_${i}`);
		const result = await retried(
			new RunComfyTraining(),
			{
				resource: 'trainingJob',
				operation: 'submit',
				configMode: 'text',
				configText: '={{ JSON.stringify($json.config) }}',
				configFormat: 'json',
				waitForCompletion: true,
				waitOptions: WAIT,
				artifactsToDownload: [],
			},
			Array.from({ length: N }, (_, i) => ({ json: { config: trainingConfig(nameOf(i), dataset.name, 20, 10) } })),
		);
		expect(result.error?.message).toMatch(/Training job .* failed/);
		// Every submit that reached the service made one job; the jobs by name count the submits.
		expect(
			sb.log().filter((e) => e.api === 'trainer' && e.method === 'POST' && e.path === '/prod/v1/trainers/ai-toolkit/jobs'),
		).toHaveLength(GOOD.length + RETRY.maxTries);
		expectOnceEachButTheFailing(tally(sb.state().jobs.map((j) => j.name)), nameOf);
	});

	it('Training → Resume: the job that fails again is resumed on each try, the others once', async () => {
		const dataset = await readyDataset(sb, 'resume-set');
		// Four jobs stopped half-way ("server reclaimed"), one that fails on every attempt.
		const nameOf = (i: number) => (i === FAILING ? `will_fail_${i}` : `preempt_job_${i}`);
		const ids: string[] = [];
		for (let i = 0; i < N; i++) {
			const answer = await direct(sb, 'trainer', 'POST', '/prod/v1/trainers/ai-toolkit/jobs', {
				config_file_format: 'json',
				config_file: JSON.stringify(trainingConfig(nameOf(i), dataset.name, 20, 10)),
				gpu_type: 'ADA_80_PLUS',
			});
			ids.push(String(answer.body.job_id ?? answer.body.id));
		}
		await until(() => sb.state().jobs.every((j) => j.status === 'STOPPED' || j.status === 'FAILED'), 'every job stopped or failed');
		sb.clearLog();

		const result = await retried(
			new RunComfyTraining(),
			{
				resource: 'trainingJob',
				operation: 'resume',
				jobId: '={{ $json.jobId }}',
				waitForCompletion: true,
				waitOptions: WAIT,
				artifactsToDownload: [],
			},
			ids.map((jobId) => ({ json: { jobId } })),
		);
		expect(result.error?.message).toContain(ids[FAILING]);
		expect(result.error?.message).toMatch(/failed/);
		const resumed = sb
			.log()
			.filter((e) => e.api === 'trainer' && e.method === 'POST' && /\/resume$/.test(e.path))
			.map((e) => e.path.split('/')[6]);
		expectOnceEachButTheFailing(tally(resumed), (i) => ids[i]);
		// The good ones finished: resumed once, picked up by the later tries.
		for (const i of GOOD) expect(sb.state().jobs.find((j) => j.id === ids[i])?.status).toBe('STOPPED');
	});

	it('Training → Resume without waiting: a refused resume is sent again, the jobs resumed earlier are followed, not checked again', async () => {
		const dataset = await readyDataset(sb, 'refused-set');
		// Jobs 0–3 stopped half-way; job 4 finished, so the service refuses to resume it.
		const nameOf = (i: number) => (i === 4 ? `done_job_${i}` : `preempt_job_${i}`);
		const ids: string[] = [];
		for (let i = 0; i < N; i++) {
			const answer = await direct(sb, 'trainer', 'POST', '/prod/v1/trainers/ai-toolkit/jobs', {
				config_file_format: 'json',
				config_file: JSON.stringify(trainingConfig(nameOf(i), dataset.name, 20, 10)),
				gpu_type: 'ADA_80_PLUS',
			});
			ids.push(String(answer.body.job_id ?? answer.body.id));
		}
		await until(() => sb.state().jobs.every((j) => j.status === 'STOPPED'), 'every job stopped');
		// Resumed jobs now run for minutes: on the retries they are still running (a new Resume would be refused).
		sb.configure({ trainingStepMs: 60_000 });
		sb.clearLog();

		const result = await retried(
			new RunComfyTraining(),
			{ resource: 'trainingJob', operation: 'resume', jobId: '={{ $json.jobId }}', waitForCompletion: false },
			ids.map((jobId) => ({ json: { jobId } })),
		);
		// The last try's error is the refusal, naming the jobs resumed (on the first try) that keep running.
		expect(result.error?.description).toEqual(expect.stringContaining(ids[0]));
		const resumed = sb
			.log()
			.filter((e) => e.api === 'trainer' && e.method === 'POST' && /\/resume$/.test(e.path))
			.map((e) => e.path.split('/')[6]);
		const counts = tally(resumed);
		expect(counts.get(ids[4])).toBe(RETRY.maxTries);
		for (const i of [0, 1, 2, 3]) expect(counts.get(ids[i])).toBe(1);
		for (const i of [0, 1, 2, 3]) expect(['IN_QUEUE', 'RUNNING']).toContain(sb.state().jobs.find((j) => j.id === ids[i])?.status);
	});

	it('Dataset → Upload File: the file whose dataset fails is uploaded again on each try, the others once', async () => {
		const good = String((await direct(sb, 'trainer', 'POST', '/prod/v1/trainers/datasets', { name: 'retry-good' })).body.id);
		const failing = String((await direct(sb, 'trainer', 'POST', '/prod/v1/trainers/datasets', { name: 'retry-failing' })).body.id);
		// A file name containing "fail" makes its dataset FAILED.
		const fileOf = (i: number) => (i === FAILING ? `img_fail_${i}.png` : `img_${i}.png`);
		const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
		const result = await retried(
			new RunComfyDataset(),
			{
				resource: 'dataset',
				operation: 'uploadFile',
				dataset: { __rl: true, mode: 'id', value: '={{ $json.dataset }}' },
				waitForCompletion: true,
				waitOptions: WAIT,
			},
			Array.from({ length: N }, (_, i) => ({
				json: { dataset: i === FAILING ? failing : good },
				binary: { data: { data: png, mimeType: 'image/png', fileName: fileOf(i) } },
			})),
		);
		expect(result.error?.message).toMatch(/FAILED|failed/);
		const uploaded = sb
			.log()
			.filter((e) => e.api === 'trainer' && e.method === 'POST' && e.path.endsWith('/upload'))
			.map((e) => String(((e.body as IDataObject).file as IDataObject | undefined)?.filename));
		expectOnceEachButTheFailing(tally(uploaded), fileOf);
	});
});
