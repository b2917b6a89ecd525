/**
 * Shared setup of the RunComfy Dataset node tests: one sandbox per test file, credentials pointing at it,
 * datasets made straight on the sandbox (../helpers/sandboxCalls) and readers of its request log. Not a test
 * file itself.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { RequestLogEntry, Sandbox, SandboxConfig } from '../../sandbox';
import { RunComfyDataset } from '../../nodes/RunComfyDataset/RunComfyDataset.node';
import { DATASETS } from '../helpers/sandboxCalls';
import { openSandbox as openLoopbackSandbox, useSandbox as useLoopbackSandbox } from '../helpers/sandboxSetup';

export const datasetNode = new RunComfyDataset();

/** Fast sandbox: datasets READY 30 ms after the last upload, 1 ms per training step, no queue. */
export const FAST: SandboxConfig = { datasetReadyMs: 30, trainingStepMs: 1, trainingQueueMs: 0, queueMs: 0, runDurationMs: 20 };

/** Fast polling so waits finish in milliseconds. */
export const FAST_WAIT = { pollIntervalSeconds: 0.02, maxPollIntervalSeconds: 0.05, maxWaitSeconds: 20 };

/** A sandbox on loopback; by default the fast one (FAST). */
export async function openSandbox(config: SandboxConfig = FAST): Promise<Sandbox> {
	return await openLoopbackSandbox(config);
}

/** The sandbox of a test file (opened before its tests, closed with the engine after them); by default FAST. */
export function useSandbox(config: SandboxConfig = FAST): Sandbox {
	return useLoopbackSandbox(config);
}

export { credentialsFor, until } from '../helpers/sandboxSetup';
export { createDataset, readyDataset, uploadTexts } from '../helpers/sandboxCalls';

/** A resource locator value "By ID". */
export const byId = (value: string) => ({ __rl: true, mode: 'id', value });

export function datasetParams(operation: string, datasetId: string, extra: INodeParameters = {}): INodeParameters {
	return { resource: 'dataset', operation, dataset: byId(datasetId), waitOptions: FAST_WAIT, ...extra };
}

export const trainerCalls = (sb: Sandbox, since = 0) => sb.log(since).filter((e) => e.api === 'trainer');
export const isDatasetUpload = (e: RequestLogEntry) => e.method === 'POST' && e.path.startsWith(DATASETS) && e.path.endsWith('/upload');
export const isUploadEndpoint = (e: RequestLogEntry) => e.method === 'POST' && e.path.endsWith('/get-upload-endpoint');
export const isSignedPut = (e: RequestLogEntry) => e.api === 'files' && e.method === 'PUT';

/** A tiny valid PNG (1x1). */
export const PNG = Buffer.from(
	'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
	'base64',
);

export const image = (fileName: string, json: IDataObject = {}) => ({
	json,
	binary: { data: { data: PNG, mimeType: 'image/png', fileName } },
});
