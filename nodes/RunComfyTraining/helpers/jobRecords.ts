/** A training job's status and result records as the service returns them, read for output: state, progress, artifacts. */
import type { IDataObject } from 'n8n-workflow';

import type { FoundUrl } from '../../shared/download';
import { collectUrls } from '../../shared/download';
import { classifyStoppedJob, normaliseStatus, withPublicStatus } from '../../shared/status';
import { checkpointStep, pickLatestCheckpoint } from '../../shared/checkpoints';
import type { RunState } from '../../shared/types';

/** The statuses in which Edit may change a job's config. */
export const EDITABLE_STATES = ['STOPPED', 'CANCELED', 'FAILED'];

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

export function errorText(value: unknown): string | undefined {
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
	const out: IDataObject = withPublicStatus({ job_id: jobId, ...status, progress }, state);
	out.finished = state === 'stopped_finished' || state === 'succeeded';
	if (rawStatus(status) === 'STOPPED') {
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

export function pathOf(url: string): string {
	try {
		return new URL(url).pathname;
	} catch {
		return url;
	}
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
