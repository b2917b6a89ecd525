/**
 * Shared setup of the RunComfy Deployment node tests: one sandbox per test file, credentials pointing at
 * it, the seeded deployments, parameter builders and readers of the sandbox request log. Not a test file.
 */
import type { INodeParameters } from 'n8n-workflow';

import type { RequestLogEntry, Sandbox, SandboxConfig } from '../../sandbox';
import { RunComfyDeployment } from '../../nodes/RunComfyDeployment/RunComfyDeployment.node';
import { openSandbox as openLoopbackSandbox, useSandbox as useLoopbackSandbox } from '../helpers/sandboxSetup';

export const node = new RunComfyDeployment();

/** Fast requests: no queue, 30 ms of work; cancellations confirmed quickly. */
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

/** The deployments the sandbox seeds, looked up by name (their ids are the sandbox's business). */
export function deploymentId(
	sb: Sandbox,
	name: 'sdxl-text-to-image' | 'flux-image-to-image' | 'paused-text-to-image' | 'wan-image-to-video',
): string {
	const found = sb.state().deployments.find((d) => d.name === name);
	if (!found) throw new Error(`The sandbox has no deployment "${name}"`);
	return found.id;
}

export const locator = (id: string, mode: 'list' | 'id' = 'list') => ({ __rl: true, mode, value: id });

/** Fast polling so tests finish in milliseconds. */
export const FAST_WAIT = { pollIntervalSeconds: 0.02, maxPollIntervalSeconds: 0.05, maxWaitSeconds: 20 };

/** Parameters of Inference → Run with overrides as JSON. */
export function runJson(id: string, overrides: object, extra: INodeParameters = {}): INodeParameters {
	return {
		resource: 'inference',
		operation: 'run',
		deploymentId: locator(id),
		inputMode: 'json',
		overridesJson: JSON.stringify(overrides),
		waitOptions: FAST_WAIT,
		downloadOutputs: false,
		...extra,
	};
}

const INFERENCE = /^\/prod\/v[12]\/deployments\/[^/]+\/inference$/;
export const isInference = (e: RequestLogEntry) => e.api === 'serverless' && e.method === 'POST' && INFERENCE.test(e.path);
export const isStatus = (e: RequestLogEntry) => e.api === 'serverless' && e.method === 'GET' && /\/requests\/[^/]+\/status$/.test(e.path);
export const isResult = (e: RequestLogEntry) => e.api === 'serverless' && e.method === 'GET' && /\/requests\/[^/]+\/result$/.test(e.path);
export const isCancel = (e: RequestLogEntry) => e.api === 'serverless' && e.method === 'POST' && /\/requests\/[^/]+\/cancel$/.test(e.path);
export const isRequestDelete = (e: RequestLogEntry) => e.api === 'serverless' && e.method === 'DELETE' && /\/requests\/[^/]+$/.test(e.path);
/** Calls that change something on the service (inference, create, update, delete). */
export const isWrite = (e: RequestLogEntry) => e.api === 'serverless' && e.method !== 'GET' && e.status < 500;

export const inferences = (sb: Sandbox) => sb.log().filter(isInference);
export const inferenceBodies = (sb: Sandbox) => inferences(sb).map((e) => e.body);
