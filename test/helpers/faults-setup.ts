/* eslint-disable @n8n/community-nodes/no-restricted-globals */
/**
 * Shared setup of the fault, bad-input and token-scan suites (test/faults/): a sandbox with a distinctive
 * token, credentials pointing at it, readers of the request log (paid endpoints, submits per input item),
 * a bounded wait on the log, a small direct client of the sandbox API for preparing state, and the token
 * scanner. Not a test file itself.
 */
import type { INodeParameters } from 'n8n-workflow';

import type { Sandbox, SandboxConfig, RequestLogEntry } from '../../sandbox';
import { getRetryPolicy, setRetryPolicy } from '../../nodes/shared/transport/request';
import type { RetryPolicy } from '../../nodes/shared/transport';
import { sharedDurations } from '../../nodes/shared/wait';
import { disposeEngine } from './engine';
import type { RunNodeResult } from './engine';
import { credentialsFor, lazySandbox, openSandbox, until as untilShared } from './sandboxSetup';

// The sandbox's allowed file host is 127.0.0.1; urls.foreignFiles (localhost) is outside the list.
export { credentialsFor };

/** A token that cannot appear anywhere by accident, so finding it proves a leak. */
export const SCAN_TOKEN = 'rcf-dummy-secret-Zq7Xw2Lm9Tn4Vb8Kp3';

export async function openFaultSandbox(config: SandboxConfig = {}): Promise<Sandbox> {
	return await openSandbox({ token: SCAN_TOKEN, runDurationMs: 30, queueMs: 0, ...config });
}

/**
 * One fault sandbox for the test file (opened in `beforeAll`) with a short backoff and enough attempts that
 * reads survive heavy fault rates (the rules of what may be retried are unchanged). `afterAll` restores the
 * previous retry policy, closes the sandbox and disposes the n8n engine. The returned object stands for that
 * sandbox from the first hook on (use it inside tests and hooks only).
 */
export function useFaultSandbox(
	config: SandboxConfig = {},
	policy: Partial<RetryPolicy> = { maxAttempts: 10, baseDelayMs: 5, maxDelayMs: 1500 },
): Sandbox {
	let current: Sandbox | undefined;
	let savedPolicy: RetryPolicy;
	beforeAll(async () => {
		current = await openFaultSandbox(config);
		savedPolicy = getRetryPolicy();
		setRetryPolicy(policy);
	});
	// Each test starts from nothing learned, as a fresh n8n process: these tests inject faults into status
	// requests and count them, and what earlier tests taught about a model's run time would turn the poll
	// expected to see the end into a result request.
	beforeEach(() => sharedDurations.clear());
	afterAll(async () => {
		setRetryPolicy(savedPolicy);
		await current?.close();
		await disposeEngine();
	});
	return lazySandbox(() => current);
}

export const STABLE = {
	flash: 'blackforestlabs/flux-2/flash/text-to-image',
	lora: 'blackforestlabs/flux-1/dev/lora/text-to-image',
	seedream: 'bytedance/seedream-4/text-to-image',
	imageToVideo: 'kling/kling-2-1/pro/image-to-video',
	imageEditPlural: 'google/nano-banana/edit',
	large: 'runcomfy/test/large-output',
	fails: 'runcomfy/test/always-fails',
	mixedHosts: 'runcomfy/test/mixed-hosts',
} as const;

/**
 * Model → Run of the fast flash model for `n` input items (prompts "item 0", "item 1", ...), inputs as JSON
 * from each item, no downloads, waiting with `waitOptions`.
 */
export function flashPromptRun(
	n: number,
	waitOptions: INodeParameters,
): { inputItems: Array<{ json: { prompt: string } }>; parameters: INodeParameters } {
	return {
		inputItems: Array.from({ length: n }, (_, i) => ({ json: { prompt: `item ${i}` } })),
		parameters: {
			resource: 'model',
			operation: 'run',
			model: { __rl: true, mode: 'id', value: STABLE.flash },
			inputMode: 'json',
			inputsJson: '={{ JSON.stringify({ prompt: $json.prompt }) }}',
			downloadOutputs: false,
			waitOptions,
		},
	};
}

// ---------------------------------------------------------------------------------------------------------
// The request log

