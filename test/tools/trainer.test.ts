/**
 * RunComfy Dataset and RunComfy Training as an AI agent's tools (list_datasets, get_dataset_status,
 * get_training_job_status, get_training_job_result, submit_training_job of the tool server): JSON with ids,
 * statuses and URLs, no binary (artifact downloads are off for agents), waits bounded to 120 s.
 */
import type { IDataObject } from 'n8n-workflow';

import type { Sandbox } from '../../sandbox';
import { RunComfyDataset } from '../../nodes/RunComfyDataset/RunComfyDataset.node';
import { RunComfyTraining } from '../../nodes/RunComfyTraining/RunComfyTraining.node';
import {
	callTool,
	expectCompact,
	expectSummary,
	fromAI,
	jobReaches,
	jobState,
	openSandbox,
	readyDataset,
	submitJob,
	trainingConfig,
	uploadPair,
	createDataset,
	virtualWaitClock,
} from './setup';

const datasets = new RunComfyDataset();
const training = new RunComfyTraining();

describe('RunComfy Dataset and Training as tools', () => {
	let sb: Sandbox;
	beforeAll(async () => {
		sb = await openSandbox();
	});
	afterAll(async () => await sb.close());
	beforeEach(() => sb.reset());

	it('list_datasets: id, name and status of each dataset', async () => {
		const id = await readyDataset(sb, 'dogs');
		const result = await callTool(sb, datasets, { resource: 'dataset', operation: 'getAll', returnAll: true });
		const items = expectCompact(sb, result);
		expect(items.map((i) => [i.json.id, i.json.name, i.json.status])).toEqual([[id, 'dogs', 'READY']]);
		expectSummary(items[0].json, 'dogs', 'READY');
	});

	it('get_dataset_status: status and the uploaded files', async () => {
		const id = await readyDataset(sb, 'dogs');
		const result = await callTool(
			sb,
			datasets,
			{ resource: 'dataset', operation: 'getStatus', dataset: { __rl: true, mode: 'id', value: fromAI('dataset_id') } },
			{ dataset_id: id },
		);
		const [item] = expectCompact(sb, result);
		expect(item.json).toMatchObject({ id, status: 'READY' });
		expect((item.json.files as IDataObject[]).map((f) => f.filename)).toEqual(['img_0001.jpg', 'img_0001.txt']);
	});

	it('Wait Until Ready: a dataset still processing after the 120 s cap comes back as still processing', async () => {
		const id = await createDataset(sb, 'slow');
		sb.configure({ datasetReadyMs: 3_600_000 });
		await uploadPair(sb, id, 'img_0001');
		const clock = virtualWaitClock();
		try {
			const result = await callTool(
				sb,
				datasets,
				{ resource: 'dataset', operation: 'waitUntilReady', dataset: { __rl: true, mode: 'id', value: fromAI('dataset_id') } },
				{ dataset_id: id },
			);
			const [item] = expectCompact(sb, result);
			expect(item.json).toMatchObject({ id, status: 'UPLOADING', still_running: true });
			expect(clock.elapsedMs()).toBeGreaterThanOrEqual(110_000);
			expect(clock.elapsedMs()).toBeLessThanOrEqual(130_000);
		} finally {
			clock.restore();
		}
	});

	it('get_training_job_status: status and progress, finished told apart from stopped early', async () => {
		await readyDataset(sb, 'dogs');
		const jobId = await submitJob(sb, 'fox_lora', 'dogs', 10);
		await jobReaches(sb, jobId, (j) => j.status === 'STOPPED');
		const result = await callTool(sb, training, { resource: 'trainingJob', operation: 'getStatus', jobId: fromAI('job_id') }, { job_id: jobId });
		const [item] = expectCompact(sb, result);
		expect(item.json).toMatchObject({ job_id: jobId, status: 'succeeded', service_status: 'STOPPED', finished: true });
		expectSummary(item.json, jobId, 'succeeded');
	});

	it('get_training_job_result: artifact URLs and the checkpoint, never downloaded for an agent', async () => {
		await readyDataset(sb, 'dogs');
		const jobId = await submitJob(sb, 'fox_lora', 'dogs', 10);
		await jobReaches(sb, jobId, (j) => j.status === 'STOPPED');
		const result = await callTool(
			sb,
			training,
			{
				resource: 'trainingJob',
				operation: 'getResult',
				jobId: fromAI('job_id'),
				// Even with downloads switched on in the node, an agent gets URLs only.
				downloadOutputs: true,
				artifactsToDownload: ['latestCheckpoint', 'samples'],
			},
			{ job_id: jobId },
		);
		const [item] = expectCompact(sb, result);
		const checkpoint = `${sb.urls.files}/files/train/${jobId}/fox_lora.safetensors`;
		expect(item.json.job_id).toBe(jobId);
		expect(item.json.latest_checkpoint_url).toBe(checkpoint);
		expect((item.json.artifact_urls as IDataObject[]).map((u) => u.url)).toContain(checkpoint);
	});

	it('submit_training_job with waiting: a job longer than the 120 s cap comes back as still running', async () => {
		await readyDataset(sb, 'dogs');
		sb.configure({ trainingStepMs: 3_600_000 });
		const clock = virtualWaitClock();
		try {
			const result = await callTool(
				sb,
				training,
				{
					resource: 'trainingJob',
					operation: 'submit',
					configMode: 'text',
					configText: fromAI('config_file', 'The ai-toolkit config'),
					waitForCompletion: true,
				},
				{ config_file: trainingConfig({ name: 'slow_lora', dataset: 'dogs' }) },
			);
			const [item] = expectCompact(sb, result);
			const jobId = String(item.json.job_id);
			expect(item.json).toMatchObject({ status: 'running', still_running: true });
			expect(jobState(sb, jobId).status).toBe('RUNNING');
			expect(clock.elapsedMs()).toBeGreaterThanOrEqual(110_000);
			expect(clock.elapsedMs()).toBeLessThanOrEqual(130_000);
		} finally {
			clock.restore();
		}
		// Waiting timed out; the job was not cancelled.
		expect(sb.log().filter((e) => e.path.endsWith('/cancel'))).toEqual([]);
	});
});
