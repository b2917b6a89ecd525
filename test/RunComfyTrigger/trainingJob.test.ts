import type { IDataObject } from 'n8n-workflow';

import type { Sandbox } from '../../sandbox';
import { JOBS, client, jobReaches, jobState, openSandbox, pollOnce, readyDataset, submitJob } from './setup';

// The tests start from jobs that already ended and ask the first poll to fire for those too.
const params = (jobIds: string) => ({ event: 'trainingJob', jobIds, fireForExisting: true });

describe('RunComfy Trigger: training job finished, failed, stopped early or cancelled', () => {
	let sb: Sandbox;
	beforeAll(async () => {
		sb = await openSandbox();
	});
	afterAll(async () => await sb.close());
	beforeEach(async () => {
		sb.reset();
		await readyDataset(sb, 'dogs');
	});

	it('fires training.finished once, with the result and the latest checkpoint, across several polls', async () => {
		const jobId = await submitJob(sb, 'fox_lora', 'dogs', 20);
		await jobReaches(sb, jobId, (j) => j.status === 'STOPPED');
		const staticData: IDataObject = {};

		const first = await pollOnce(sb, params(jobId), staticData);
		expect(first).toHaveLength(1);
		const event = first![0];
		expect(event).toMatchObject({
			event: 'training.finished',
			job_id: jobId,
			status: 'succeeded',
			service_status: 'STOPPED',
			name: 'fox_lora',
			progress: { current_step: 20, total_steps: 20 },
		});
		const result = event.result as IDataObject;
		expect(result.status).toBe('STOPPED');
		expect(event.latest_checkpoint_url).toBe(`${sb.urls.files}/files/train/${jobId}/fox_lora.safetensors`);
		expect(event.lora).toEqual({ path: event.latest_checkpoint_url });
		expect(event.checkpoint_urls).toContain(`${sb.urls.files}/files/train/${jobId}/fox_lora_000000005.safetensors`);
		expect((event.artifact_urls as IDataObject[]).length).toBeGreaterThan(3);

		// The same state on later polls: nothing new.
		expect(await pollOnce(sb, params(jobId), staticData)).toBeNull();
		expect(await pollOnce(sb, params(jobId), staticData)).toBeNull();
	});

	it('fires training.stopped_early, then after a resume fires again when the job stops for the second time', async () => {
		// "preempt" in the name: the first attempt stops at half with "server was reclaimed".
		const jobId = await submitJob(sb, 'preempt_lora', 'dogs', 20);
		await jobReaches(sb, jobId, (j) => j.status === 'STOPPED');
		const staticData: IDataObject = {};

		const early = await pollOnce(sb, params(jobId), staticData);
		expect(early).toHaveLength(1);
		expect(early![0]).toMatchObject({
			event: 'training.stopped_early',
			status: 'stopped',
			service_status: 'STOPPED',
			progress: { current_step: 10, total_steps: 20 },
			result: { error: { message: 'Job failed: server was reclaimed.' } },
		});
		expect(await pollOnce(sb, params(jobId), staticData)).toBeNull();

		// Resumed (by someone else) with a long queue: re-queued is not an event.
		sb.configure({ trainingQueueMs: 60_000 });
		const resumed = await client(sb).post(`${sb.urls.trainer}${JOBS}/${jobId}/resume`, {});
		expect(resumed.status).toBe(200);
		expect(jobState(sb, jobId).status).toBe('IN_QUEUE');
		expect(await pollOnce(sb, params(jobId), staticData)).toBeNull();
		// Cancelled while re-queued: a new transition.
		expect((await client(sb).post(`${sb.urls.trainer}${JOBS}/${jobId}/cancel`)).status).toBe(200);
		const cancelled = await pollOnce(sb, params(jobId), staticData);
		expect(cancelled?.map((e) => e.event)).toEqual(['training.cancelled']);
		expect(await pollOnce(sb, params(jobId), staticData)).toBeNull();

		// Resumed again, runs to the end: fires training.finished.
		sb.configure({ trainingQueueMs: 0 });
		expect((await client(sb).post(`${sb.urls.trainer}${JOBS}/${jobId}/resume`, {})).status).toBe(200);
		await jobReaches(sb, jobId, (j) => j.status === 'STOPPED' && j.current_step === 20);
		const finished = await pollOnce(sb, params(jobId), staticData);
		expect(finished).toHaveLength(1);
		expect(finished![0]).toMatchObject({ event: 'training.finished', status: 'succeeded' });
		expect(await pollOnce(sb, params(jobId), staticData)).toBeNull();
	});

	it('fires again when a resumed job ends in the same status a second time, even if no poll saw it running', async () => {
		// "fail" in the name: every attempt fails at ~30% of its remaining steps.
		const jobId = await submitJob(sb, 'fail_twice', 'dogs', 20);
		await jobReaches(sb, jobId, (j) => j.status === 'FAILED');
		const staticData: IDataObject = {};
		const first = await pollOnce(sb, params(jobId), staticData);
		expect(first?.map((e) => e.event)).toEqual(['training.failed']);
		const firstStep = (first![0].progress as IDataObject).current_step;

		expect((await client(sb).post(`${sb.urls.trainer}${JOBS}/${jobId}/resume`, {})).status).toBe(200);
		await jobReaches(sb, jobId, (j) => j.status === 'FAILED' && j.attempts === 2 && j.current_step !== firstStep);
		// FAILED -> (resumed, running, unseen) -> FAILED: another failure, so another event.
		const second = await pollOnce(sb, params(jobId), staticData);
		expect(second?.map((e) => e.event)).toEqual(['training.failed']);
		expect((second![0].progress as IDataObject).current_step).not.toBe(firstStep);
		expect(await pollOnce(sb, params(jobId), staticData)).toBeNull();
	});

	it('fires training.failed with the service error, and training.cancelled; several jobs in one list', async () => {
		const failing = await submitJob(sb, 'fail_lora', 'dogs', 20);
		sb.configure({ trainingQueueMs: 60_000 });
		const queued = await submitJob(sb, 'slow_lora', 'dogs', 20);
		await jobReaches(sb, failing, (j) => j.status === 'FAILED');
		const staticData: IDataObject = {};
		const list = `${failing},\n${queued}`;

		const first = await pollOnce(sb, params(list), staticData);
		expect(first).toHaveLength(1);
		expect(first![0]).toMatchObject({ event: 'training.failed', job_id: failing, status: 'failed', service_status: 'FAILED' });
		expect(String(first![0].error)).toMatch(/CUDA out of memory/);
		expect(first![0].result).toBeDefined();
		expect(await pollOnce(sb, params(list), staticData)).toBeNull();

		expect((await client(sb).post(`${sb.urls.trainer}${JOBS}/${queued}/cancel`)).status).toBe(200);
		const second = await pollOnce(sb, params(list), staticData);
		expect(second?.map((e) => [e.event, e.job_id])).toEqual([['training.cancelled', queued]]);
		expect(await pollOnce(sb, params(list), staticData)).toBeNull();
	});

	it('takes the job ids from an expression returning a list', async () => {
		const a = await submitJob(sb, 'lora_a', 'dogs', 10);
		const b = await submitJob(sb, 'lora_b', 'dogs', 10);
		await jobReaches(sb, a, (j) => j.status === 'STOPPED');
		await jobReaches(sb, b, (j) => j.status === 'STOPPED');
		const staticData: IDataObject = {};
		const out = await pollOnce(sb, { ...params(''), jobIds: `={{ ["${a}", "${b}", "${a}"] }}` }, staticData);
		expect(out?.map((e) => e.job_id)).toEqual([a, b]);
		expect(out?.every((e) => e.event === 'training.finished')).toBe(true);
	});

	it('manual "Fetch Test Event" returns the current state and does not consume the transition', async () => {
		sb.configure({ trainingQueueMs: 60_000 });
		const queued = await submitJob(sb, 'queued_lora', 'dogs', 20);
		sb.configure({ trainingQueueMs: 0 });
		const done = await submitJob(sb, 'done_lora', 'dogs', 10);
		await jobReaches(sb, done, (j) => j.status === 'STOPPED');
		const staticData: IDataObject = {};
		const list = `${queued}, ${done}`;

		const sample = await pollOnce(sb, params(list), staticData, 'manual');
		expect(sample?.map((e) => [e.job_id, e.event, e.status])).toEqual([
			[queued, 'training.queued', 'queued'],
			[done, 'training.finished', 'succeeded'],
		]);
		expect(staticData).toEqual({});

		// The real poll still fires for the finished job...
		const fired = await pollOnce(sb, params(list), staticData);
		expect(fired?.map((e) => [e.job_id, e.event])).toEqual([[done, 'training.finished']]);
		// ...a manual fetch after it still shows the current state and changes nothing...
		const before = JSON.stringify(staticData);
		expect((await pollOnce(sb, params(list), staticData, 'manual'))?.length).toBe(2);
		expect(JSON.stringify(staticData)).toBe(before);
		// ...and the next real poll has nothing new.
		expect(await pollOnce(sb, params(list), staticData)).toBeNull();
	});

	it('a missing job gives one training.gone event and does not hold back the other jobs', async () => {
		const done = await submitJob(sb, 'kept_lora', 'dogs', 10);
		await jobReaches(sb, done, (j) => j.status === 'STOPPED');
		const staticData: IDataObject = {};
		const list = `${done}, no-such-job`;
		const first = await pollOnce(sb, params(list), staticData);
		expect(first?.map((e) => [e.event, e.job_id])).toEqual([
			['training.finished', done],
			['training.gone', 'no-such-job'],
		]);
		expect(first![1]).toMatchObject({ http_code: '404', watching: false });
		expect(await pollOnce(sb, params(list), staticData)).toBeNull();
		expect(sb.log().filter((e) => e.path === `${JOBS}/no-such-job/status`)).toHaveLength(1);
	});

	it('asks for job ids when none are given', async () => {
		await expect(pollOnce(sb, params(' , '), {})).rejects.toMatchObject({ message: 'No training jobs to watch' });
	});
});