/** Model run submit: POST /v1/models/<id with slashes>. */
export const isModelSubmit = (e: RequestLogEntry): boolean => e.api === 'model' && e.method === 'POST' && /^\/v1\/models\/.+/.test(e.path);

/** Paid model submits per prompt in the sandbox log (every try, every execution since the last reset). */
export function submitsPerPrompt(sb: Sandbox): Map<string, number> {
	const counts = new Map<string, number>();
	for (const e of sb.log().filter(isModelSubmit)) {
		const prompt = String((e.body as Record<string, unknown> | undefined)?.prompt);
		counts.set(prompt, (counts.get(prompt) ?? 0) + 1);
	}
	return counts;
}

/** The sandbox's model runs of one prompt, in submit order. */
export const runsOfPrompt = (sb: Sandbox, prompt: string) =>
	sb.state().runs.filter((r) => (r.body as Record<string, unknown>).prompt === prompt);
/** Deployment inference: POST /prod/v1|v2/deployments/<id>/inference. */
export const isInference = (e: RequestLogEntry): boolean =>
	e.api === 'serverless' && e.method === 'POST' && /^\/prod\/v[12]\/deployments\/[^/]+\/inference$/.test(e.path);
/** Training submit (POST …/ai-toolkit/jobs) and resume (POST …/jobs/<id>/resume). */
export const isTrainingPaid = (e: RequestLogEntry): boolean =>
	e.api === 'trainer' &&
	e.method === 'POST' &&
	(/^\/prod\/v1\/trainers\/ai-toolkit\/jobs\/?$/.test(e.path) || /^\/prod\/v1\/trainers\/ai-toolkit\/jobs\/[^/]+\/resume$/.test(e.path));

/** Every request to an endpoint that costs money when it is accepted. */
export const isPaid = (e: RequestLogEntry): boolean => isModelSubmit(e) || isInference(e) || isTrainingPaid(e);

export const isModelStatus = (e: RequestLogEntry): boolean =>
	e.api === 'model' && e.method === 'GET' && /^\/v1\/requests\/[^/]+\/status$/.test(e.path);
export const isModelResult = (e: RequestLogEntry): boolean =>
	e.api === 'model' && e.method === 'GET' && /^\/v1\/requests\/[^/]+\/result$/.test(e.path);
export const isModelCancel = (e: RequestLogEntry): boolean =>
	e.api === 'model' && e.method === 'POST' && /^\/v1\/requests\/[^/]+\/cancel$/.test(e.path);
export const isDeploymentCancel = (e: RequestLogEntry): boolean =>
	e.api === 'serverless' && e.method === 'POST' && /\/requests\/[^/]+\/cancel$/.test(e.path);
/** The request id in /v1/requests/<id>/… or …/requests/<id>/…. */
export const requestIdIn = (e: RequestLogEntry): string => /\/requests\/([^/]+)/.exec(e.path)?.[1] ?? '';

/** Polls the sandbox log (or any condition) until it holds; bounded (15 s here), so a broken node fails the test instead of hanging. */
export async function until(check: () => boolean, what: string, limitMs = 15_000): Promise<void> {
	await untilShared(check, what, limitMs);
}

/**
 * Polls the sandbox log (or any condition) while `execution` goes on: true once it holds, false when the execution
 * ended first. The execution bounds the wait, not a clock, so a slow machine only makes it later.
 */
export async function untilOrEnded(check: () => boolean, execution: Promise<unknown>): Promise<boolean> {
	let ended = false;
	const end = () => {
		ended = true;
	};
	void execution.then(end, end);
	while (!check()) {
		if (ended) return check();
		await new Promise((resolve) => setTimeout(resolve, 5));
	}
	return true;
}

// ---------------------------------------------------------------------------------------------------------
// Direct calls to the sandbox API (test setup only: creating runs, datasets and jobs to act on)

export interface DirectAnswer {
	status: number;
	body: Record<string, unknown>;
}

