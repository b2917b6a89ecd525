import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { minimumBalanceOption } from '../../../shared/descriptions';
import { runJobs } from '../../../shared/jobs';
import { submitTrainingJob } from '../../../shared/transport';
import { gpuProperties, readGpu } from '../../helpers/jobFields';
import type { TrainingItem } from '../../helpers/jobKind';
import { paidJobWaitProperties, trainingJobKind } from '../../helpers/jobKind';
import type { PreparedConfig } from '../../helpers/config/prepareConfig';
import {
	configTextProperties,
	datasetCatalog,
	prepareSimpleConfig,
	prepareTextConfig,
	simpleFormProperties,
} from '../../helpers/config/prepareConfig';

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
	...paidJobWaitProperties(
		'Whether to wait until training finishes (can take hours) and return the result with the checkpoint ready as `lora`. Stopping the execution only stops watching: the job keeps running.',
	),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'GPU ID',
				name: 'gpuId',
				type: 'string',
				default: '',
				placeholder: 'e.g. #1',
				description:
					'Run the job on one specific GPU of your account, as RunComfy names it (e.g. "#1"). Leave empty to let RunComfy choose.',
			},
			minimumBalanceOption,
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['trainingJob'], operation: ['submit'] } }, properties);

interface SubmitGpu {
	gpuType: string;
	gpuCount: number;
	gpuId?: string;
}

/** GPU Type and Count (checked) and the optional GPU ID from Options. */
function readSubmitGpu(ctx: IExecuteFunctions, itemIndex: number): SubmitGpu {
	const gpu: SubmitGpu = readGpu(ctx, itemIndex);
	const gpuId = String((ctx.getNodeParameter('options', itemIndex, {}) as IDataObject).gpuId ?? '').trim();
	if (gpuId) gpu.gpuId = gpuId;
	return gpu;
}

function submissionFields(prepared: PreparedConfig, gpu: SubmitGpu): IDataObject {
	const json: IDataObject = {
		name: prepared.name,
		gpu_type: gpu.gpuType,
		gpu_count: gpu.gpuCount,
		config_format: prepared.configFormat,
		datasets: prepared.datasetNames,
	};
	if (gpu.gpuId) json.gpu_id = gpu.gpuId;
	if (prepared.dataset) json.dataset = prepared.dataset;
	if (prepared.generated) json.config_file = prepared.configFile;
	if (prepared.warnings.length) json.warnings = prepared.warnings;
	return json;
}

interface Prepared extends TrainingItem {
	prepared: PreparedConfig;
	gpu: SubmitGpu;
}

/**
 * Submit through the one job flow: every item is validated first (GPU rule, config paths, dataset READY), the
 * minimum balance is checked once, then jobs are submitted one by one, never retried; with Wait for Completion all
 * jobs are watched together.
 */
export async function executeBatch(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const catalog = datasetCatalog(this);
	const kind = trainingJobKind<Prepared>(
		this,
		async (i) => {
			const gpu = readSubmitGpu(this, i);
			const mode = String(this.getNodeParameter('configMode', i, 'simple'));
			const prepared =
				mode === 'text' ? await prepareTextConfig(this, i, catalog, { requireReady: true }) : await prepareSimpleConfig(this, i);
			return { itemIndex: i, prepared, gpu, fields: submissionFields(prepared, gpu) };
		},
		async (p) => {
			const job = (await submitTrainingJob(
				this,
				{ configFile: p.prepared.configFile, configFormat: p.prepared.configFormat, ...p.gpu },
				p.itemIndex,
			)) as IDataObject;
			const jobId = String(job.job_id ?? job.id ?? '');
			if (!jobId) {
				const error = new NodeOperationError(this.getNode(), 'RunComfy accepted the training job but returned no job ID', {
					itemIndex: p.itemIndex,
					description: 'Do not submit again blindly: the job may be running. Check the RunComfy dashboard for it.',
				});
				// Never sent again, not even by Retry On Fail.
				error.context.mayHaveBeenAccepted = true;
				throw error;
			}
			const json: IDataObject = { job_id: jobId, status: job.status ?? 'IN_QUEUE', job };
			if (job.name !== undefined) json.name = job.name;
			return { id: jobId, json };
		},
	);
	return await runJobs(this, items, kind);
}
