/**
 * One vocabulary for the `status` of every output item of runs, requests and training jobs (nodes/shared/status.ts):
 * queued, running, completed, succeeded, failed, cancelled, cancelling, stopped; the service's own word, where it
 * differs, in `service_status`. Datasets keep the service's words (DRAFT, UPLOADING, READY, FAILED). Checked on
 * the outputs of every node's run and lookup operations in the states the sandbox can produce, and the
 * cancel-on-timeout case: a queued run cancelled by On Timeout = Cancel is `cancelled`, never still "queued".
 */
import type { IDataObject, INodeExecutionData, INodeParameters, INodeType } from 'n8n-workflow';

import { RunComfyDataset } from '../../nodes/RunComfyDataset/RunComfyDataset.node';
import { RunComfyDeployment } from '../../nodes/RunComfyDeployment/RunComfyDeployment.node';
import { RunComfyModel } from '../../nodes/RunComfyModel/RunComfyModel.node';
import { RunComfyTraining } from '../../nodes/RunComfyTraining/RunComfyTraining.node';
import { runNode } from '../helpers/engine';
import type { InputItem } from '../helpers/engine';
import { STABLE, credentialsFor, direct, readyDataset, trainingConfig, until, useFaultSandbox } from '../helpers/faults-setup';

const VOCABULARY = ['queued', 'running', 'completed', 'succeeded', 'failed', 'cancelled', 'cancelling', 'stopped'];
const DATASET_WORDS = ['DRAFT', 'UPLOADING', 'READY', 'FAILED'];
const WAIT = { pollIntervalSeconds: 0.02, maxPollIntervalSeconds: 0.05, maxWaitSeconds: 20 };
const SHORT = { ...WAIT, maxWaitSeconds: 0.3 };

const sb = useFaultSandbox();
beforeEach(() =>
	sb.reset({ runDurationMs: 30, queueMs: 0, trainingStepMs: 1, trainingQueueMs: 0, datasetReadyMs: 10, walletMicrodollars: 50_000_000 }),
);

/** Every status seen, so each test can show it met the states it meant to. */
async function outputs(node: INodeType, parameters: INodeParameters, inputItems?: InputItem[]): Promise<INodeExecutionData[]> {
	const result = await runNode({ node, credentials: credentialsFor(sb), parameters, inputItems, continueOnFail: true });
	expect(result.status).toBe('success');
	return result.items;
}

function expectVocabulary(items: INodeExecutionData[]): string[] {
	const seen: string[] = [];
	for (const { json } of items) {
		if (json.status === undefined) continue;
		expect(VOCABULARY).toContain(json.status);
		if (json.service_status !== undefined) expect(typeof json.service_status).toBe('string');
		seen.push(String(json.status));
	}
	return seen;
}

const model = new RunComfyModel();
const modelRun = (extra: INodeParameters = {}): INodeParameters => ({
	resource: 'model',
	operation: 'run',
	model: { __rl: true, mode: 'id', value: '={{ $json.model }}' },
	inputMode: 'json',
	inputsJson: '{"prompt": "x"}',
	downloadOutputs: false,
	waitOptions: WAIT,
	...extra,
});

