/**
 * Shared setup of the RunComfy Model node tests: one sandbox per test file, credentials pointing at it,
 * and small readers of the sandbox request log. Not a test file itself.
 */
import type { INodeParameters } from 'n8n-workflow';

import type { RequestLogEntry, Sandbox, SandboxConfig } from '../../sandbox';
import { openSandbox as openLoopbackSandbox, useSandbox as useLoopbackSandbox } from '../helpers/sandboxSetup';
import { RunComfyModel } from '../../nodes/RunComfyModel/RunComfyModel.node';

export const node = new RunComfyModel();

export const MODELS = {
	flash: 'blackforestlabs/flux-2/flash/text-to-image',
	lora: 'blackforestlabs/flux-1/dev/lora/text-to-image',
	imageToVideo: 'kling/kling-2-1/pro/image-to-video',
	imageEditPlural: 'google/nano-banana/edit',
	large: 'runcomfy/test/large-output',
	fails: 'runcomfy/test/always-fails',
	mixedHosts: 'runcomfy/test/mixed-hosts',
} as const;

/** Fast runs: no queue, 30 ms of work. */
export const FAST: SandboxConfig = { runDurationMs: 30, queueMs: 0 };

/** A sandbox on loopback; by default with fast runs (FAST). */
export async function openSandbox(config: SandboxConfig = FAST): Promise<Sandbox> {
	return await openLoopbackSandbox(config);
}

/** The sandbox of a test file (opened before its tests, closed after them); by default with fast runs (FAST). */
export function useSandbox(config: SandboxConfig = FAST): Sandbox {
	return useLoopbackSandbox(config);
}

export { credentialsFor, until } from '../helpers/sandboxSetup';

/** Fast polling so tests finish in milliseconds. */
export const FAST_WAIT = { pollIntervalSeconds: 0.05, maxPollIntervalSeconds: 0.1, maxWaitSeconds: 20 };

/** Parameters of a Run in JSON mode. */
export function runParams(model: string, body: object, extra: INodeParameters = {}): INodeParameters {
	return {
		resource: 'model',
		operation: 'run',
		model: { __rl: true, mode: 'id', value: model },
		inputMode: 'json',
		inputsJson: JSON.stringify(body),
		waitOptions: FAST_WAIT,
		...extra,
	};
}

export const isSubmit = (e: RequestLogEntry) => e.api === 'model' && e.method === 'POST' && /^\/v1\/models\//.test(e.path);
export const isStatus = (e: RequestLogEntry) => e.api === 'model' && e.method === 'GET' && /\/status$/.test(e.path);
export const isResult = (e: RequestLogEntry) => e.api === 'model' && e.method === 'GET' && /\/result$/.test(e.path);
export const isCancel = (e: RequestLogEntry) => e.api === 'model' && e.method === 'POST' && /\/cancel$/.test(e.path);
export const requestIdOf = (e: RequestLogEntry) => e.path.split('/')[3];

export const submits = (sb: Sandbox) => sb.log().filter(isSubmit);
export const paidCalls = (sb: Sandbox) => submits(sb).length;
