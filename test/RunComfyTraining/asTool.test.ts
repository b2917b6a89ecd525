/**
 * RunComfy Training as an AI agent's tool (get_training_job_status, get_training_job_result, submit_training_job
 * of the tool server): JSON with ids, statuses and URLs, no binary (artifact downloads are off for agents), waits
 * bounded to 120 s.
 */
import type { IDataObject } from 'n8n-workflow';

import { jobReaches, jobState, submitJob, trainingConfig } from '../helpers/sandboxCalls';
import { callTool, expectCompact, expectSummary, fromAI, virtualWaitClock } from '../helpers/toolSetup';
import { node as training, readyDataset, useSandbox } from './setup';

describe('RunComfy Training as a tool', () => {
	const sb = useSandbox();
	beforeEach(() => sb.reset());

	it('get_training_job_status: status and progress, finished told apart from stopped early', async () => {
		await readyDataset(sb, 'dogs');
		const jobId = await submitJob(sb, 'fox_lora', 'dogs', 10);
		await jobReaches(sb, jobId, (j) => j.status === 'STOPPED');
		const result = await callTool(
			sb,
			training,
			{ resource: 'trainingJob', operation: 'getStatus', jobId: fromAI('job_id') },
			{ job_id: jobId },
		);
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
