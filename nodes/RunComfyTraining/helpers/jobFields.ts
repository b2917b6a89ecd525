/** The Training node's Job ID and GPU fields, and their readers (checked before any paid call). */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { readNumber } from '../../shared/params';
import { TRAINING_GPU_TYPES } from '../../shared/types';

export function jobIdProperty(): INodeProperties {
	return {
		displayName: 'Job ID',
		name: 'jobId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 3f2b8c1d-9e4a-4b6f-8d0c-7a5e1f2b3c4d',
		description: 'The job_id returned by Submit (also when Wait for Completion is off)',
	};
}

export function readJobId(ctx: IExecuteFunctions, itemIndex: number): string {
	const id = String(ctx.getNodeParameter('jobId', itemIndex, '') ?? '').trim();
	if (!id) {
		throw new NodeOperationError(ctx.getNode(), 'No job ID was given', {
			itemIndex,
			description: 'Enter the job ID that Submit output as "job_id", e.g. {{ $json.job_id }}.',
		});
	}
	return id;
}

/** H100: the GPU Type field's default, and the only type offered with 8 GPUs. */
const DEFAULT_GPU_TYPE = 'ADA_80_PLUS';

export function gpuProperties(): INodeProperties[] {
	return [
		{
			displayName: 'GPU Type',
			name: 'gpuType',
			type: 'options',
			default: DEFAULT_GPU_TYPE,
			options: [
				{ name: 'H100 80 GB (ADA_80_PLUS)', value: 'ADA_80_PLUS', description: 'Supports 1 or 8 GPUs' },
				{ name: 'H200 141 GB (HOPPER_141)', value: 'HOPPER_141', description: 'Supports 1 GPU' },
			],
			description: 'Hardware the job runs on (billed per GPU and time)',
		},
		{
			displayName: 'GPU Count',
			name: 'gpuCount',
			type: 'options',
			default: 1,
			options: [
				{ name: '1', value: 1 },
				{ name: '8 (H100 Only)', value: 8 },
			],
			description: 'Number of GPUs. 8 is available only with H100 (ADA_80_PLUS).',
		},
	];
}

/** The platform's GPU rule, checked before any paid call. */
export function gpuProblem(gpuType: string, gpuCount: number): string | undefined {
	if (!(TRAINING_GPU_TYPES as readonly string[]).includes(gpuType)) {
		return `GPU type "${gpuType}" is not offered for training; use ${TRAINING_GPU_TYPES.join(' or ')}`;
	}
	if (gpuCount !== 1 && gpuCount !== 8) return `GPU count must be 1 or 8 (got ${gpuCount})`;
	if (gpuCount === 8 && gpuType !== DEFAULT_GPU_TYPE) {
		return `8 GPUs are available only with ADA_80_PLUS (H100), not with ${gpuType}: choose ADA_80_PLUS for 8 GPUs, or 1 GPU on ${gpuType}`;
	}
	return undefined;
}

export function readGpu(ctx: IExecuteFunctions, itemIndex: number): { gpuType: string; gpuCount: number } {
	const gpuType = String(ctx.getNodeParameter('gpuType', itemIndex, DEFAULT_GPU_TYPE));
	const gpuCount = readNumber(ctx, 'gpuCount', itemIndex, 1, {
		label: 'GPU Count',
		min: 1,
		max: 8,
		integer: true,
		example: '1, or 8 with ADA_80_PLUS',
	});
	const problem = gpuProblem(gpuType, gpuCount);
	if (problem) {
		throw new NodeOperationError(ctx.getNode(), problem, {
			itemIndex,
			description: 'Nothing was submitted. Change GPU Type or GPU Count.',
		});
	}
	return { gpuType, gpuCount };
}
