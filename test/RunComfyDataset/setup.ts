/**
 * Shared setup of the RunComfy Dataset and Training node tests: one sandbox per test file, credentials pointing
 * at it, helpers to make datasets in the sandbox and to read its request log. Not a test file itself.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import type { RequestLogEntry, Sandbox, SandboxConfig } from '../../sandbox';
import { openSandbox as openLoopbackSandbox, until, useSandbox as useLoopbackSandbox } from '../helpers/sandboxSetup';
import { RunComfyDataset } from '../../nodes/RunComfyDataset/RunComfyDataset.node';

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

/** A resource locator value "By ID". */
export const byId = (value: string) => ({ __rl: true, mode: 'id', value });

export function datasetParams(operation: string, datasetId: string, extra: INodeParameters = {}): INodeParameters {
	return { resource: 'dataset', operation, dataset: byId(datasetId), waitOptions: FAST_WAIT, ...extra };
}

const DS = '/prod/v1/trainers/datasets';
export const trainerCalls = (sb: Sandbox, since = 0) => sb.log(since).filter((e) => e.api === 'trainer');
export const isDatasetUpload = (e: RequestLogEntry) => e.method === 'POST' && e.path.startsWith(DS) && e.path.endsWith('/upload');
export const isUploadEndpoint = (e: RequestLogEntry) => e.method === 'POST' && e.path.endsWith('/get-upload-endpoint');
export const isSignedPut = (e: RequestLogEntry) => e.api === 'files' && e.method === 'PUT';
export const isJobSubmit = (e: RequestLogEntry) => e.api === 'trainer' && e.method === 'POST' && e.path === '/prod/v1/trainers/ai-toolkit/jobs';
export const isJobCall = (suffix: string) => (e: RequestLogEntry) =>
	e.api === 'trainer' && e.method === 'POST' && e.path.startsWith('/prod/v1/trainers/ai-toolkit/jobs/') && e.path.endsWith(`/${suffix}`);

/** A tiny valid PNG (1x1). */
export const PNG = Buffer.from(
	'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
	'base64',
);

export const image = (fileName: string, json: IDataObject = {}) => ({
	json,
	binary: { data: { data: PNG, mimeType: 'image/png', fileName } },
});

/** Creates a dataset straight on the sandbox's API (not through the node) and returns its id. */
export async function createDatasetDirect(sb: Sandbox, name: string): Promise<string> {
	const res = await fetch(`${sb.urls.trainer}${DS}`, {
		method: 'POST',
		headers: { Authorization: `Bearer ${sb.token}`, 'Content-Type': 'application/json' },
		body: JSON.stringify({ name }),
	});
	const body = (await res.json()) as { id: string };
	return body.id;
}

/** Uploads text files straight on the sandbox's API (JSON {filename, text}). */
export async function uploadTextDirect(sb: Sandbox, datasetId: string, files: Record<string, string>): Promise<void> {
	for (const [filename, text] of Object.entries(files)) {
		await fetch(`${sb.urls.trainer}${DS}/${datasetId}/upload`, {
			method: 'POST',
			headers: { Authorization: `Bearer ${sb.token}`, 'Content-Type': 'application/json' },
			body: JSON.stringify({ filename, text }),
		});
	}
}

/** A READY dataset with one captioned image, made directly on the sandbox. Resolves once it is READY. */
export async function readyDataset(sb: Sandbox, name: string): Promise<string> {
	const id = await createDatasetDirect(sb, name);
	await uploadTextDirect(sb, id, { 'img_0001.jpg': 'x', 'img_0001.txt': 'a photo of p3r5on' });
	await until(() => sb.state().datasets.find((d) => d.id === id)?.status === 'READY', `dataset ${name} READY`);
	return id;
}
