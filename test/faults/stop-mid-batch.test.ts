/**
 * Stopping an execution mid-batch (the editor's Stop button, via the harness's stop()): every queued run is
 * cancelled on the service, runs already in progress are reported as not cancellable, nothing is fetched or
 * submitted after the stop. Proven from the sandbox's request log and its state. Training jobs are the
 * exception by design: Stop only stops watching them, never cancels them.
 */

import { RunComfyDeployment } from '../../nodes/RunComfyDeployment/RunComfyDeployment.node';
import { RunComfyModel } from '../../nodes/RunComfyModel/RunComfyModel.node';
import { RunComfyTraining } from '../../nodes/RunComfyTraining/RunComfyTraining.node';
import { runNode } from '../helpers/engine';
import type { RunNodeOptions, RunNodeResult } from '../helpers/engine';
import {
	credentialsFor,
	exposedBy,
	flashPromptRun,
	isDeploymentCancel,
	isInference,
	isModelCancel,
	isModelResult,
	isModelStatus,
	isModelSubmit,
	isTrainingPaid,
	leaksOf,
	readyDataset,
	requestIdIn,
	until,
	untilOrEnded,
	useFaultSandbox,
} from '../helpers/faults-setup';

const PRICE_MICRO = 40_000;
const WALLET = 50_000_000;
const WAIT = { pollIntervalSeconds: 0.05, maxPollIntervalSeconds: 0.1, maxWaitSeconds: 120 };

// Short backoff and enough attempts that reads survive 35 % failures; the rules (what may be retried) are unchanged.
const sb = useFaultSandbox();

const modelRun = (n: number): ReturnType<typeof flashPromptRun> => flashPromptRun(n, WAIT);

/**
 * Runs the node and presses Stop once `ready()` holds on the sandbox; fails when the execution ended before that.
 * No time limit: on a slow machine the node gets there later (a node that never does meets jest's test timeout).
 */
async function runStoppedWhen(options: RunNodeOptions, ready: () => boolean, what: string): Promise<RunNodeResult> {
	const started: { stop?: () => void } = {};
	const execution = runNode({
		...options,
		onStart: (stop) => {
			started.stop = stop;
		},
	});
	if (!(await untilOrEnded(() => started.stop !== undefined && ready(), execution))) throw new Error(`The execution ended before ${what}`);
	started.stop?.();
	return await execution;
}

/** Every one of `n` runs was submitted and polled at least once (the node is demonstrably waiting). */
function allWaiting(n: number, isSubmit = isModelSubmit, isPoll = isModelStatus) {
	return () => {
		const log = sb.log();
		const ids = log.filter((e) => isSubmit(e) && e.createdId).map((e) => e.createdId as string);
		const polled = new Set(log.filter((e) => isPoll(e) && e.status === 200).map(requestIdIn));
		return ids.length === n && ids.every((id) => polled.has(id));
	};
}

