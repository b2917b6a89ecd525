import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { minimumBalanceOption } from '../../../shared/descriptions';
import { failedItem } from '../../../shared/router';
import { getTrainingJobStatus, resumeTrainingJob } from '../../../shared/transport';
import type { WatchedJob } from './common';
import {
	balanceAllows,
	gpuProperties,
	jobIdProperty,
	paidCallFailed,
	paidJobWaitProperties,
	presentItems,
	progressOf,
	rawStatus,
	readGpu,
	readJobId,
	waitIfAsked,
} from './common';

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

/**
 * Re-queues a STOPPED, FAILED or CANCELED job (same job ID) from its highest-step checkpoint, on the GPU chosen now.
 * Paid: checked first (GPU rule, job not already queued/running, minimum balance), never retried.
 */
export async function executeBatch(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const out: Array<INodeExecutionData | undefined> = new Array(items.length);
	const ready: Array<{ itemIndex: number; jobId: string; gpu: { gpuType: string; gpuCount: number }; before: IDataObject }> = [];
	for (let i = 0; i < items.length; i++) {
		try {
			const jobId = readJobId(this, i);
			const gpu = readGpu(this, i);
			const status = (await getTrainingJobStatus(this, jobId)) as IDataObject;
			if (RUNNING_STATES.includes(rawStatus(status))) {
				throw new NodeOperationError(this.getNode(), `Training job ${jobId} is ${rawStatus(status)}; only a stopped, failed or cancelled job can be resumed`, {
					itemIndex: i,
					description: 'Nothing was submitted. Wait for it with Get Status, or cancel it first.',
				});
			}
			ready.push({ itemIndex: i, jobId, gpu, before: { status: status.status, progress: progressOf(status) } });
		} catch (error) {
			out[i] = failedItem(this, error, i);
		}
	}
	if (ready.length && !(await balanceAllows(this, ready, out, (r) => ({ job_id: r.jobId })))) return presentItems(out);
	const resumed: WatchedJob[] = [];
	for (const { itemIndex, jobId, gpu, before } of ready) {
		const fields: IDataObject = { job_id: jobId, gpu_type: gpu.gpuType, gpu_count: gpu.gpuCount, before };
		try {
			const job = (await resumeTrainingJob(this, jobId, gpu, itemIndex)) as IDataObject;
			const json: IDataObject = { ...fields, status: job.status ?? 'IN_QUEUE', job };
			resumed.push({ itemIndex, jobId, json });
			out[itemIndex] = { json, pairedItem: { item: itemIndex } };
		} catch (error) {
			out[itemIndex] = paidCallFailed(this, error, itemIndex, fields, resumed, 'Already resumed by this execution');
		}
	}
	await waitIfAsked(this, resumed, out);
	return presentItems(out);
}