describe('the status vocabulary of every node', () => {
	it('Model: run, no wait, timeout, failure, Get Status, Get Result, Cancel', async () => {
		const items = [{ json: { model: STABLE.flash } }, { json: { model: STABLE.fails } }];
		const seen = [...expectVocabulary(await outputs(model, modelRun(), items))];
		seen.push(...expectVocabulary(await outputs(model, modelRun({ waitForCompletion: false }), items)));
		sb.configure({ runDurationMs: 60_000, workers: 1 });
		const slow = await outputs(model, modelRun({ waitOptions: { ...SHORT, onTimeout: 'returnRunning' } }), items);
		seen.push(...expectVocabulary(slow));
		const ids = slow.map((i) => String(i.json.request_id));
		for (const operation of ['getStatus', 'getResult', 'cancel']) {
			seen.push(
				...expectVocabulary(
					await outputs(
						model,
						{ resource: 'model', operation, requestId: '={{ $json.id }}', downloadOutputs: false },
						ids.map((id) => ({ json: { id } })),
					),
				),
			);
		}
		sb.configure({ runDurationMs: 30, workers: 0 });
		const done = await outputs(model, modelRun(), [{ json: { model: STABLE.flash } }]);
		seen.push(
			...expectVocabulary(await outputs(model, { resource: 'model', operation: 'getStatus', requestId: String(done[0].json.request_id) })),
		);
		expect(new Set(seen)).toEqual(new Set(['succeeded', 'failed', 'queued', 'running', 'cancelled', 'completed']));
	});

	it('Deployment: inference run, no wait, Get Status, Get Result, Cancel', async () => {
		const deployment = new RunComfyDeployment();
		const id = sb.stable.deployments.textToImage;
		sb.configure({ failingModels: { [sb.stable.deployments.imageToImage]: 'out of memory' } });
		const run = (extra: INodeParameters = {}): INodeParameters => ({
			resource: 'inference',
			operation: 'run',
			deploymentId: { __rl: true, mode: 'id', value: '={{ $json.deployment }}' },
			inputMode: 'json',
			overridesJson: '{"6": {"inputs": {"text": "x"}}}',
			downloadOutputs: false,
			waitOptions: WAIT,
			...extra,
		});
		const items = [{ json: { deployment: id } }, { json: { deployment: sb.stable.deployments.imageToImage } }];
		const seen = [...expectVocabulary(await outputs(deployment, run(), items))];
		const queued = await outputs(deployment, run({ waitForCompletion: false }), items);
		seen.push(...expectVocabulary(queued));
		for (const operation of ['getStatus', 'getResult', 'cancel']) {
			const lookups = queued.map((i) => ({ json: { id: i.json.request_id, deployment: i.json.deployment_id } }));
			const parameters = {
				resource: 'inference',
				operation,
				deploymentId: { __rl: true, mode: 'id', value: '={{ $json.deployment }}' },
				requestId: '={{ $json.id }}',
				downloadOutputs: false,
			};
			seen.push(...expectVocabulary(await outputs(deployment, parameters, lookups)));
		}
		expect(seen).toEqual(expect.arrayContaining(['succeeded', 'failed', 'queued']));
	});

	it('Training: submit, Get Status and Get Result (running, stopped early, finished), Cancel', async () => {
		const training = new RunComfyTraining();
		const dataset = await readyDataset(sb, 'vocabulary-set');
		const submit = (name: string, steps: number) => ({ json: { config: trainingConfig(name, dataset.name, steps, 10) } });
		sb.configure({ trainingStepMs: 5 });
		const submitted = await outputs(
			training,
			{
				resource: 'trainingJob',
				operation: 'submit',
				configMode: 'text',
				configText: '={{ JSON.stringify($json.config) }}',
				configFormat: 'json',
			},
			[submit('preempt_job', 20), submit('long_job', 100_000), submit('short_job', 4)],
		);
		const seen = [...expectVocabulary(submitted)];
		const ids = submitted.map((i) => String(i.json.job_id));
		await until(
			() => ['STOPPED', 'RUNNING', 'STOPPED'].every((s, i) => sb.state().jobs.find((j) => j.id === ids[i])?.status === s),
			'jobs stopped, running, finished',
		);
		const lookups = ids.map((jobId) => ({ json: { jobId } }));
		for (const operation of ['getStatus', 'getResult', 'cancel']) {
			seen.push(
				...expectVocabulary(
					await outputs(training, { resource: 'trainingJob', operation, jobId: '={{ $json.jobId }}', artifactsToDownload: [] }, lookups),
				),
			);
		}
		expect(new Set(seen)).toEqual(new Set(['running', 'stopped', 'succeeded', 'cancelled']));
	});

	it("Dataset: keeps the service's words (DRAFT, UPLOADING, READY, FAILED)", async () => {
		const node = new RunComfyDataset();
		const draft = String((await direct(sb, 'trainer', 'POST', '/prod/v1/trainers/datasets', { name: 'vocab-draft' })).body.id);
		const ready = await readyDataset(sb, 'vocab-ready');
		const items = await outputs(
			node,
			{ resource: 'dataset', operation: 'getStatus', dataset: { __rl: true, mode: 'id', value: '={{ $json.id }}' } },
			[{ json: { id: draft } }, { json: { id: ready.id } }],
		);
		expect(items.map((i) => i.json.status)).toEqual(['DRAFT', 'READY']);
		for (const item of items) expect(DATASET_WORDS).toContain(item.json.status);
	});
});

describe('On Timeout = Cancel the Run: the status comes from the cancel answer', () => {
	it('Model: the queued run cancelled at the timeout is "cancelled", not still queued; the running one is "running"', async () => {
		sb.configure({ runDurationMs: 60_000, workers: 1 });
		const items = await outputs(model, modelRun({ waitOptions: { ...SHORT, onTimeout: 'cancel' } }), [
			{ json: { model: STABLE.flash } },
			{ json: { model: STABLE.flash } },
		]);
		const [running, queued] = items.map((i) => i.json as IDataObject);
		expect(queued).toMatchObject({ timed_out: true, cancel_outcome: 'cancelled', still_running: false, status: 'cancelled' });
		expect(running).toMatchObject({
			timed_out: true,
			cancel_outcome: 'not_cancellable',
			still_running: true,
			status: 'running',
			service_status: 'in_progress',
		});
		expect(sb.state().runs.find((r) => r.id === queued.request_id)?.status).toBe('cancelled');
	});

	it('Deployment: the request cancelled at the timeout is "cancelled"', async () => {
		sb.configure({ runDurationMs: 60_000, queueMs: 60_000 });
		const items = await outputs(new RunComfyDeployment(), {
			resource: 'inference',
			operation: 'run',
			deploymentId: { __rl: true, mode: 'id', value: sb.stable.deployments.textToImage },
			inputMode: 'json',
			overridesJson: '{"6": {"inputs": {"text": "x"}}}',
			downloadOutputs: false,
			waitOptions: { ...SHORT, onTimeout: 'cancel' },
		});
		expect(items[0].json).toMatchObject({ timed_out: true, cancel_outcome: 'cancelled', still_running: false, status: 'cancelled' });
	});
});
