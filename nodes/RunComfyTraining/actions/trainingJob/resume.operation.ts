import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { minimumBalanceOption } from '../../../shared/descriptions';
import { runJobs } from '../../../shared/jobs';
import { getTrainingJobStatus, resumeTrainingJob } from '../../../shared/transport';
import { gpuProperties, jobIdProperty, readGpu, readJobId } from '../../helpers/jobFields';
import { progressOf, rawStatus } from '../../helpers/jobRecords';
import type { TrainingItem } from '../../helpers/jobKind';
import { paidJobWaitProperties, trainingJobKind } from '../../helpers/jobKind';

const properties: INodeProperties[] = [
	jobIdProperty(),
	...gpuProperties(),
	...paidJobWaitProperties(
		'Whether to wait until training finishes and return the result with the checkpoint ready as `lora`. Stopping the execution only stops watching.',
	),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [minimumBalanceOption],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['trainingJob'], operation: ['resume'] } }, properties);

const RUNNING_STATES = ['IN_QUEUE', 'RUNNING'];

interface Prepared extends TrainingItem {
	jobId: string;
	gpu: { gpuType: string; gpuCount: number };
}

/**
 * Re-queues a STOPPED, FAILED or CANCELED job (same job ID) from its highest-step checkpoint, on the GPU chosen now.
 * Paid, through the one job flow: checked first (GPU rule, job not already queued/running, minimum balance), never
 * retried.
 */
export async function executeBatch(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const kind = trainingJobKind<Prepared>(
		this,
		async (i, extra) => {
			const jobId = readJobId(this, i);
			extra.job_id = jobId;
			const gpu = readGpu(this, i);
			const status = (await getTrainingJobStatus(this, jobId)) as IDataObject;
			if (RUNNING_STATES.includes(rawStatus(status))) {
				throw new NodeOperationError(
					this.getNode(),
					`Training job ${jobId} is ${rawStatus(status)}; only a stopped, failed or cancelled job can be resumed`,
					{
						itemIndex: i,
						description: 'Nothing was submitted. Wait for it with Get Status, or cancel it first.',
					},
				);
			}
			const before = { status: status.status, progress: progressOf(status) };
			return { itemIndex: i, jobId, gpu, fields: { job_id: jobId, gpu_type: gpu.gpuType, gpu_count: gpu.gpuCount, before } };
		},
		async (p) => {
			const job = (await resumeTrainingJob(this, p.jobId, p.gpu, p.itemIndex)) as IDataObject;
			return { id: p.jobId, json: { status: job.status ?? 'IN_QUEUE', job } };
		},
	);
	return await runJobs(this, items, kind);
}
