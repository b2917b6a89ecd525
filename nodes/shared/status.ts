/**
 * The one place where the service's status words become RunState.
 *
 * Model runs and deployment requests say `in_queue` → `in_progress` → `completed` (status) and
 * `succeeded`/`failed`/`cancelled` (result; `canceled` on some), a deployment cancel answers
 * `cancellation_requested`; training jobs say `IN_QUEUE`, `RUNNING`, `STOPPED`, `FAILED`, `CANCELED`.
 * Dataset words (`DRAFT`, `UPLOADING`, `READY`) are not run states: they map to 'unknown' (only `FAILED`
 * maps to 'failed'), and the dataset code keeps its own words.
 */
import type { IDataObject } from 'n8n-workflow';

import type { RunState } from './types';

const WORDS: Record<string, RunState> = {
	completed: 'succeeded',
	succeeded: 'succeeded',
	success: 'succeeded',
	failed: 'failed',
	failure: 'failed',
	error: 'failed',
	errored: 'failed',
	cancelled: 'cancelled',
	canceled: 'cancelled',
	cancellation_requested: 'cancelling',
	cancelling: 'cancelling',
	canceling: 'cancelling',
	in_queue: 'queued',
	queued: 'queued',
	pending: 'queued',
	in_progress: 'running',
	running: 'running',
	processing: 'running',
};

const isObject = (v: unknown): v is IDataObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `completed`/`succeeded` → succeeded; `failed`/`error` → failed; `cancelled`/`canceled`/`CANCELED` →
 * cancelled; `cancellation_requested` → cancelling; `in_queue`/`IN_QUEUE`/`queued` → queued;
 * `in_progress`/`RUNNING` → running; anything else → unknown.
 *
 * Trainer `STOPPED`: given as a word it is `stopped_incomplete` (resumable) — the safe reading; given as a
 * status record (with `progress`), it is classified by `classifyStoppedJob(record, result)`.
 * A status record (`{ status: ... }`) may be passed instead of the word.
 */
export function normaliseStatus(raw: unknown, result?: IDataObject): RunState {
	if (isObject(raw)) {
		const word = typeof raw.status === 'string' ? raw.status : undefined;
		if (word !== undefined && word.trim().toLowerCase() === 'stopped') return classifyStoppedJob(raw, result);
		return normaliseStatus(word);
	}
	if (typeof raw !== 'string') return 'unknown';
	const word = raw
		.trim()
		.toLowerCase()
		.replace(/[\s-]+/g, '_');
	// Without the record there is no progress to classify: the safe reading is "can be resumed".
	if (word === 'stopped') return 'stopped_incomplete';
	return WORDS[word] ?? 'unknown';
}

const toNumber = (v: unknown): number | undefined => {
	if (typeof v === 'number' && Number.isFinite(v)) return v;
	if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
	return undefined;
};

/** True when an `error` value says something (null, '', {}, [] say nothing). */
export function hasError(value: unknown): boolean {
	if (value === undefined || value === null || value === false) return false;
	if (typeof value === 'string') return value.trim() !== '';
	if (Array.isArray(value)) return value.length > 0;
	if (isObject(value)) return Object.keys(value).length > 0;
	return true;
}

/** Trainer STOPPED is finished only when progress reached total_steps (or total is 0/absent) and the
 * result carries no error; otherwise it is incomplete and can be resumed (as the CLI decides). */
export function classifyStoppedJob(status: IDataObject, result?: IDataObject): 'stopped_finished' | 'stopped_incomplete' {
	const progress = isObject(status?.progress) ? status.progress : {};
	const total = toNumber(progress.total_steps ?? status?.total_steps);
	const current = toNumber(progress.current_step ?? status?.current_step);
	const stepsDone = total === undefined || total === 0 || (current !== undefined && current >= total);
	if (!stepsDone) return 'stopped_incomplete';
	if (result && hasError(result.error)) return 'stopped_incomplete';
	return 'stopped_finished';
}

export const isTerminal = (state: RunState): boolean =>
	['succeeded', 'failed', 'cancelled', 'stopped_finished', 'stopped_incomplete'].includes(state);

/**
 * The one vocabulary of every node's output `status` for runs, requests and training jobs: queued, running,
 * completed (a status check saw it finish; its result tells whether it succeeded), succeeded, failed, cancelled,
 * cancelling, stopped (a training job that stopped early and can be resumed). The service's own word, when it
 * differs, is kept in `service_status`. Datasets keep the service's words (DRAFT, UPLOADING, READY, FAILED).
 */
const PUBLIC_WORDS: Partial<Record<RunState, string>> = {
	queued: 'queued',
	running: 'running',
	succeeded: 'succeeded',
	failed: 'failed',
	cancelled: 'cancelled',
	cancelling: 'cancelling',
	stopped_finished: 'succeeded',
	stopped_incomplete: 'stopped',
};

/** `json` with its `status` in the one vocabulary (`state` given when the record alone cannot tell, e.g. STOPPED). */
export function withPublicStatus(json: IDataObject, state?: RunState): IDataObject {
	const raw = json.status;
	if (typeof raw !== 'string') return json;
	// A status check's "completed" says finished, not how: only the result (or the caller's `state`) tells.
	const word = state ? PUBLIC_WORDS[state] : raw.trim().toLowerCase() === 'completed' ? 'completed' : PUBLIC_WORDS[normaliseStatus(raw)];
	if (!word || word === raw) return json;
	const out: IDataObject = { ...json, status: word };
	if (out.service_status === undefined) out.service_status = raw;
	return out;
}

/** The state a result record reports: its word, where a bare "completed" is a success unless it carries an error. */
export function resultState(result: IDataObject): RunState {
	const raw = typeof result.status === 'string' ? result.status.trim().toLowerCase() : '';
	if (raw === 'completed') return hasError(result.error) ? 'failed' : 'succeeded';
	return normaliseStatus(result.status);
}

/**
 * The output `status` words each read can give, in the order a run meets them. Every status list shown to a
 * user or an AI agent is built from these (test/project/statusWords.test.ts checks them against the nodes).
 */
export const STATUS_WORDS = {
	/** Model and Deployment → Get Status: `completed` says the run finished; Get Result says how. */
	statusCheck: ['queued', 'running', 'completed', 'failed', 'cancelled'],
	/** How a finished model run or deployment request ended (Run, Get Result, the triggers). */
	finished: ['succeeded', 'failed', 'cancelled'],
	/** Training jobs: `stopped` stopped early and can be resumed. */
	trainingJob: ['queued', 'running', 'succeeded', 'stopped', 'failed', 'cancelled'],
} as const;

/** "a, b or c". */
export const wordList = (words: readonly string[]): string =>
	words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
