import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { assertMinimumBalance } from '../../../shared/balanceGuard';
import { minimumBalanceOption, readWaitOptions, waitProperties } from '../../../shared/descriptions';
import { failedItem, toNodeError } from '../../../shared/router';
import { submitTrainingJob } from '../../../shared/transport';
import type { WatchedJob } from './common';
import { TRAINING_WAIT, artifactDownloadProperties, gpuProperties, readGpu, waitForJobs } from './common';
import type { PreparedConfig } from './config';
import { configTextProperties, datasetCatalog, prepareSimpleConfig, prepareTextConfig, simpleFormProperties } from './config';

const properties: INodeProperties[] = [
	{
		displayName: 'Config Source',
		name: 'configMode',
		type: 'options',
		default: 'simple',
		options: [
			{
				name: 'Simple Form',
				value: 'simple',
				description: 'Pick a base model and a dataset; the node writes a valid ai-toolkit config',
			},
			{ name: 'YAML or JSON Config', value: 'text', description: 'Paste or map a whole ai-toolkit config' },
		],
	},
	...simpleFormProperties({ configMode: ['simple'] }),
	...configTextProperties({ configMode: ['text'] }),
	...gpuProperties(),
	...waitProperties({}, TRAINING_WAIT).map((p, index) =>
		index === 0
			? {
					...p,
					default: false,
					description:
						'Whether to wait until training finishes (can take hours) and return the result with the checkpoint ready as `lora`. Stopping the execution only stops watching: the job keeps running.',
				}
			: p,
	),
	...artifactDownloadProperties({ waitForCompletion: [true] }),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [minimumBalanceOption],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['trainingJob'], operation: ['submit'] } }, properties);

function submissionFields(prepared: PreparedConfig, gpu: { gpuType: string; gpuCount: number }): IDataObject {
	const json: IDataObject = {
		name: prepared.name,
		gpu_type: gpu.gpuType,
		gpu_count: gpu.gpuCount,
		config_format: prepared.configFormat,
		datasets: prepared.datasetNames,
	};
	if (prepared.dataset) json.dataset = prepared.dataset;
	if (prepared.generated) json.config_file = prepared.configFile;
	if (prepared.warnings.length) json.warnings = prepared.warnings;
	return json;
}

/**
 * Submit is paid: every item is validated first (GPU rule, config paths, dataset READY), the minimum balance is
 * checked once, then jobs are submitted one by one, never retried. With Wait for Completion all jobs are watched
 * together.
 */
export async function executeBatch(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const out: Array<INodeExecutionData | undefined> = new Array(items.length);
	const catalog = datasetCatalog(this);
	const ready: Array<{ itemIndex: number; prepared: PreparedConfig; gpu: { gpuType: string; gpuCount: number } }> = [];

	// 1. Validate everything before spending anything.
	for (let i = 0; i < items.length; i++) {
		try {
			const gpu = readGpu(this, i);
			const mode = String(this.getNodeParameter('configMode', i, 'simple'));
			const prepared =
				mode === 'text' ? await prepareTextConfig(this, i, catalog, { requireReady: true }) : await prepareSimpleConfig(this, i);
			ready.push({ itemIndex: i, prepared, gpu });
		} catch (error) {
			out[i] = failedItem(this, error, i);
		}
	}
	if (ready.length === 0) return out.filter((o): o is INodeExecutionData => o !== undefined);

	// 2. Minimum balance, once.
	const minimum = Math.max(
		...ready.map((r) => Number((this.getNodeParameter('options', r.itemIndex, {}) as IDataObject).minimumBalanceUsd ?? 0)),
	);
	try {
		await assertMinimumBalance(this, minimum);
	} catch (error) {
		for (const r of ready) out[r.itemIndex] = failedItem(this, error, r.itemIndex);
		return out.filter((o): o is INodeExecutionData => o !== undefined);
	}

	// 3. Submit, one by one, no retries.
	const submitted: WatchedJob[] = [];
	for (const { itemIndex, prepared, gpu } of ready) {
		const fields = submissionFields(prepared, gpu);
		try {
			const job = (await submitTrainingJob(
				this,
				{ configFile: prepared.configFile, configFormat: prepared.configFormat, gpuType: gpu.gpuType, gpuCount: gpu.gpuCount },
				itemIndex,
			)) as IDataObject;
			const jobId = String(job.job_id ?? job.id ?? '');
			if (!jobId) {
				throw new NodeOperationError(this.getNode(), 'RunComfy accepted the training job but returned no job ID', {
					itemIndex,
					description: 'Do not submit again blindly: the job may be running. Check the RunComfy dashboard for it.',
				});
			}
			const json: IDataObject = { job_id: jobId, ...fields, status: job.status ?? 'IN_QUEUE', job };
			if (job.name !== undefined) json.name = job.name;
			submitted.push({ itemIndex, jobId, json });
			out[itemIndex] = { json, pairedItem: { item: itemIndex } };
		} catch (error) {
			if (!this.continueOnFail() && submitted.length) {
				const nodeError = toNodeError(this, error, itemIndex);
				nodeError.description = `${nodeError.description ?? ''}\nAlready submitted by this execution (still running): ${submitted.map((s) => s.jobId).join(', ')}`.trim();
				throw nodeError;
			}
			out[itemIndex] = failedItem(this, error, itemIndex, fields);
		}
	}

	// 4. Optionally wait for all of them at once.
	if (submitted.length) {
		const wait = readWaitOptions(this, submitted[0].itemIndex, TRAINING_WAIT);
		if (wait.enabled) {
			const finished = await waitForJobs(this, submitted, wait);
			for (const [itemIndex, item] of finished) out[itemIndex] = item;
		}
	}
	return out.filter((o): o is INodeExecutionData => o !== undefined);
}
