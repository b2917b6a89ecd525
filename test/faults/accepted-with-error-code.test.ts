/**
 * An accepted submission is recognised by its id: a 2xx answer that names a request id (job id, dataset id) is
 * the accepted, possibly paid submission even when it also carries an `error_code` (0 or a code). It is kept,
 * listed as paid and followed, and Retry On Fail (3 tries) never sends it again. Only an answer without an id
 * and with a refusal code is a refusal. For every paid POST and the dataset uploads, counted in the sandbox log.
 */
import type { IDataObject, INodeParameters, INodeType } from 'n8n-workflow';

import { RunComfyDataset } from '../../nodes/RunComfyDataset/RunComfyDataset.node';
import { RunComfyDeployment } from '../../nodes/RunComfyDeployment/RunComfyDeployment.node';
import { RunComfyModel } from '../../nodes/RunComfyModel/RunComfyModel.node';
import { RunComfyTraining } from '../../nodes/RunComfyTraining/RunComfyTraining.node';
import { runNode } from '../helpers/engine';
import type { InputItem, RunNodeResult } from '../helpers/engine';
import {
	credentialsFor,
	direct,
	flashPromptRun,
	isInference,
	isModelSubmit,
	isTrainingPaid,
	readyDataset,
	trainingConfig,
	until,
	useFaultSandbox,
} from '../helpers/faults-setup';

const RETRY = { retryOnFail: true, maxTries: 3, waitBetweenTries: 10 };
const WAIT = { pollIntervalSeconds: 0.02, maxPollIntervalSeconds: 0.05, maxWaitSeconds: 30 };

const sb = useFaultSandbox();
beforeEach(() => {
	sb.reset({ runDurationMs: 30, queueMs: 0, trainingStepMs: 2, trainingQueueMs: 0, datasetReadyMs: 20, walletMicrodollars: 50_000_000 });
});

async function retried(node: INodeType, parameters: INodeParameters, inputItems: InputItem[] = [{ json: {} }]): Promise<RunNodeResult> {
	return await runNode({ node, credentials: credentialsFor(sb), parameters, inputItems, nodeOverrides: RETRY, nodeName: 'Pay' });
}

/** The one submit the sandbox saw, its created id, and that the node's output and custom data name that id. */
function expectFollowedOnce(result: RunNodeResult, submits: Array<{ createdId?: string }>, idField: string): string {
	expect(result.error).toBeUndefined();
	expect(result.status).toBe('success');
	expect(submits).toHaveLength(1);
	const id = String(submits[0].createdId);
	expect(result.items.map((item) => String(item.json[idField]))).toEqual([id]);
	expect((result.run.data.resultData.metadata ?? {}).runcomfy_Pay).toBe(`0:${id}`);
	return id;
}

