/**
 * RunComfy Training node after submit: Get Status (progress; STOPPED told apart as finished or stopped early),
 * Get Result (artifacts flattened, latest checkpoint as `lora`, also while RUNNING and after CANCELED), Cancel,
 * Resume (GPU chosen at resume time; refused while running; 8 GPUs only with ADA_80_PLUS) and Edit (only while
 * STOPPED/CANCELED/FAILED; config.name must stay). Real n8n engine, sandbox on loopback.
 */
import type { INodeParameters } from 'n8n-workflow';

import type { RunNodeOptions } from '../helpers/engine';
import { FAST, isJobCall, isJobSubmit, readyDataset, runTraining, textConfig, until, useSandbox } from './setup';

const sb = useSandbox();
beforeEach(() => sb.reset(FAST));

const run = async (parameters: INodeParameters, extra: Partial<RunNodeOptions> = {}) => await runTraining(sb, parameters, extra);

const config = (name: string, o: { steps?: number; model?: string } = {}) =>
	textConfig({ name, dataset: 'life-ds', steps: o.steps ?? 40, model: o.model });

async function submit(name: string, extra: INodeParameters = {}): Promise<string> {
	const result = await run({ operation: 'submit', configMode: 'text', configText: config(name), waitForCompletion: false, ...extra });
	expect(result.error).toBeUndefined();
	return result.items[0].json.job_id as string;
}

const jobState = (id: string) => sb.state().jobs.find((j) => j.id === id)!;

beforeEach(async () => {
	await readyDataset(sb, 'life-ds');
});

