/* eslint-disable @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-restricted-imports */
/**
 * Calls straight to the sandbox, as another system (or the user's other workflows) would make them: create and
 * fill datasets, submit training jobs, model runs and deployment requests, and wait (by polling the sandbox's own
 * state, never by sleeping) until they reach a state. Shared by the node suites; not a test file itself.
 */
import { Agent } from 'http';

import axios, { type AxiosInstance } from 'axios';

import type { Sandbox } from '../../sandbox';

/**
 * A connection per request: a kept-alive one that the sandbox closes after its idle timeout just as a busy test
 * machine reuses it fails with ECONNRESET (seen in CI).
 */
const freshConnections = new Agent({ keepAlive: false });

/** An axios client that sends the bearer token and never throws on HTTP status. */
export function client(sb: Sandbox, token: string | null = sb.token): AxiosInstance {
	return axios.create({
		httpAgent: freshConnections,
		headers: token === null ? {} : { Authorization: `Bearer ${token}` },
		validateStatus: () => true,
		maxBodyLength: Infinity,
		maxContentLength: Infinity,
		// no follow-redirects layer: it would buffer whole request bodies in memory
		maxRedirects: 0,
	});
}

/** Polls `fn` until `done` holds, at most `max` times (5 ms apart); fails with the last value otherwise. */
export async function pollUntil<T>(fn: () => Promise<T>, done: (v: T) => boolean, max = 1000): Promise<T> {
	let last: T | undefined;
	for (let i = 0; i < max; i++) {
		last = await fn();
		if (done(last)) return last;
		await new Promise((resolve) => setTimeout(resolve, 5));
	}
	throw new Error(`condition not reached after ${max} polls; last value: ${JSON.stringify(last)}`);
}

// ------------------------------------------------------------------------------------------------------------
// Trainer: datasets and training jobs

export const DATASETS = '/prod/v1/trainers/datasets';
export const JOBS = '/prod/v1/trainers/ai-toolkit/jobs';

export function trainingConfig(opts: { name: string; dataset: string; steps?: number; saveEvery?: number }): string {
	const saveEvery = opts.saveEvery ?? 5;
	return `job: extension
config:
  name: ${opts.name}
  process:
    - type: sd_trainer
      training_folder: /app/ai-toolkit/output
      device: cuda:0
      trigger_word: sks
      network: { type: lora, linear: 16, linear_alpha: 16 }
      save: { dtype: float16, save_every: ${saveEvery}, max_step_saves_to_keep: 4 }
      datasets:
        - folder_path: /app/ai-toolkit/datasets/${opts.dataset}
          caption_ext: txt
          resolution: [512, 768, 1024]
      train: { batch_size: 1, steps: ${opts.steps ?? 20}, lr: 0.0001, optimizer: adamw8bit }
      model: { name_or_path: black-forest-labs/FLUX.1-dev, is_flux: true, quantize: true }
      sample: { sample_every: ${saveEvery}, prompts: ['a photo of sks dog'] }
`;
}

function imageForm(filename: string, size = 2000): FormData {
	const fd = new FormData();
	fd.append('file', new Blob([new Uint8Array(Buffer.alloc(size, 1))], { type: 'image/jpeg' }), filename);
	return fd;
}

export async function createDataset(sb: Sandbox, name: string): Promise<string> {
	const res = await client(sb).post(`${sb.urls.trainer}${DATASETS}`, { name });
	expect(res.status).toBe(200);
	return res.data.id as string;
}

/** Uploads one image (multipart) and its caption (JSON text), as the Dataset node or the CLI would. */
export async function uploadPair(sb: Sandbox, datasetId: string, base: string): Promise<void> {
	const img = await client(sb).post(`${sb.urls.trainer}${DATASETS}/${datasetId}/upload`, imageForm(`${base}.jpg`));
	expect(img.status).toBe(200);
	const cap = await client(sb).post(`${sb.urls.trainer}${DATASETS}/${datasetId}/upload`, {
		filename: `${base}.txt`,
		text: 'a photo of sks dog',
	});
	expect(cap.status).toBe(200);
}

/** Uploads files as text (JSON {filename, text}), whatever their extension says. */
export async function uploadTexts(sb: Sandbox, datasetId: string, files: Record<string, string>): Promise<void> {
	for (const [filename, text] of Object.entries(files)) {
		const res = await client(sb).post(`${sb.urls.trainer}${DATASETS}/${datasetId}/upload`, { filename, text });
		expect(res.status).toBe(200);
	}
}

