/**
 * RunComfy Training node → Submit with Wait for Completion: finished → `lora`, failed, timeout, Stop only stops
 * watching. Real n8n engine, sandbox. The config and the rules before the paid call: submit.test.ts.
 */
import type { INodeParameters } from 'n8n-workflow';

import { realClock } from '../../nodes/shared/wait';
import { runNode } from '../helpers/engine';
import { FAST, FAST_WAIT, credentialsFor, isJobCall, node, readyDataset, simpleParams, until, useSandbox } from './setup';

const sb = useSandbox();
beforeEach(() => sb.reset(FAST));

const run = async (parameters: INodeParameters, extra: Partial<Parameters<typeof runNode>[0]> = {}) =>
	await runNode({ node, credentials: credentialsFor(sb), parameters, ...extra });

describe('Wait for Completion', () => {
	it('waits for the job and returns the latest checkpoint ready as `lora`, without downloading by default', async () => {
		const datasetId = await readyDataset(sb, 'wait-ds');
		const result = await run(simpleParams(datasetId, { waitForCompletion: true }));
		expect(result.error).toBeUndefined();
		const json = result.items[0].json;
		const job = sb.state().jobs[0];
		const base = `${sb.urls.files}/files/train/${job.id}`;
		expect(json).toMatchObject({
			job_id: job.id,
			status: 'succeeded',
			service_status: 'STOPPED',
			finished: true,
			progress: { current: 40, total: 40, percent: 100 },
			latest_checkpoint_url: `${base}/p3r5on_v1.safetensors`,
			lora: { path: `${base}/p3r5on_v1.safetensors` },
			checkpoint_urls: [10, 20, 30]
				.map((s) => `${base}/p3r5on_v1_${String(s).padStart(9, '0')}.safetensors`)
				.concat(`${base}/p3r5on_v1.safetensors`),
		});
		expect(json.artifact_urls).toEqual(expect.arrayContaining([{ path: 'artifacts.config.path', url: `${base}/config.yaml` }]));
		expect((json.sample_urls as string[]).length).toBe(8);
		expect(result.items[0].binary).toBeUndefined();
		expect(sb.log().filter((e) => e.api === 'files')).toHaveLength(0);
	});

	it('polls where the last step ends at the pace the job reports, not on the backoff (loading and all)', async () => {
		// 0.3 s loading at step 0, then 400 steps of 10 ms: the end comes 4.3 s after the start. The backoff's
		// polls (0.4 s growing ×1.5) land at about 0.4, 1, 1.9, 3.25 and 5.3 s; the pace seen by the third and
		// fourth puts a poll just after 4.3 s instead.
		sb.configure({ trainingStepMs: 10, trainingLoadMs: 300 });
		const datasetId = await readyDataset(sb, 'pace-ds');
		// The waits the node asks for (not the times its polls happened to land, which a loaded machine delays).
		const sleeps: number[] = [];
		const sleep = realClock.sleep.bind(realClock);
		const spy = jest.spyOn(realClock, 'sleep').mockImplementation(async (ms, signal) => {
			sleeps.push(ms);
			await sleep(ms, signal);
		});
		let result;
		try {
			result = await run(
				simpleParams(datasetId, {
					steps: 400,
					waitForCompletion: true,
					waitOptions: { pollIntervalSeconds: 0.4, maxPollIntervalSeconds: 60 },
				}),
			);
		} finally {
			spy.mockRestore();
		}
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toMatchObject({ status: 'succeeded', progress: { current: 400, total: 400 } });
		// The backoff alone waits the first interval before the first poll and again (jittered) after it, then asks
		// for each wait ×1.5 the last (±10 % jitter: at least ×1.23; its cap of 60 s is never reached here). A wait
		// after the second shorter than the one before can only be the step forecast's.
		expect(sleeps.length).toBeGreaterThanOrEqual(4);
		expect(sleeps.some((ms, k) => k > 1 && ms < sleeps[k - 1])).toBe(true);
	});

	it('downloads the latest checkpoint and the samples when asked, through the shared download path', async () => {
		const datasetId = await readyDataset(sb, 'dl-ds');
		const result = await run(
			simpleParams(datasetId, {
				waitForCompletion: true,
				downloadOutputs: true,
				artifactsToDownload: ['latestCheckpoint', 'samples'],
				samplePrompts: 'one',
			}),
		);
		expect(result.error).toBeUndefined();
		const binary = result.items[0].binary ?? {};
		const names = Object.values(binary).map((b) => b.fileName);
		expect(names[0]).toBe('p3r5on_v1.safetensors');
		expect(names).toHaveLength(1 + 4);
		const downloads = sb.log().filter((e) => e.api === 'files');
		expect(downloads.every((e) => e.authorization === undefined)).toBe(true);
		expect((await result.readBinary(result.items[0], 'data')).length).toBeGreaterThan(0);
	});

	it("fails with the job's error and its id when training fails; Continue on Fail keeps the id", async () => {
		const datasetId = await readyDataset(sb, 'fail-ds');
		const result = await run(simpleParams(datasetId, { jobName: 'will_fail', waitForCompletion: true }));
		const job = sb.state().jobs[0];
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe(
			`Training job ${job.id} failed: RuntimeError: CUDA out of memory while training 'will_fail'. Tried to allocate 2.00 GiB.`,
		);
		expect(result.error?.description).toMatch(/Edit with the same config.name\), then Resume/);

		const continued = await run(simpleParams(datasetId, { jobName: 'will_fail_again', waitForCompletion: true }), { continueOnFail: true });
		expect(continued.items[0].json).toMatchObject({ job_id: sb.state().jobs[1].id, status: 'failed', service_status: 'FAILED' });
		expect(continued.items[0].json.error).toMatch(/CUDA out of memory/);
	});

	it('on timeout fails naming the job (which keeps running), or returns it as still running; never cancels', async () => {
		sb.configure({ trainingStepMs: 1000 });
		const datasetId = await readyDataset(sb, 'slow-train');
		const short = { ...FAST_WAIT, maxWaitSeconds: 0.2 };
		const failed = await run(simpleParams(datasetId, { waitForCompletion: true, waitOptions: { ...short, onTimeout: 'fail' } }));
		const job = sb.state().jobs[0];
		expect(failed.error?.message).toMatch(new RegExp(`^Training job ${job.id} did not finish within 0.2 s \\(status: (running|queued)\\)`));
		expect(failed.error?.description).toMatch(/keeps going on RunComfy/);
		const still = await run(
			simpleParams(datasetId, { jobName: 'second', waitForCompletion: true, waitOptions: { ...short, onTimeout: 'returnRunning' } }),
		);
		expect(still.items[0].json).toMatchObject({ job_id: sb.state().jobs[1].id, still_running: true });
		expect(sb.log().filter(isJobCall('cancel'))).toHaveLength(0);
		expect(sb.state().jobs.map((j) => j.status)).toEqual(['RUNNING', 'RUNNING']);
	});

	it('Stop only stops watching: the training job is not cancelled', async () => {
		sb.configure({ trainingStepMs: 1000 });
		const datasetId = await readyDataset(sb, 'stop-ds');
		const result = await run(simpleParams(datasetId, { waitForCompletion: true, waitOptions: { ...FAST_WAIT, maxWaitSeconds: 60 } }), {
			onStart: (stop) => {
				void until(
					() => sb.log().some((e) => e.method === 'GET' && e.path.endsWith('/status') && e.path.includes('/jobs/')),
					'a status poll',
				).then(stop);
			},
		});
		expect(result.stopped).toBe(true);
		expect(sb.log().filter(isJobCall('cancel'))).toHaveLength(0);
		expect(sb.state().jobs[0].status).toBe('RUNNING');
	});
});