describe('Model → Run, stopped while waiting for a batch', () => {
	it('cancels every queued run on the service; in-progress runs are reported not_cancellable', async () => {
		const N = 24;
		const WORKERS = 4;
		// WORKERS runs execute, the rest wait in the queue for a minute.
		sb.reset({ runDurationMs: 60_000, queueMs: 0, workers: WORKERS, walletMicrodollars: WALLET });
		const result = await runStoppedWhen(
			{ node: new RunComfyModel(), credentials: credentialsFor(sb), ...modelRun(N) },
			allWaiting(N),
			`all ${N} runs were submitted and polled`,
		);
		expect(result.stopped).toBe(true);
		const stoppedAt = Math.max(
			...sb
				.log()
				.filter(isModelStatus)
				.map((e) => e.seq),
		);
		await until(() => sb.log().filter((e) => isModelCancel(e) && e.status === 202).length >= N, 'a cancel for every run');

		const log = sb.log();
		const ids = log.filter(isModelSubmit).map((e) => e.createdId as string);
		expect(ids).toHaveLength(N);
		// Exactly one cancel POST per submitted run, all answered.
		const cancels = log.filter(isModelCancel);
		expect(cancels.map(requestIdIn).sort()).toEqual([...ids].sort());
		expect(cancels.every((e) => e.status === 202)).toBe(true);

		// On the service: the runs that were executing go on, every queued one is cancelled (and refunded).
		const state = new Map(sb.state().runs.map((r) => [r.id, r.status]));
		const running = ids.filter((id) => state.get(id) === 'in_progress');
		const cancelled = ids.filter((id) => state.get(id) === 'cancelled');
		expect(running).toHaveLength(WORKERS);
		expect(cancelled).toHaveLength(N - WORKERS);
		expect(sb.state().walletMicrodollars).toBe(WALLET - WORKERS * PRICE_MICRO);

		// What the node reported for each item: its request id, that it was stopped, and the cancel outcome.
		expect(result.items).toHaveLength(N);
		result.items.forEach((item, i) => {
			expect(item.pairedItem).toEqual({ item: i });
			expect(item.json.stopped).toBe(true);
			const id = String(item.json.request_id);
			expect(ids).toContain(id);
			expect(item.json.cancel_outcome).toBe(running.includes(id) ? 'not_cancellable' : 'cancelled');
		});
		// After the stop: no result fetch, no further submit.
		expect(log.filter(isModelResult)).toHaveLength(0);
		expect(log.filter((e) => isModelSubmit(e) && e.seq > stoppedAt)).toHaveLength(0);
		expect(leaksOf(exposedBy(result), sb.token)).toEqual([]);
	});

	it('the cancels go through although the cancel and status endpoints answer 500s, 429s and drop connections', async () => {
		const N = 12;
		const WORKERS = 2;
		sb.reset({
			runDurationMs: 60_000,
			queueMs: 0,
			workers: WORKERS,
			walletMicrodollars: WALLET,
			faults: { rate5xx: 0.25, rate429: 0.1, retryAfterSeconds: 0, rateDrop: 0.1, pathPrefixes: ['/v1/requests/'], seed: 5 },
		});
		const result = await runStoppedWhen(
			{ node: new RunComfyModel(), credentials: credentialsFor(sb), ...modelRun(N) },
			allWaiting(N),
			`all ${N} runs were submitted and polled`,
		);
		expect(result.stopped).toBe(true);
		const answered = () =>
			new Set(
				sb
					.log()
					.filter((e) => isModelCancel(e) && e.status === 202)
					.map(requestIdIn),
			);
		await until(() => answered().size >= N, 'an answered cancel for every run');

		const log = sb.log();
		const ids = log.filter(isModelSubmit).map((e) => e.createdId as string);
		expect(ids).toHaveLength(N);
		// Some cancel attempts were hit by faults and retried (a cancel is not a paid call).
		expect(log.filter((e) => isModelCancel(e) && e.fault && e.fault !== 'slow').length).toBeGreaterThan(0);
		expect([...answered()].sort()).toEqual([...ids].sort());
		const state = new Map(sb.state().runs.map((r) => [r.id, r.status]));
		expect(ids.filter((id) => state.get(id) === 'cancelled')).toHaveLength(N - WORKERS);
		expect(ids.filter((id) => state.get(id) === 'in_progress')).toHaveLength(WORKERS);
		expect(result.items.filter((i) => i.json.cancel_outcome === 'cancelled')).toHaveLength(N - WORKERS);
		expect(result.items.filter((i) => i.json.cancel_outcome === 'not_cancellable')).toHaveLength(WORKERS);
	});
});