export function datasetState(sb: Sandbox, id: string) {
	const d = sb.state().datasets.find((x) => x.id === id);
	if (!d) throw new Error(`dataset ${id} not in the sandbox`);
	return d;
}

/** Waits until the dataset has this status (and this many files, when given). */
export async function datasetReaches(sb: Sandbox, id: string, status: string, files?: number): Promise<void> {
	await pollUntil(
		async () => datasetState(sb, id),
		(d) => d.status === status && (files === undefined || d.files.length === files),
	);
}

/** A READY dataset with one captioned image; resolves with its id once it is READY. */
export async function readyDataset(sb: Sandbox, name: string): Promise<string> {
	const id = await createDataset(sb, name);
	await uploadPair(sb, id, 'img_0001');
	await datasetReaches(sb, id, 'READY');
	return id;
}

export async function submitJob(sb: Sandbox, name: string, dataset: string, steps = 20): Promise<string> {
	const res = await client(sb).post(`${sb.urls.trainer}${JOBS}`, {
		config_file_format: 'yaml',
		config_file: trainingConfig({ name, dataset, steps }),
		gpu_type: 'ADA_80_PLUS',
	});
	expect(res.status).toBe(200);
	return res.data.id as string;
}

export function jobState(sb: Sandbox, id: string) {
	const j = sb.state().jobs.find((x) => x.id === id);
	if (!j) throw new Error(`job ${id} not in the sandbox`);
	return j;
}

export async function jobReaches(sb: Sandbox, id: string, done: (j: ReturnType<typeof jobState>) => boolean): Promise<void> {
	await pollUntil(async () => jobState(sb, id), done);
}

// ------------------------------------------------------------------------------------------------------------
// Runs: model runs and deployment requests

export const MODEL_OK = 'blackforestlabs/flux-2/flash/text-to-image';
export const MODEL_FAILS = 'runcomfy/test/always-fails';

export async function submitModelRun(sb: Sandbox, model = MODEL_OK): Promise<string> {
	const res = await client(sb).post(`${sb.urls.modelApi}/v1/models/${model}`, { prompt: 'a red fox' });
	expect(res.status).toBeLessThan(300);
	return res.data.request_id as string;
}

export async function submitInference(sb: Sandbox, deploymentId: string): Promise<string> {
	const res = await client(sb).post(`${sb.urls.serverless}/prod/v2/deployments/${deploymentId}/inference`, {
		overrides: { '6': { inputs: { text: 'a red fox' } } },
	});
	expect(res.status).toBeLessThan(300);
	return res.data.request_id as string;
}

/** How long the requests that hold a queue run unless released (far beyond any test). */
const HOLD_MS = 600_000;

/**
 * Holds a deployment's queue, as a busy service would: its capacity becomes `slots`, and `slots` requests of 10
 * minutes take every slot, so the requests submitted next wait in_queue until `release()` cancels the holders;
 * they start from that moment and run their usual time. For tests that must act while requests are provably not
 * done (park, stop n8n, ...) instead of racing their run time. The holders carry no webhook.
 */
export async function holdDeploymentQueue(sb: Sandbox, deploymentId: string, slots: number): Promise<{ release: () => Promise<void> }> {
	sb.configure({ capacities: { [deploymentId]: slots }, modelDurations: { [deploymentId]: HOLD_MS } });
	const holders: string[] = [];
	for (let i = 0; i < slots; i++) holders.push(await submitInference(sb, deploymentId));
	// Run times are drawn at submission: the requests after the holders get the deployment's usual time again.
	sb.configure({ modelDurations: { [deploymentId]: undefined as unknown as number } });
	return {
		release: async () => {
			for (const id of holders) {
				const res = await client(sb).post(`${sb.urls.serverless}/prod/v2/deployments/${deploymentId}/requests/${id}/cancel`);
				expect(res.status).toBeLessThan(300);
			}
		},
	};
}

export function runState(sb: Sandbox, id: string) {
	const r = sb.state().runs.find((x) => x.id === id);
	if (!r) throw new Error(`run ${id} not in the sandbox`);
	return r;
}

export async function runReaches(sb: Sandbox, id: string, status: string): Promise<void> {
	await pollUntil(
		async () => runState(sb, id),
		(r) => r.status === status,
	);
}
