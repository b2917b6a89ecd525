/**
 * Stop pressed while paid submissions are on the wire (the sandbox creates each run at once and answers 1.5 s
 * later, so four submits are demonstrably in flight). A paid request is not aborted by Stop: it ends with its
 * answer (or its own timeout), the flow waits a bounded grace for it, then cancels what was accepted where the
 * kind cancels on Stop. Proven from the sandbox: every run created is in the output with its id, the queued
 * ones are cancelled (and refunded), nothing is dropped and nothing is submitted after Stop.
 */
import type { IDataObject } from 'n8n-workflow';

import { RunComfyDeployment } from '../../nodes/RunComfyDeployment/RunComfyDeployment.node';
import { RunComfyModel } from '../../nodes/RunComfyModel/RunComfyModel.node';
import { RunComfyTraining } from '../../nodes/RunComfyTraining/RunComfyTraining.node';
import { runNode } from '../helpers/engine';
import type { RunNodeResult } from '../helpers/engine';
import type { RequestLogEntry } from '../../sandbox';
import {
	credentialsFor,
	flashPromptRun,
	isDeploymentCancel,
	isInference,
	isModelCancel,
	isModelSubmit,
	isTrainingPaid,
	readyDataset,
	requestIdIn,
	trainingConfig,
	until,
	useFaultSandbox,
} from '../helpers/faults-setup';

const WALLET = 50_000_000;
const WAIT = { pollIntervalSeconds: 0.05, maxPollIntervalSeconds: 0.1, maxWaitSeconds: 120 };
/** Six items, four submitted at once (the flow's bound): Stop finds four on the wire and two not yet sent. */
const N = 6;
const IN_FLIGHT = 4;
/**
 * Paid POSTs create their run at once and answer this much later: long enough for all four to be seen in flight on
 * a loaded machine, well within the 10 s Stop waits for answers.
 */
const SLOW_ANSWER = { rateSlow: 1, slowMs: 4000, paidFaultTiming: 'after' as const, methods: ['POST'] };

const sb = useFaultSandbox();

/** Set when the submits Stop waits for never came (the stop then happens anyway, and the test fails). */
let stopProblem: Error | undefined;

/** Presses Stop once `count` paid submits were received and none of them has been answered yet. */
function stopWithSubmitsInFlight(isSubmit: (e: RequestLogEntry) => boolean, count: number) {
	stopProblem = undefined;
	return (stop: () => void) => {
		const inFlight = () => sb.log().filter((e) => isSubmit(e) && e.createdId && e.status === 0);
		void until(() => inFlight().length >= count, `${count} submits in flight`).then(
			() => {
				// All of them still unanswered at the moment of Stop.
				if (inFlight().length !== count) stopProblem = new Error('a submit was answered before Stop');
				stop();
			},
			(error: Error) => {
				stopProblem = error;
				stop();
			},
		);
	};
}

/** What every variant asserts: the accepted ids are all in the output, the rest says it was not submitted. */
function expectEveryAcceptedIdReported(result: RunNodeResult, createdIds: string[], idField: string): IDataObject[] {
	expect(stopProblem).toBeUndefined();
	expect(result.stopped).toBe(true);
	expect(result.error).toBeUndefined();
	expect(createdIds).toHaveLength(IN_FLIGHT);
	expect(result.items).toHaveLength(N);
	result.items.forEach((item, i) => expect(item.pairedItem).toEqual({ item: i }));
	const withId = result.items.filter((item) => item.json[idField] !== undefined).map((item) => item.json);
	expect(withId.map((json) => json[idField]).sort()).toEqual([...createdIds].sort());
	for (const json of withId) expect(json.stopped).toBe(true);
	const notSent = result.items.filter((item) => item.json[idField] === undefined);
	expect(notSent).toHaveLength(N - IN_FLIGHT);
	for (const item of notSent) expect(item.json).toMatchObject({ stopped: true, submitted: false });
	return withId;
}