describe('Deployment → Inference → Run, stopped while waiting', () => {
	const isDeploymentStatus = (e: { api: string; method: string; path: string }) =>
		e.api === 'serverless' && e.method === 'GET' && /\/requests\/[^/]+\/status$/.test(e.path);

	it('every request (queued or running) gets a cancel; with the live "cancellation_requested" answer they end cancelled', async () => {
		const N = 6;
		sb.reset({
			runDurationMs: 60_000,
			queueMs: 0,
			workers: 1,
			walletMicrodollars: WALLET,
			cancelDelayMs: 50,
			quirks: { deploymentCancelRequested: true },
		});
		const deploymentId = sb.stable.deployments.textToImage;
		const result = await runStoppedWhen(
			{
				node: new RunComfyDeployment(),
				credentials: credentialsFor(sb),
				inputItems: Array.from({ length: N }, (_, i) => ({ json: { prompt: `item ${i}` } })),
				parameters: {
					resource: 'inference',
					operation: 'run',
					deploymentId: { __rl: true, mode: 'id', value: deploymentId },
					inputMode: 'json',
					overridesJson: '={{ JSON.stringify({ "6": { "inputs": { "text": $json.prompt } } }) }}',
					downloadOutputs: false,
					waitOptions: WAIT,
				},
			},
			allWaiting(N, isInference, isDeploymentStatus),
			`all ${N} requests were submitted and polled`,
		);
		expect(result.stopped).toBe(true);
		const ids = sb
			.log()
			.filter(isInference)
			.map((e) => e.createdId as string);
		expect(ids).toHaveLength(N);
		await until(() => new Set(sb.log().filter(isDeploymentCancel).map(requestIdIn)).size >= N, 'a cancel for every request');
		expect(sb.log().filter(isDeploymentCancel).map(requestIdIn).sort()).toEqual([...ids].sort());
		// The service turns "cancellation_requested" into "cancelled" shortly after; nothing keeps running.
		await until(
			() => ids.every((id) => sb.state().runs.find((r) => r.id === id)?.status === 'cancelled'),
			'every request cancelled on the service',
		);
		expect(result.items).toHaveLength(N);
		for (const item of result.items) {
			expect(item.json.stopped).toBe(true);
			expect(ids).toContain(item.json.request_id);
			expect(item.json.cancel_outcome).toBe('cancellation_requested');
		}
		expect(sb.log().filter((e) => e.api === 'serverless' && /\/result$/.test(e.path))).toHaveLength(0);
	});
});

describe('Training → Submit with Wait, stopped while waiting', () => {
	it('stops watching only: no cancel is sent and the jobs keep running', async () => {
		sb.reset({ trainingStepMs: 60_000, trainingQueueMs: 0, datasetReadyMs: 10, walletMicrodollars: WALLET });
		const dataset = await readyDataset(sb, 'stop-test-set');
		sb.clearLog();
		const N = 2;
		const isJobStatus = (e: { api: string; method: string; path: string }) =>
			e.api === 'trainer' && e.method === 'GET' && /\/ai-toolkit\/jobs\/[^/]+\/status$/.test(e.path);
		const result = await runStoppedWhen(
			{
				node: new RunComfyTraining(),
				credentials: credentialsFor(sb),
				inputItems: Array.from({ length: N }, (_, i) => ({ json: { name: `stop_job_${i}` } })),
				parameters: {
					resource: 'trainingJob',
					operation: 'submit',
					configMode: 'simple',
					jobName: '={{ $json.name }}',
					dataset: { __rl: true, mode: 'id', value: dataset.id },
					steps: 100,
					waitForCompletion: true,
					waitOptions: WAIT,
				},
			},
			() => {
				const log = sb.log();
				const jobs = log.filter((e) => isTrainingPaid(e) && e.createdId).map((e) => e.createdId as string);
				const polled = new Set(log.filter((e) => isJobStatus(e) && e.status === 200).map((e) => e.path.split('/')[6]));
				return jobs.length === N && jobs.every((id) => polled.has(id));
			},
			'both jobs were submitted and polled',
		);
		expect(result.stopped).toBe(true);
		const log = sb.log();
		expect(log.filter((e) => e.api === 'trainer' && /\/cancel$/.test(e.path))).toHaveLength(0);
		const jobs = sb.state().jobs;
		expect(jobs).toHaveLength(N);
		for (const job of jobs) expect(['IN_QUEUE', 'RUNNING']).toContain(job.status);
		expect(result.items).toHaveLength(N);
		for (const item of result.items) {
			expect(item.json.still_running).toBe(true);
			expect(jobs.map((j) => j.id)).toContain(item.json.job_id);
		}
	});
});