describe('a job stopped early (server reclaimed) and resumed', () => {
	it('is reported as stopped early, resumed on the GPU chosen then, and finishes', async () => {
		const jobId = await submit('preempt_me', { gpuType: 'ADA_80_PLUS' });
		await until(() => jobState(jobId).status === 'STOPPED', 'the job stops');

		const status = await run({ operation: 'getStatus', jobId });
		expect(status.items[0].json).toMatchObject({
			job_id: jobId,
			status: 'stopped',
			service_status: 'STOPPED',
			finished: false,
			progress: { current: 20, total: 40, percent: 50 },
			stop_reason: 'Job failed: server was reclaimed. (TRAINING_ERROR)',
		});
		expect(status.items[0].json.hint).toMatch(/Resume it \(Resume operation, job ID/);

		const partial = await run({ operation: 'getResult', jobId });
		const base = `${sb.urls.files}/files/train/${jobId}`;
		expect(partial.items[0].json).toMatchObject({
			checkpoint_urls: [`${base}/preempt_me_000000010.safetensors`, `${base}/preempt_me_000000020.safetensors`],
			latest_checkpoint_url: `${base}/preempt_me_000000020.safetensors`,
			lora: { path: `${base}/preempt_me_000000020.safetensors` },
		});

		const resumed = await run({ operation: 'resume', jobId, gpuType: 'HOPPER_141', gpuCount: 1, waitForCompletion: true });
		expect(resumed.error).toBeUndefined();
		expect(
			sb
				.log()
				.filter(isJobCall('resume'))
				.map((e) => e.body),
		).toEqual([{ gpu_type: 'HOPPER_141', gpu_count: 1 }]);
		expect(resumed.items[0].json).toMatchObject({
			job_id: jobId,
			gpu_type: 'HOPPER_141',
			before: { status: 'STOPPED', progress: { current: 20, total: 40, percent: 50 } },
			status: 'succeeded',
			finished: true,
			lora: { path: `${base}/preempt_me.safetensors` },
		});
		expect(jobState(jobId).attempts).toBe(2);
	});

	it('fails a waiting submit with "stopped early" and the way out; Continue on Fail keeps the job id and progress', async () => {
		const failed = await run({ operation: 'submit', configMode: 'text', configText: config('preempt_a'), waitForCompletion: true });
		const jobId = sb.state().jobs[0].id;
		expect(failed.error?.message).toBe(
			`Training job ${jobId} stopped early at step 20 of 40: Job failed: server was reclaimed. (TRAINING_ERROR)`,
		);
		expect(failed.error?.description).toMatch(/Resume it with the Resume operation/);

		const kept = await run(
			{ operation: 'submit', configMode: 'text', configText: config('preempt_b'), waitForCompletion: true },
			{ continueOnFail: true },
		);
		expect(kept.items[0].json).toMatchObject({ job_id: sb.state().jobs[1].id, status: 'stopped', progress: { current: 20, total: 40 } });
		expect(kept.items[0].json.error).toMatch(/stopped early/);
	});
});

describe('Get Status and Get Result', () => {
	it('report step progress while RUNNING and the growing artifact list', async () => {
		sb.configure({ trainingStepMs: 20 });
		const jobId = await submit('running_job', { configText: config('running_job', { steps: 100000 }) });
		await until(() => jobState(jobId).current_step >= 12, 'a first checkpoint');
		const status = await run({ operation: 'getStatus', jobId });
		const json = status.items[0].json as {
			status: string;
			progress: { current: number; total: number; percent: number };
			finished: boolean;
		};
		expect(json.status).toBe('running');
		expect(json.finished).toBe(false);
		expect(json.progress.total).toBe(100000);
		expect(json.progress.current).toBeGreaterThanOrEqual(12);
		expect(sb.log().filter((e) => e.path.endsWith('/result'))).toHaveLength(0); // only STOPPED needs the result
		const result = await run({ operation: 'getResult', jobId });
		expect((result.items[0].json.checkpoint_urls as string[]).length).toBeGreaterThanOrEqual(1);
	});

	it('tells a finished STOPPED job from an incomplete one', async () => {
		const jobId = await submit('done_job');
		await until(() => jobState(jobId).status === 'STOPPED', 'the job finishes');
		const status = await run({ operation: 'getStatus', jobId });
		expect(status.items[0].json).toMatchObject({
			status: 'succeeded',
			service_status: 'STOPPED',
			finished: true,
			progress: { current: 40, total: 40, percent: 100 },
		});
		expect(status.items[0].json.hint).toBeUndefined();
	});

	it('answers as an AI tool', async () => {
		const jobId = await submit('tool_job');
		const status = await run({ operation: 'getStatus', jobId }, { asTool: true });
		expect(status.error).toBeUndefined();
		expect(status.items[0].json.job_id).toBe(jobId);
	});
});

describe('Cancel, Edit and Resume', () => {
	it('cancels a running job; its checkpoints stay; Edit (same name) then Resume continues it', async () => {
		sb.configure({ trainingStepMs: 20 });
		const jobId = await submit('cancel_me', { configText: config('cancel_me', { steps: 100000 }) });
		await until(() => jobState(jobId).current_step >= 11, 'a first checkpoint');

		// editing or resuming a running job is refused before any call
		sb.clearLog();
		const editRunning = await run({ operation: 'edit', jobId, configText: config('cancel_me') });
		expect(editRunning.error?.message).toBe(`Training job ${jobId} is RUNNING; only a STOPPED, CANCELED or FAILED job can be edited`);
		expect(editRunning.error?.description).toMatch(/Cancel the job first/);
		const resumeRunning = await run({ operation: 'resume', jobId });
		expect(resumeRunning.error?.message).toMatch(/is RUNNING; only a stopped, failed or cancelled job can be resumed/);
		expect(sb.log().filter((e) => e.method === 'POST')).toHaveLength(0);

		const cancelled = await run({ operation: 'cancel', jobId });
		expect(cancelled.items[0].json).toMatchObject({ job_id: jobId, status: 'cancelled', service_status: 'CANCELED' });
		expect(jobState(jobId).status).toBe('CANCELED');
		const result = await run({ operation: 'getResult', jobId });
		expect((result.items[0].json.checkpoint_urls as string[]).length).toBeGreaterThanOrEqual(1);

		sb.configure({ trainingStepMs: 1 });
		sb.clearLog();
		const renamed = await run({ operation: 'edit', jobId, configText: config('other_name', { steps: 30 }) });
		expect(renamed.error?.message).toBe('config.name is "other_name" but must stay "cancel_me", the job\'s original name');
		expect(sb.log().filter(isJobCall('edit'))).toHaveLength(0);

		const edited = await run({ operation: 'edit', jobId, configText: config('cancel_me', { steps: 30 }) });
		expect(edited.error).toBeUndefined();
		expect(edited.items[0].json).toMatchObject({ job_id: jobId, name: 'cancel_me', previous_status: 'CANCELED', config_format: 'yaml' });
		expect(sb.log().filter(isJobCall('edit'))).toHaveLength(1);

		const resumed = await run({ operation: 'resume', jobId, waitForCompletion: true });
		expect(resumed.error).toBeUndefined();
		expect(resumed.items[0].json).toMatchObject({ status: 'succeeded', progress: { total: 30 } });
	});

	it('fixes a FAILED job by editing its config, then resumes it', async () => {
		const failed = await run(
			{ operation: 'submit', configMode: 'text', configText: config('fixable', { model: 'fail/model' }), waitForCompletion: true },
			{ continueOnFail: true },
		);
		const jobId = failed.items[0].json.job_id as string;
		expect(failed.items[0].json.error).toMatch(/fail\/model is not a valid model identifier/);
		expect(jobState(jobId).status).toBe('FAILED');
		const edited = await run({ operation: 'edit', jobId, configText: config('fixable') });
		expect(edited.items[0].json).toMatchObject({ previous_status: 'FAILED' });
		const resumed = await run({ operation: 'resume', jobId, waitForCompletion: true });
		expect(resumed.items[0].json).toMatchObject({ status: 'succeeded' });
	});

	it('refuses 8 GPUs on HOPPER_141 at resume, and an edit whose paths break the rules, before any call', async () => {
		const jobId = await submit('preempt_rules');
		await until(() => jobState(jobId).status === 'STOPPED', 'the job stops');
		sb.clearLog();
		const gpu = await run({ operation: 'resume', jobId, gpuType: 'HOPPER_141', gpuCount: 8 });
		expect(gpu.error?.message).toMatch(/^8 GPUs are available only with ADA_80_PLUS/);
		const badPath = await run({
			operation: 'edit',
			jobId,
			configText: config('preempt_rules').replace('/app/ai-toolkit/output', 'output'),
		});
		expect(badPath.error?.message).toContain('training_folder is "output" but must be "/app/ai-toolkit/output"');
		expect(sb.log().filter((e) => e.method === 'POST')).toHaveLength(0);
		expect(sb.log().filter(isJobSubmit)).toHaveLength(0);
	});

	it('refuses to edit a job that is not in an editable state', async () => {
		sb.configure({ trainingQueueMs: 60_000 });
		const jobId = await submit('queued_job');
		sb.clearLog();
		const result = await run({ operation: 'edit', jobId, configText: config('queued_job') });
		expect(result.error?.message).toBe(`Training job ${jobId} is IN_QUEUE; only a STOPPED, CANCELED or FAILED job can be edited`);
		expect(sb.log().filter(isJobCall('edit'))).toHaveLength(0);
	});
});
