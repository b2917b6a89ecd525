/** Trainer jobs (`{trainerApiBaseUrl}/prod/v1/trainers/ai-toolkit/jobs...`). */
import type { IDataObject } from 'n8n-workflow';

import type { RunComfyContext, TrainingJob } from '../types';
import { TRAINING_GPU_TYPES } from '../types';
import { inputError } from '../errors';
import { encodeId } from '../ids';
import type { RetryChoice } from '../request';
import { apiRequest } from '../request';
import { asObject } from './common';

const JOBS = '/prod/v1/trainers/ai-toolkit/jobs';

export interface TrainingSubmit {
	configFile: string;
	configFormat: 'yaml' | 'json';
	gpuType: string;
	gpuCount?: number;
	gpuId?: string;
}

const SUBMIT_CHECK =
	'check your training jobs on runcomfy.com (Trainer) to see whether the job was queued; if it was, use its job id instead of submitting again.';

/** `job_id` and `id` both present when either is (the service uses `id`, docs say `job_id`). */
function normaliseJob(record: unknown): TrainingJob {
	const job = { ...asObject(record) } as TrainingJob;
	if ((job.id === undefined || job.id === null || job.id === '') && typeof job.job_id === 'string') job.id = job.job_id;
	if (
		(job.job_id === undefined || job.job_id === null || job.job_id === '') &&
		(typeof job.id === 'string' || typeof job.id === 'number')
	) {
		job.job_id = String(job.id);
	}
	return job;
}

function checkGpu(ctx: RunComfyContext, gpuType: unknown, gpuCount: unknown, itemIndex?: number): void {
	const node = ctx.getNode();
	if (gpuType !== undefined && !(TRAINING_GPU_TYPES as readonly string[]).includes(String(gpuType))) {
		throw inputError(
			node,
			`The GPU type "${String(gpuType)}" is not available for training`,
			`Use one of: ${TRAINING_GPU_TYPES.join(', ')}.`,
			itemIndex,
		);
	}
	if (gpuCount !== undefined) {
		if (gpuCount !== 1 && gpuCount !== 8) {
			throw inputError(node, `A GPU count of ${String(gpuCount)} is not supported`, 'Use 1 GPU, or 8 GPUs with ADA_80_PLUS.', itemIndex);
		}
		if (gpuCount === 8 && gpuType !== undefined && gpuType !== 'ADA_80_PLUS') {
			throw inputError(
				node,
				`8 GPUs are only available with ADA_80_PLUS, not ${String(gpuType)}`,
				'Use ADA_80_PLUS for 8 GPUs, or 1 GPU with the other type.',
				itemIndex,
			);
		}
	}
}

function checkConfig(ctx: RunComfyContext, configFile: unknown, configFormat: unknown, itemIndex?: number): void {
	const node = ctx.getNode();
	if (typeof configFile !== 'string' || configFile.trim() === '') {
		throw inputError(node, 'The training config is empty', 'Give the whole AI Toolkit config (YAML or JSON) as text.', itemIndex);
	}
	if (configFormat !== 'yaml' && configFormat !== 'json') {
		throw inputError(node, `The config format "${String(configFormat)}" is not supported`, 'Use "yaml" or "json".', itemIndex);
	}
}

const jobSegment = (ctx: RunComfyContext, jobId: string, itemIndex?: number): string => encodeId(jobId, 'job id', ctx.getNode(), itemIndex);

/** Submit a training job (paid): returns once queued. */
export const submitTrainingJob = async (ctx: RunComfyContext, req: TrainingSubmit, itemIndex?: number): Promise<TrainingJob> => {
	checkConfig(ctx, req?.configFile, req?.configFormat, itemIndex);
	if (req.gpuType === undefined || req.gpuType === '') {
		throw inputError(ctx.getNode(), 'The GPU type is missing', `Use one of: ${TRAINING_GPU_TYPES.join(', ')}.`, itemIndex);
	}
	checkGpu(ctx, req.gpuType, req.gpuCount, itemIndex);
	const body: IDataObject = { config_file_format: req.configFormat, config_file: req.configFile, gpu_type: req.gpuType };
	if (req.gpuCount !== undefined) body.gpu_count = req.gpuCount;
	if (req.gpuId !== undefined && String(req.gpuId).trim() !== '') body.gpu_id = String(req.gpuId).trim();
	const answer = await apiRequest<unknown>(ctx, {
		family: 'trainer',
		method: 'POST',
		path: JOBS,
		body,
		paid: true,
		itemIndex,
		operation: 'training job submission',
		checkHint: SUBMIT_CHECK,
	});
	return normaliseJob(answer);
};

