import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { assertMinimumBalance } from '../../../shared/balanceGuard';
import { minimumBalanceOption, readWaitOptions, waitProperties } from '../../../shared/descriptions';
import { failedItem, toNodeError } from '../../../shared/router';
import { getTrainingJobStatus, resumeTrainingJob } from '../../../shared/transport';
import type { WatchedJob } from './common';
import {
	TRAINING_WAIT,
	artifactDownloadProperties,
	gpuProperties,
	jobIdProperty,
	progressOf,
	rawStatus,
	readGpu,
	readJobId,
	waitForJobs,
} from './common';

const properties: INodeProperties[] = [
	jobIdProperty(),
	...gpuProperties(),
	...waitProperties({}, TRAINING_WAIT).map((p, index) =>
		index === 0
			? {
					...p,
					default: false,
					description:
						'Whether to wait until training finishes and return the result with the checkpoint ready as `lora`. Stopping the execution only stops watching.',
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
	if (ready.length) {
		const minimum = Math.max(
			...ready.map((r) => Number((this.getNodeParameter('options', r.itemIndex, {}) as IDataObject).minimumBalanceUsd ?? 0)),
		);
		try {
			await assertMinimumBalance(this, minimum);
		} catch (error) {
			for (const r of ready) out[r.itemIndex] = failedItem(this, error, r.itemIndex, { job_id: r.jobId });
			return out.filter((o): o is INodeExecutionData => o !== undefined);
		}
	}
	const resumed: WatchedJob[] = [];
	for (const { itemIndex, jobId, gpu, before } of ready) {
		const fields: IDataObject = { job_id: jobId, gpu_type: gpu.gpuType, gpu_count: gpu.gpuCount, before };
		try {
			const job = (await resumeTrainingJob(this, jobId, gpu, itemIndex)) as IDataObject;
			const json: IDataObject = { ...fields, status: job.status ?? 'IN_QUEUE', job };
			resumed.push({ itemIndex, jobId, json });
			out[itemIndex] = { json, pairedItem: { item: itemIndex } };
		} catch (error) {
			if (!this.continueOnFail() && resumed.length) {
				const nodeError = toNodeError(this, error, itemIndex);
				nodeError.description = `${nodeError.description ?? ''}\nAlready resumed by this execution: ${resumed.map((r) => r.jobId).join(', ')}`.trim();
				throw nodeError;
			}
			out[itemIndex] = failedItem(this, error, itemIndex, fields);
		}
	}
	if (resumed.length) {
		const wait = readWaitOptions(this, resumed[0].itemIndex, TRAINING_WAIT);
		if (wait.enabled) {
			const finished = await waitForJobs(this, resumed, wait);
			for (const [itemIndex, item] of finished) out[itemIndex] = item;
		}
	}
	return out.filter((o): o is INodeExecutionData => o !== undefined);
}