describe('Stop while paid submissions are in flight', () => {
	it('Model → Run: the four accepted runs are reported and cancelled, the two not sent say so', async () => {
		sb.reset({
			runDurationMs: 60_000,
			queueMs: 60_000,
			walletMicrodollars: WALLET,
			faults: { ...SLOW_ANSWER, pathPrefixes: ['/v1/models/'] },
		});
		const result = await runNode({
			node: new RunComfyModel(),
			credentials: credentialsFor(sb),
			...flashPromptRun(N, WAIT),
			onStart: stopWithSubmitsInFlight(isModelSubmit, IN_FLIGHT),
		});
		const submits = sb.log().filter(isModelSubmit);
		const ids = submits.map((e) => e.createdId as string);
		// The submits were answered (not cut off by Stop), and nothing was submitted after it.
		expect(submits.map((e) => e.status)).toEqual(Array(IN_FLIGHT).fill(200));
		const reported = expectEveryAcceptedIdReported(result, ids, 'request_id');
		for (const json of reported) expect(json.cancel_outcome).toBe('cancelled');

		// Every accepted (queued) run was cancelled on the service and refunded.
		expect(sb.log().filter(isModelCancel).map(requestIdIn).sort()).toEqual([...ids].sort());
		for (const id of ids) expect(sb.state().runs.find((r) => r.id === id)?.status).toBe('cancelled');
		expect(sb.state().walletMicrodollars).toBe(WALLET);
	});

	it('Deployment → Inference → Run: the four accepted requests are reported and cancelled', async () => {
		sb.reset({
			runDurationMs: 60_000,
			queueMs: 60_000,
			walletMicrodollars: WALLET,
			// The inference path only: a slow cancel would add its delay to the test and prove nothing more.
			faults: {
				...SLOW_ANSWER,
				pathPrefixes: ['v1', 'v2'].map((v) => `/prod/${v}/deployments/${sb.stable.deployments.textToImage}/inference`),
			},
		});
		const result = await runNode({
			node: new RunComfyDeployment(),
			credentials: credentialsFor(sb),
			inputItems: Array.from({ length: N }, (_, i) => ({ json: { prompt: `item ${i}` } })),
			parameters: {
				resource: 'inference',
				operation: 'run',
				deploymentId: { __rl: true, mode: 'id', value: sb.stable.deployments.textToImage },
				inputMode: 'json',
				overridesJson: '={{ JSON.stringify({ "6": { "inputs": { "text": $json.prompt } } }) }}',
				downloadOutputs: false,
				waitOptions: WAIT,
			},
			onStart: stopWithSubmitsInFlight(isInference, IN_FLIGHT),
		});
		const ids = sb
			.log()
			.filter(isInference)
			.map((e) => e.createdId as string);
		const reported = expectEveryAcceptedIdReported(result, ids, 'request_id');
		for (const json of reported) expect(json.cancel_outcome).toBe('cancelled');
		await until(() => new Set(sb.log().filter(isDeploymentCancel).map(requestIdIn)).size >= IN_FLIGHT, 'a cancel per request');
		expect(sb.log().filter(isDeploymentCancel).map(requestIdIn).sort()).toEqual([...ids].sort());
		for (const id of ids) expect(sb.state().runs.find((r) => r.id === id)?.status).toBe('cancelled');
	});

	it('Training → Submit: the accepted job is reported and keeps running (Stop only stops watching)', async () => {
		sb.reset({ trainingStepMs: 60_000, trainingQueueMs: 0, datasetReadyMs: 10, walletMicrodollars: WALLET });
		const dataset = await readyDataset(sb, 'stop-submit-set');
		sb.configure({ faults: { ...SLOW_ANSWER, pathPrefixes: ['/prod/v1/trainers/ai-toolkit/jobs'] } });
		sb.clearLog();
		// Training jobs are submitted one at a time: Stop finds one on the wire.
		const result = await runNode({
			node: new RunComfyTraining(),
			credentials: credentialsFor(sb),
			inputItems: Array.from({ length: 3 }, (_, i) => ({ json: { config: trainingConfig(`stop_job_${i}`, dataset.name, 100, 50) } })),
			parameters: {
				resource: 'trainingJob',
				operation: 'submit',
				configMode: 'text',
				configText: '={{ JSON.stringify($json.config) }}',
				configFormat: 'json',
				waitForCompletion: true,
				waitOptions: WAIT,
			},
			onStart: stopWithSubmitsInFlight(isTrainingPaid, 1),
		});
		expect(stopProblem).toBeUndefined();
		expect(result.stopped).toBe(true);
		const jobs = sb.state().jobs;
		expect(jobs).toHaveLength(1);
		expect(
			sb
				.log()
				.filter(isTrainingPaid)
				.map((e) => e.status),
		).toEqual([200]);
		expect(result.items).toHaveLength(3);
		expect(result.items[0].json).toMatchObject({ job_id: jobs[0].id, stopped: true, still_running: true });
		for (const item of result.items.slice(1)) expect(item.json).toMatchObject({ stopped: true, submitted: false });
		expect(sb.log().filter((e) => e.api === 'trainer' && /\/cancel$/.test(e.path))).toHaveLength(0);
	});
});
