/**
 * Shared setup of the RunComfy Trigger tests: one sandbox per file, credentials pointing at it, a poll() bound to
 * the trigger, and direct calls to the sandbox (create datasets, upload, submit training jobs and runs) with
 * axios, as another system would. Not a test file itself.
 */
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import type { Sandbox, SandboxConfig } from '../../sandbox';
import { RunComfyTrigger } from '../../nodes/RunComfyTrigger/RunComfyTrigger.node';
import { credentialsFor, openSandbox as openLoopbackSandbox } from '../helpers/sandboxSetup';
import { pollWorkflow } from './harness';
import { client, pollUntil } from '../sandbox/helpers';

export { client, credentialsFor, pollUntil };

export const trigger = new RunComfyTrigger();

export const DATASETS = '/prod/v1/trainers/datasets';
export const JOBS = '/prod/v1/trainers/ai-toolkit/jobs';

/** A sandbox on loopback with fast runs, training and dataset processing (`config` overrides). */
export async function openSandbox(config: SandboxConfig = {}): Promise<Sandbox> {
	return await openLoopbackSandbox({
		runDurationMs: 20,
		queueMs: 0,
		trainingStepMs: 1,
		trainingQueueMs: 0,
		datasetReadyMs: 10,
		...config,
	});
}

/**
 * One scheduled poll (mode 'trigger') or "Fetch Test Event" (mode 'manual'); returns the emitted JSON or null.
 * `staticData` is the workflow's static data (pass the same object to later polls); `node` names the trigger
 * node (default "RunComfy Trigger", id "trigger-node").
 */
export async function pollOnce(
	sb: Sandbox,
	parameters: INodeParameters,
	staticData: IDataObject,
	mode: 'trigger' | 'manual' = 'trigger',
	node: { name?: string; id?: string } = {},
): Promise<IDataObject[] | null> {
	const out: INodeExecutionData[][] | null = await pollWorkflow({
		node: trigger,
		parameters,
		credentials: credentialsFor(sb),
		workflowStaticData: staticData,
		mode,
		nodeName: node.name,
		nodeId: node.id,
	});
	if (out === null) return null;
	expect(out).toHaveLength(1);
	return out[0].map((item) => item.json);
}

// ------------------------------------------------------------------------------------------------------------
// Trainer

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

export function datasetState(sb: Sandbox, id: string) {
	const d = sb.state().datasets.find((x) => x.id === id);
	if (!d) throw new Error(`dataset ${id} not in the sandbox`);
	return d;
}

/** Waits (by polling the sandbox's own state, not by sleeping) until the dataset has this status. */
export async function datasetReaches(sb: Sandbox, id: string, status: string, files?: number): Promise<void> {
	await pollUntil(
		async () => datasetState(sb, id),
		(d) => d.status === status && (files === undefined || d.files.length === files),
	);
}

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

export async function jobReaches(
	sb: Sandbox,
	id: string,
	done: (j: ReturnType<typeof jobState>) => boolean,
): Promise<void> {
	await pollUntil(async () => jobState(sb, id), done);
}

// ------------------------------------------------------------------------------------------------------------
// Runs

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

export function runState(sb: Sandbox, id: string) {
	const r = sb.state().runs.find((x) => x.id === id);
	if (!r) throw new Error(`run ${id} not in the sandbox`);
	return r;
}

export async function runReaches(sb: Sandbox, id: string, status: string): Promise<void> {
	await pollUntil(async () => runState(sb, id), (r) => r.status === status);
}
