import type {
	IBinaryData,
	IDataObject,
	IDisplayOptions,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { assertMinimumBalance } from '../../../shared/balanceGuard';
import { checkpointStep, pickLatestCheckpoint } from '../../../shared/checkpoints';
import type { WaitDefaults } from '../../../shared/descriptions';
import { downloadProperties, readDownloadOptions, readWaitOptions, waitProperties } from '../../../shared/descriptions';
import type { FoundUrl } from '../../../shared/download';
import { collectUrls, downloadAll } from '../../../shared/download';
import { formatDuration } from '../../../shared/format';
import { failedItem, toNodeError } from '../../../shared/router';
import { classifyStoppedJob, normaliseStatus } from '../../../shared/status';
import { getCredentials, getTrainingJobResult, getTrainingJobStatus } from '../../../shared/transport';
import type { RunState } from '../../../shared/types';
import { TRAINING_GPU_TYPES } from '../../../shared/types';
import type { WaitJob, WaitOptions } from '../../../shared/wait';
import { waitForAll } from '../../../shared/wait';

/**
 * Training jobs run for minutes to hours: poll every 10 s (as the CLI does), back off to 60 s, give up watching
 * after 8 h. A timeout never cancels the job, and stopping the execution only stops watching (like the CLI).
 */
export const TRAINING_WAIT: WaitDefaults = {
	maxWaitSeconds: 8 * 60 * 60,
	pollIntervalSeconds: 10,
	maxPollIntervalSeconds: 60,
	concurrency: 5,
	onTimeout: 'fail',
	cancelOnStop: false,
	timeoutChoices: ['fail', 'returnRunning'],
};

export const EDITABLE_STATES = ['STOPPED', 'CANCELED', 'FAILED'];

export function jobIdProperty(): INodeProperties {
	return {
		displayName: 'Job ID',
		name: 'jobId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. {{ $json.job_id }}',
		description: 'The training job\'s ID, as output by Submit Job ("job_id")',
	};
}

export function readJobId(ctx: IExecuteFunctions, itemIndex: number): string {
	const id = String(ctx.getNodeParameter('jobId', itemIndex, '') ?? '').trim();
	if (!id) {
		throw new NodeOperationError(ctx.getNode(), 'No job ID was given', {
			itemIndex,
			description: 'Enter the job ID that Submit Job output as "job_id", e.g. {{ $json.job_id }}.',
		});
	}
	return id;
}

export function gpuProperties(): INodeProperties[] {
	return [
		{
			displayName: 'GPU Type',
			name: 'gpuType',
			type: 'options',
			default: 'ADA_80_PLUS',
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
	if (gpuCount === 8 && gpuType !== 'ADA_80_PLUS') {
		return `8 GPUs are available only with ADA_80_PLUS (H100), not with ${gpuType}: choose ADA_80_PLUS for 8 GPUs, or 1 GPU on ${gpuType}`;
	}
	return undefined;
}

export function readGpu(ctx: IExecuteFunctions, itemIndex: number): { gpuType: string; gpuCount: number } {
	const gpuType = String(ctx.getNodeParameter('gpuType', itemIndex, 'ADA_80_PLUS'));
	const gpuCount = Number(ctx.getNodeParameter('gpuCount', itemIndex, 1));
	const problem = gpuProblem(gpuType, gpuCount);
	if (problem) {
		throw new NodeOperationError(ctx.getNode(), problem, {
			itemIndex,
			description: 'Nothing was submitted. Change GPU Type or GPU Count.',
		});
	}
	return { gpuType, gpuCount };
}

// ---------------------------------------------------------------------------------------------------------------
// Status and result records
// ---------------------------------------------------------------------------------------------------------------

export interface Progress extends IDataObject {
	current?: number;
	total?: number;
	percent?: number;
}

const num = (v: unknown): number | undefined => {
	if (v === null || v === undefined || v === '') return undefined;
	const n = Number(v);
	return Number.isFinite(n) ? n : undefined;
};

/** Step progress from a status record (`progress.{current_step,total_steps,percent}` and close variants). */
export function progressOf(record: IDataObject): Progress {
	const p = (typeof record.progress === 'object' && record.progress !== null ? record.progress : record) as IDataObject;
	const current = num(p.current_step ?? p.current ?? p.step ?? record.current_step);
	const total = num(p.total_steps ?? p.total ?? p.steps ?? record.total_steps);
	let percent = num(p.percent ?? p.percentage);
	if (percent === undefined && current !== undefined && total) percent = Math.round((current / total) * 1000) / 10;
	const out: Progress = {};
	if (current !== undefined) out.current = current;
	if (total !== undefined) out.total = total;
	if (percent !== undefined) out.percent = percent;
	return out;
}

export const rawStatus = (record: IDataObject): string => String(record.status ?? '').toUpperCase();

/** RunState of a training job; STOPPED is classified with the result (finished vs incomplete). */
export function jobState(status: IDataObject, result?: IDataObject): RunState {
	if (rawStatus(status) === 'STOPPED') return classifyStoppedJob(status, result);
	return normaliseStatus(status.status);
}

function errorText(value: unknown): string | undefined {
	if (value === undefined || value === null || value === '') return undefined;
	if (typeof value === 'string') return value;
	if (typeof value === 'object') {
		const v = value as IDataObject;
		if (typeof v.message === 'string') return v.code ? `${v.message} (${String(v.code)})` : v.message;
		return JSON.stringify(value);
	}
	return String(value);
}

/** The job's status for output: the record, normalised state and progress, and STOPPED told apart. */
export function describeJob(jobId: string, status: IDataObject, result?: IDataObject): IDataObject {
	const state = jobState(status, result);
	const progress = progressOf(status);
	const out: IDataObject = { job_id: jobId, ...status, state, progress };
	out.finished = state === 'stopped_finished' || state === 'succeeded';
	if (rawStatus(status) === 'STOPPED') {
		out.stopped = state === 'stopped_finished' ? 'finished' : 'incomplete';
		if (state === 'stopped_incomplete') {
			const reason = errorText(result?.error) ?? errorText(status.error);
			out.stop_reason = reason ?? 'stopped before the last step';
			out.hint = `The job stopped early${progress.total ? ` at step ${progress.current ?? '?'} of ${progress.total}` : ''}. Resume it (Resume operation, job ID ${jobId}) to continue from its latest checkpoint.`;
		}
	}
	return out;
}

export interface DescribedResult extends IDataObject {
	artifact_urls: FoundUrl[];
	checkpoint_urls: string[];
	sample_urls: string[];
	latest_checkpoint_url?: string;
	lora?: { path: string };
}

const SAMPLE_PATH = /(^|[.[\]])samples?([.[\]]|$)/i;
const SAMPLE_FILE = /\.(jpe?g|png|webp|gif|mp4|webm)$/i;

/** Every artifact URL flattened, checkpoints and samples, and the latest checkpoint as a ready `lora` value. */
export function describeResult(jobId: string, result: IDataObject): DescribedResult {
	const artifacts = result.artifacts;
	const urls = artifacts !== undefined && artifacts !== null ? collectUrls(artifacts, 'artifacts') : collectUrls(result, '');
	const checkpoints = urls.filter((u) => checkpointStep(u.url) !== undefined);
	const samples = urls.filter((u) => SAMPLE_PATH.test(u.path) || (!checkpoints.includes(u) && SAMPLE_FILE.test(pathOf(u.url))));
	const latest = pickLatestCheckpoint(checkpoints);
	const out: DescribedResult = {
		job_id: jobId,
		...result,
		artifact_urls: urls,
		checkpoint_urls: checkpoints.map((c) => c.url),
		sample_urls: samples.map((s) => s.url),
	};
	if (latest) {
		out.latest_checkpoint_url = latest.url;
		out.lora = { path: latest.url };
	}
	return out;
}

function pathOf(url: string): string {
	try {
		return new URL(url).pathname;
	} catch {
		return url;
	}
}

// ---------------------------------------------------------------------------------------------------------------
// Downloads (optional, off by default)
// ---------------------------------------------------------------------------------------------------------------

export function artifactDownloadProperties(show: IDisplayOptions['show']): INodeProperties[] {
	const [toggle, size] = downloadProperties(show, false);
	return [
		{
			...toggle,
			description:
				'Whether to download artifacts into binary data (data, data_1, ...). Checkpoints can be large. Only hosts in the credential\'s Allowed Download Hosts are fetched, without your token.',
		},
		{
			displayName: 'Artifacts to Download',
			name: 'artifactsToDownload',
			type: 'multiOptions',
			default: ['latestCheckpoint'],
			options: [
				{ name: 'All Checkpoints', value: 'allCheckpoints' },
				{ name: 'Config', value: 'config', description: 'The resolved config file' },
				{ name: 'Latest Checkpoint', value: 'latestCheckpoint' },
				{ name: 'Samples', value: 'samples', description: 'Sample images or videos made during training' },
			],
			displayOptions: { show: { ...show, downloadOutputs: [true] } },
		},
		size,
	];
}

/** Downloads the chosen artifacts of a described result through the shared download path. */
export async function downloadArtifacts(
	ctx: IExecuteFunctions,
	itemIndex: number,
	described: DescribedResult,
): Promise<{ binary?: Record<string, IBinaryData>; info: IDataObject }> {
	const { enabled, maxBytes } = readDownloadOptions(ctx, itemIndex, false);
	if (!enabled) return { info: {} };
	const what = ctx.getNodeParameter('artifactsToDownload', itemIndex, ['latestCheckpoint']) as string[];
	const chosen: FoundUrl[] = [];
	const add = (list: FoundUrl[]) => {
		for (const u of list) if (!chosen.some((c) => c.url === u.url)) chosen.push(u);
	};
	const urls = described.artifact_urls;
	if (what.includes('latestCheckpoint') && described.latest_checkpoint_url) {
		add(urls.filter((u) => u.url === described.latest_checkpoint_url).slice(0, 1));
	}
	if (what.includes('allCheckpoints')) add(urls.filter((u) => described.checkpoint_urls.includes(u.url)));
	if (what.includes('samples')) add(urls.filter((u) => described.sample_urls.includes(u.url)));
	if (what.includes('config')) add(urls.filter((u) => /config/i.test(u.path) || /\.(ya?ml|json)$/i.test(pathOf(u.url))));
	if (chosen.length === 0) return { info: { downloaded: [], skipped: [] } };
	const credentials = await getCredentials(ctx);
	const { binary, downloaded, skipped } = await downloadAll(ctx, chosen, {
		maxBytes,
		allowedHosts: credentials.allowedDownloadHosts,
		fallbackName: 'artifact',
	});
	return {
		binary: Object.keys(binary).length ? binary : undefined,
		info: {
			downloaded: downloaded.map((d) => ({ url: d.url, path: d.path, fileName: d.binary.fileName ?? null })),
			skipped: skipped.map((s) => ({ url: s.url, path: s.path, reason: s.reason })),
		},
	};
}

// ---------------------------------------------------------------------------------------------------------------
// The paid operations (Submit and Resume): balance once, one call per item, then optionally wait for all
// ---------------------------------------------------------------------------------------------------------------

export interface WatchedJob {
	itemIndex: number;
	jobId: string;
	/** Output fields known before waiting (submission details, warnings). */
	json: IDataObject;
}

/** "Wait for Completion" (off by default: training takes minutes to hours) with its options, and the downloads. */
export function paidJobWaitProperties(waitDescription: string): INodeProperties[] {
	return [
		...waitProperties({}, TRAINING_WAIT).map((p, index) =>
			index === 0 ? { ...p, default: false, description: waitDescription } : p,
		),
		...artifactDownloadProperties({ waitForCompletion: [true] }),
	];
}

/** The output items that were set, in input order. */
export const presentItems = (out: Array<INodeExecutionData | undefined>): INodeExecutionData[] =>
	out.filter((o): o is INodeExecutionData => o !== undefined);

/**
 * Checks the balance once against the highest "Minimum Balance (USD)" of the checked items, before any paid
 * call. Too low: every checked item fails (with `extra`; without Continue on Fail the first error is thrown)
 * and false is returned.
 */
export async function balanceAllows<T extends { itemIndex: number }>(
	ctx: IExecuteFunctions,
	ready: T[],
	out: Array<INodeExecutionData | undefined>,
	extra: (r: T) => IDataObject = () => ({}),
): Promise<boolean> {
	const minimum = Math.max(
		...ready.map((r) => Number((ctx.getNodeParameter('options', r.itemIndex, {}) as IDataObject).minimumBalanceUsd ?? 0)),
	);
	try {
		await assertMinimumBalance(ctx, minimum);
		return true;
	} catch (error) {
		for (const r of ready) out[r.itemIndex] = failedItem(ctx, error, r.itemIndex, extra(r));
		return false;
	}
}

/**
 * A paid call that failed: without Continue on Fail, when earlier items already cost money, the error names
 * their jobs (`already`: "Already submitted by this execution (still running)"); otherwise the usual policy.
 */
export function paidCallFailed(
	ctx: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
	fields: IDataObject,
	done: WatchedJob[],
	already: string,
): INodeExecutionData {
	if (!ctx.continueOnFail() && done.length) {
		const nodeError = toNodeError(ctx, error, itemIndex);
		nodeError.description = `${nodeError.description ?? ''}\n${already}: ${done.map((d) => d.jobId).join(', ')}`.trim();
		throw nodeError;
	}
	return failedItem(ctx, error, itemIndex, fields);
}

/** With Wait for Completion (read from the first job's item), waits for all the jobs and puts their outcomes into `out`. */
export async function waitIfAsked(
	ctx: IExecuteFunctions,
	watched: WatchedJob[],
	out: Array<INodeExecutionData | undefined>,
): Promise<void> {
	if (!watched.length) return;
	const wait = readWaitOptions(ctx, watched[0].itemIndex, TRAINING_WAIT);
	if (!wait.enabled) return;
	const finished = await waitForJobs(ctx, watched, wait);
	for (const [itemIndex, item] of finished) out[itemIndex] = item;
}


/**
 * Waits for submitted/resumed jobs and turns each outcome into an output item: finished → result with `lora`
 * (and optional downloads); FAILED, CANCELED and early stops → errors carrying the job id; timeout → error or
 * "still running" per On Timeout; execution stopped → the current status (the job keeps running).
 */
export async function waitForJobs(
	ctx: IExecuteFunctions,
	watched: WatchedJob[],
	options: WaitOptions,
): Promise<Map<number, INodeExecutionData>> {
	const results = new Map<string, IDataObject>();
	const jobs: WaitJob[] = watched.map((w) => ({
		itemIndex: w.itemIndex,
		id: w.jobId,
		poll: async () => {
			const status = (await getTrainingJobStatus(ctx, w.jobId)) as IDataObject;
			let result: IDataObject | undefined;
			if (rawStatus(status) === 'STOPPED') {
				result = await getTrainingJobResult(ctx, w.jobId);
				results.set(w.jobId, result);
			}
			return { state: jobState(status, result), record: status };
		},
	}));
	const outcomes = await waitForAll(jobs, { ...options, cancelOnStop: false }, ctx.getExecutionCancelSignal());
	const out = new Map<number, INodeExecutionData>();
	for (const outcome of outcomes) {
		const w = watched.find((x) => x.itemIndex === outcome.job.itemIndex && x.jobId === outcome.job.id)!;
		const i = w.itemIndex;
		if (outcome.kind === 'error') {
			out.set(i, failedItem(ctx, outcome.error, i, { ...w.json, job_id: w.jobId }));
			continue;
		}
		const status = describeJob(w.jobId, outcome.record, results.get(w.jobId));
		const progress = status.progress as Progress;
		const base: IDataObject = { ...w.json, ...status };
		if (outcome.kind === 'stopped') {
			out.set(i, {
				json: { ...base, still_running: true, note: 'Stopped watching; the training job keeps running on RunComfy' },
				pairedItem: { item: i },
			});
			continue;
		}
		if (outcome.kind === 'timeout') {
			if (options.onTimeout === 'fail') {
				const error = new NodeOperationError(
					ctx.getNode(),
					`Training job ${w.jobId} is still ${String(outcome.record.status ?? 'running')} after ${formatDuration(options.maxWaitMs)}${progress.total ? ` (step ${progress.current ?? 0} of ${progress.total})` : ''}`,
					{
						itemIndex: i,
						description: `The job keeps running and is not cancelled. Check it later with Get Status / Get Result (job ID ${w.jobId}), or raise "Max Wait" in Wait Options.`,
					},
				);
				out.set(i, failedItem(ctx, error, i, base));
			} else {
				out.set(i, { json: { ...base, still_running: true }, pairedItem: { item: i } });
			}
			continue;
		}
		const state = outcome.state;
		if (state === 'stopped_finished' || state === 'succeeded') {
			try {
				const result = results.get(w.jobId) ?? (await getTrainingJobResult(ctx, w.jobId));
				const described = describeResult(w.jobId, result);
				const { binary, info } = await downloadArtifacts(ctx, i, described);
				out.set(i, { json: { ...base, ...pickResultFields(described), ...info }, ...(binary ? { binary } : {}), pairedItem: { item: i } });
			} catch (error) {
				out.set(i, failedItem(ctx, error, i, base));
			}
			continue;
		}
		let message: string;
		let hint: string;
		if (state === 'stopped_incomplete') {
			message = `Training job ${w.jobId} stopped early${progress.total ? ` at step ${progress.current ?? 0} of ${progress.total}` : ''}: ${String(status.stop_reason)}`;
			hint = `Resume it with the Resume operation (job ID ${w.jobId}); it continues from the latest checkpoint. Checkpoints made so far are listed by Get Result.`;
		} else if (state === 'cancelled') {
			message = `Training job ${w.jobId} was cancelled`;
			hint = `Checkpoints made before the cancel remain available through Get Result (job ID ${w.jobId}). Edit and Resume it to continue.`;
		} else {
			message = `Training job ${w.jobId} failed: ${errorText(outcome.record.error) ?? errorText(results.get(w.jobId)?.error) ?? 'no reason given'}`;
			hint = `Fix the cause (often the config: use Edit with the same config.name), then Resume the job (job ID ${w.jobId}).`;
		}
		out.set(i, failedItem(ctx, new NodeOperationError(ctx.getNode(), message, { itemIndex: i, description: hint }), i, base));
	}
	return out;
}

/** The result fields worth putting next to a finished job's status. */
export function pickResultFields(described: DescribedResult): IDataObject {
	const out: IDataObject = {
		artifact_urls: described.artifact_urls,
		checkpoint_urls: described.checkpoint_urls,
		sample_urls: described.sample_urls,
	};
	if (described.latest_checkpoint_url) {
		out.latest_checkpoint_url = described.latest_checkpoint_url;
		out.lora = described.lora;
	}
	if (described.artifacts !== undefined) out.artifacts = described.artifacts;
	return out;
}

export { readWaitOptions };