describe('a 2xx answer that names an id is the accepted submission, whatever error_code it carries', () => {
	it.each([0, 422001, 500001])('Model → Run, error_code %p beside the request id: followed to its result, submitted once', async (code) => {
		sb.configure({ faults: { acceptedErrorCode: code } });
		const result = await retried(new RunComfyModel(), flashPromptRun(1, WAIT).parameters, flashPromptRun(1, WAIT).inputItems);
		const id = expectFollowedOnce(result, sb.log().filter(isModelSubmit), 'request_id');
		expect(result.items[0].json.status).toBe('succeeded');
		expect(sb.log().some((e) => e.method === 'GET' && e.path === `/v1/requests/${id}/result`)).toBe(true);
	});

	it('Deployment → Inference → Run, error_code 0 beside the request id: followed, sent once', async () => {
		sb.configure({ faults: { acceptedErrorCode: 0 } });
		const result = await retried(new RunComfyDeployment(), {
			resource: 'inference',
			operation: 'run',
			deploymentId: { __rl: true, mode: 'id', value: sb.stable.deployments.textToImage },
			inputMode: 'json',
			overridesJson: JSON.stringify({ '6': { inputs: { text: 'a fox' } } }),
			downloadOutputs: false,
			waitOptions: WAIT,
		});
		expectFollowedOnce(result, sb.log().filter(isInference), 'request_id');
		expect(result.items[0].json.status).toBe('succeeded');
	});

	it('Training → Submit, error_code 0 beside the job id: one job, its id returned', async () => {
		const dataset = await readyDataset(sb, 'accepted-set');
		sb.configure({ faults: { acceptedErrorCode: 0 } });
		const result = await retried(new RunComfyTraining(), {
			resource: 'trainingJob',
			operation: 'submit',
			configMode: 'text',
			configText: JSON.stringify(trainingConfig('accepted_job', dataset.name, 20, 10)),
			configFormat: 'json',
			waitForCompletion: false,
		});
		expectFollowedOnce(result, sb.log().filter(isTrainingPaid), 'job_id');
		expect(sb.state().jobs).toHaveLength(1);
	});

	it('Training → Resume, error_code 0 beside the job id: resumed once', async () => {
		const dataset = await readyDataset(sb, 'resume-set');
		// "preempt" in the name: the job stops half-way, so it can be resumed.
		const submitted = await direct(sb, 'trainer', 'POST', '/prod/v1/trainers/ai-toolkit/jobs', {
			config_file_format: 'json',
			config_file: JSON.stringify(trainingConfig('preempt_job', dataset.name, 20, 10)),
			gpu_type: 'ADA_80_PLUS',
		});
		const jobId = String(submitted.body.job_id ?? submitted.body.id);
		await until(() => sb.state().jobs.every((j) => j.status === 'STOPPED'), 'the job stopped');
		sb.clearLog();
		sb.configure({ faults: { acceptedErrorCode: 0 }, trainingStepMs: 60_000 });
		const result = await retried(new RunComfyTraining(), { resource: 'trainingJob', operation: 'resume', jobId, waitForCompletion: false });
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.job_id)).toEqual([jobId]);
		expect(sb.log().filter(isTrainingPaid)).toHaveLength(1);
		expect((result.run.data.resultData.metadata ?? {}).runcomfy_Pay).toBe(`0:${jobId}`);
	});

	it('Dataset → Upload File, error_code 0 beside the dataset id: uploaded once', async () => {
		const dataset = String((await direct(sb, 'trainer', 'POST', '/prod/v1/trainers/datasets', { name: 'upload-set' })).body.id);
		sb.configure({ faults: { acceptedErrorCode: 0 } });
		const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
		const result = await retried(
			new RunComfyDataset(),
			{ resource: 'dataset', operation: 'uploadFile', dataset: { __rl: true, mode: 'id', value: dataset }, waitForCompletion: false },
			[{ json: {}, binary: { data: { data: png, mimeType: 'image/png', fileName: 'img_0.png' } } }],
		);
		expect(result.error).toBeUndefined();
		expect(result.items.map((item) => item.json.dataset_id)).toEqual([dataset]);
		expect(sb.log().filter((e) => e.api === 'trainer' && e.method === 'POST' && e.path.endsWith('/upload'))).toHaveLength(1);
	});

	it('a 2xx refusal without an id stays a refusal: nothing paid, and Retry On Fail sends it again', async () => {
		sb.configure({ quirks: { errorsAsHttp200: true }, walletMicrodollars: 0 });
		const result = await retried(new RunComfyModel(), flashPromptRun(1, WAIT).parameters, flashPromptRun(1, WAIT).inputItems);
		expect(result.status).toBe('error');
		expect(result.error?.message).toMatch(/^RunComfy API error \(\d+ \w+\)/);
		expect(
			sb
				.log()
				.filter(isModelSubmit)
				.map((e) => e.status),
		).toEqual([200, 200, 200]);
		expect(sb.state().runs).toHaveLength(0);
		expect((result.run.data.resultData.metadata ?? {}) as IDataObject).toEqual({});
	});
});
