/**
 * Training Job → Get Status: Simplify (on by default, as in n8n's own nodes) keeps the job id, status, progress and
 * how it ended; off gives the service's whole status record; an agent gets the simplified form; an expression that
 * gives nothing is refused before any call.
 */
import type { INodeParameters } from 'n8n-workflow';

import type { RunNodeOptions } from '../helpers/engine';
import { jobReaches, submitJob } from '../helpers/sandboxCalls';
import { callTool, expectCompact, expectSummary, fromAI } from '../helpers/toolSetup';
import { FAST, node, readyDataset, runTraining, useSandbox } from './setup';

const sb = useSandbox();
beforeEach(() => sb.reset(FAST));

const run = async (parameters: INodeParameters, extra: Partial<RunNodeOptions> = {}) => await runTraining(sb, parameters, extra);

/** A job (of a dataset made for it) that has stopped: `fox_lora` at its last step, `preempt_fox` before it. */
async function stoppedJob(name: 'fox_lora' | 'preempt_fox'): Promise<string> {
	await readyDataset(sb, 'dogs');
	const jobId = await submitJob(sb, name, 'dogs', 40);
	await jobReaches(sb, jobId, (j) => j.status === 'STOPPED');
	return jobId;
}

const FINISHED = ['job_id', 'name', 'status', 'service_status', 'progress', 'finished', 'error', 'finished_at'];

describe('Training Job → Get Status', () => {
	it('is simplified by default: id, name, status, progress, whether it finished, its error and end', async () => {
		const jobId = await stoppedJob('fox_lora');
		const result = await run({ operation: 'getStatus', jobId });
		expect(result.error).toBeUndefined();
		const { json } = result.items[0];
		expect(Object.keys(json)).toEqual(FINISHED);
		expect(json).toMatchObject({
			job_id: jobId,
			status: 'succeeded',
			service_status: 'STOPPED',
			finished: true,
			progress: { current: 40, total: 40 },
		});
	});

	it('simplified, a job stopped early keeps why and how to resume it: ten fields', async () => {
		const jobId = await stoppedJob('preempt_fox');
		const { json } = (await run({ operation: 'getStatus', jobId })).items[0];
		expect(Object.keys(json)).toEqual([...FINISHED, 'stop_reason', 'hint']);
		expect(json).toMatchObject({ job_id: jobId, status: 'stopped', finished: false });
		expect(json.hint).toMatch(/Resume it \(Resume operation, job ID/);
	});

	it('Simplify off: the whole status record (GPU, timestamps, result URL)', async () => {
		const jobId = await stoppedJob('fox_lora');
		const { json } = (await run({ operation: 'getStatus', jobId, simple: false })).items[0];
		expect(json).toMatchObject({ job_id: jobId, gpu_type: 'ADA_80_PLUS', started_at: expect.any(String), result_url: expect.any(String) });
		expect(Object.keys(json).length).toBeGreaterThan(10);
	});

	it('an AI agent gets the simplified form with its summary', async () => {
		const jobId = await stoppedJob('fox_lora');
		const result = await callTool(
			sb,
			node,
			{ resource: 'trainingJob', operation: 'getStatus', jobId: fromAI('job_id') },
			{ job_id: jobId },
		);
		const [item] = expectCompact(sb, result);
		expect(Object.keys(item.json)).toEqual([...FINISHED, 'summary']);
		expectSummary(item.json, jobId, 'succeeded');
	});

	it('a Simplify expression that gives nothing is refused before any call', async () => {
		const jobId = await stoppedJob('fox_lora');
		sb.clearLog();
		const result = await run({ operation: 'getStatus', jobId, simple: '={{ $json.simplify }}' });
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe('"Simplify" of item 0 is empty: its expression {{ $json.simplify }} gave undefined');
		expect(sb.log().filter((e) => e.api === 'trainer')).toEqual([]);
	});
});