export const getTrainingJobStatus = async (ctx: RunComfyContext, jobId: string, how: RetryChoice = {}): Promise<TrainingJob> => {
	const seg = jobSegment(ctx, jobId);
	const body = await apiRequest<unknown>(ctx, {
		family: 'trainer',
		method: 'GET',
		path: `${JOBS}/${seg}/status`,
		subject: { kind: 'job', id: decodeURIComponent(seg) },
		operation: 'training status check',
		retry: how.retry,
	});
	return normaliseJob(body);
};

/** Artifact URLs; valid while RUNNING (the list grows) and after FAILED or CANCELED. */
export const getTrainingJobResult = async (ctx: RunComfyContext, jobId: string, how: RetryChoice = {}): Promise<IDataObject> => {
	const seg = jobSegment(ctx, jobId);
	return await apiRequest<IDataObject>(ctx, {
		family: 'trainer',
		method: 'GET',
		path: `${JOBS}/${seg}/result`,
		subject: { kind: 'job', id: decodeURIComponent(seg) },
		operation: 'training result fetch',
		retry: how.retry,
	});
};

export const cancelTrainingJob = async (ctx: RunComfyContext, jobId: string): Promise<IDataObject> => {
	const seg = jobSegment(ctx, jobId);
	const body = await apiRequest<IDataObject | null>(ctx, {
		family: 'trainer',
		method: 'POST',
		path: `${JOBS}/${seg}/cancel`,
		subject: { kind: 'job', id: decodeURIComponent(seg) },
		operation: 'training cancel',
		expect: 'jsonOrEmpty',
	});
	return body ?? { id: decodeURIComponent(seg) };
};

/** Resume a STOPPED (or fixed FAILED) job from its latest checkpoint (paid); GPU chosen now. */
export const resumeTrainingJob = async (
	ctx: RunComfyContext,
	jobId: string,
	gpu: { gpuType?: string; gpuCount?: number } = {},
	itemIndex?: number,
): Promise<TrainingJob> => {
	const seg = jobSegment(ctx, jobId, itemIndex);
	const gpuType = gpu.gpuType === '' ? undefined : gpu.gpuType;
	checkGpu(ctx, gpuType, gpu.gpuCount, itemIndex);
	const body: IDataObject = {};
	if (gpuType !== undefined) body.gpu_type = gpuType;
	if (gpu.gpuCount !== undefined) body.gpu_count = gpu.gpuCount;
	const id = decodeURIComponent(seg);
	const answer = await apiRequest<unknown>(ctx, {
		family: 'trainer',
		method: 'POST',
		path: `${JOBS}/${seg}/resume`,
		body,
		paid: true,
		itemIndex,
		subject: { kind: 'job', id },
		operation: `resume of training job "${id}"`,
		checkHint: `get the status of job "${id}": IN_QUEUE or RUNNING means the resume was accepted.`,
		expect: 'jsonOrEmpty',
	});
	return normaliseJob(answer ?? { id });
};

/** Replace the config of a STOPPED, CANCELED or FAILED job (`config.name` must stay the same). */
export const editTrainingJob = async (
	ctx: RunComfyContext,
	jobId: string,
	config: { configFile: string; configFormat: 'yaml' | 'json' },
): Promise<IDataObject> => {
	const seg = jobSegment(ctx, jobId);
	checkConfig(ctx, config?.configFile, config?.configFormat);
	const body = await apiRequest<IDataObject | null>(ctx, {
		family: 'trainer',
		method: 'POST',
		path: `${JOBS}/${seg}/edit`,
		body: { config_file_format: config.configFormat, config_file: config.configFile },
		subject: { kind: 'job', id: decodeURIComponent(seg) },
		operation: 'training config edit',
		expect: 'jsonOrEmpty',
	});
	return body ?? { id: decodeURIComponent(seg) };
};