export async function direct(
	sb: Sandbox,
	family: 'modelApi' | 'serverless' | 'trainer',
	method: string,
	path: string,
	body?: unknown,
): Promise<DirectAnswer> {
	const response = await fetch(`${sb.urls[family]}${path}`, {
		method,
		headers: { Authorization: `Bearer ${sb.token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await response.text();
	let parsed: Record<string, unknown> = {};
	try {
		parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
	} catch {
		parsed = { text };
	}
	return { status: response.status, body: parsed };
}

/** Submits a model run straight to the sandbox and waits (bounded) until it has completed. */
export async function completedModelRun(sb: Sandbox, model: string, body: object): Promise<string> {
	const submitted = await direct(sb, 'modelApi', 'POST', `/v1/models/${model}`, body);
	if (submitted.status !== 200) throw new Error(`setup: submit failed ${submitted.status} ${JSON.stringify(submitted.body)}`);
	const id = String(submitted.body.request_id);
	await until(() => sb.state().runs.some((r) => r.id === id && r.status === 'completed'), `run ${id} completed`);
	return id;
}

/** Creates a dataset with one caption-paired image and waits (bounded) until it is READY; returns id and name. */
export async function readyDataset(sb: Sandbox, name: string): Promise<{ id: string; name: string }> {
	const created = await direct(sb, 'trainer', 'POST', '/prod/v1/trainers/datasets', { name });
	const id = String(created.body.id ?? created.body.dataset_id);
	await direct(sb, 'trainer', 'POST', `/prod/v1/trainers/datasets/${id}/upload`, { filename: 'a.txt', text: 'a photo of sks' });
	await direct(sb, 'trainer', 'POST', `/prod/v1/trainers/datasets/${id}/upload`, {
		source_url: `${sb.urls.files}/files/a.png`,
	});
	await until(() => sb.state().datasets.some((d) => d.id === id && d.status === 'READY'), `dataset ${name} READY`);
	return { id, name };
}

/** An ai-toolkit config that satisfies the trainer's rules for a READY dataset. */
export function trainingConfig(jobName: string, datasetName: string, steps = 4, saveEvery = 2): Record<string, unknown> {
	return {
		job: 'extension',
		config: {
			name: jobName,
			process: [
				{
					type: 'sd_trainer',
					training_folder: '/app/ai-toolkit/output',
					device: 'cuda:0',
					network: { type: 'lora', linear: 16, linear_alpha: 16 },
					save: { dtype: 'float16', save_every: saveEvery, max_step_saves_to_keep: 4 },
					datasets: [{ folder_path: `/app/ai-toolkit/datasets/${datasetName}`, caption_ext: 'txt', resolution: [512] }],
					train: { batch_size: 1, steps, lr: 0.0001 },
					model: { name_or_path: 'black-forest-labs/FLUX.1-dev', is_flux: true },
				},
			],
		},
	};
}

// ---------------------------------------------------------------------------------------------------------
// Token scanning

/**
 * Every string reachable from `value`: own enumerable and non-enumerable properties (so an Error's message,
 * stack, description, cause and context are included), array entries, Map/Set entries. Buffers are decoded
 * as latin1 only when small (binary outputs are files on disk, not scanned here).
 */
export function collectStrings(value: unknown, out: string[] = [], seen = new Set<unknown>(), depth = 0): string[] {
	if (depth > 40) return out;
	if (typeof value === 'string') {
		out.push(value);
		return out;
	}
	if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return out;
	if (typeof value === 'function') return out;
	if (seen.has(value)) return out;
	seen.add(value);
	if (Buffer.isBuffer(value)) {
		if (value.length <= 1_000_000) out.push(value.toString('latin1'));
		return out;
	}
	if (ArrayBuffer.isView(value)) return out;
	if (value instanceof Map) {
		for (const [k, v] of value) {
			collectStrings(k, out, seen, depth + 1);
			collectStrings(v, out, seen, depth + 1);
		}
		return out;
	}
	if (value instanceof Set) {
		for (const v of value) collectStrings(v, out, seen, depth + 1);
		return out;
	}
	for (const key of Object.getOwnPropertyNames(value)) {
		out.push(key);
		let child: unknown;
		try {
			child = (value as Record<string, unknown>)[key];
		} catch {
			continue;
		}
		collectStrings(child, out, seen, depth + 1);
	}
	return out;
}

/** The strings of `value` that contain `secret` (empty when it does not leak). */
export function leaksOf(value: unknown, secret: string): string[] {
	return collectStrings(value).filter((s) => s.includes(secret));
}

/** What a runNode call exposes to a user: output items, the error, and the whole run record n8n keeps. */
export function exposedBy(result: RunNodeResult): unknown {
	return { items: result.items, outputs: result.outputs, error: result.error, run: result.run, taskData: result.taskData };
}
