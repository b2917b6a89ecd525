/**
 * Shared setup of the RunComfy Training node tests: one sandbox per test file (fast training steps, datasets
 * made straight on the sandbox), credentials pointing at it, a run of the node with fast polling, a small
 * ai-toolkit config and readers of the request log. Not a test file itself.
 */
import type { INodeParameters } from 'n8n-workflow';

import type { RequestLogEntry, Sandbox, SandboxConfig } from '../../sandbox';
import { RunComfyTraining } from '../../nodes/RunComfyTraining/RunComfyTraining.node';
import { runNode } from '../helpers/engine';
import type { RunNodeOptions, RunNodeResult } from '../helpers/engine';
import { JOBS } from '../helpers/sandboxCalls';
import { credentialsFor, useSandbox as useLoopbackSandbox } from '../helpers/sandboxSetup';

export const node = new RunComfyTraining();

/** Fast sandbox: 1 ms per training step, no queue, datasets READY 30 ms after the last upload. */
export const FAST: SandboxConfig = { datasetReadyMs: 30, trainingStepMs: 1, trainingQueueMs: 0, queueMs: 0, runDurationMs: 20 };

/** Fast polling so waits finish in milliseconds. */
export const FAST_WAIT = { pollIntervalSeconds: 0.02, maxPollIntervalSeconds: 0.05, maxWaitSeconds: 20 };

/** The sandbox of a test file (opened before its tests, closed with the engine after them); by default FAST. */
export function useSandbox(config: SandboxConfig = FAST): Sandbox {
	return useLoopbackSandbox(config);
}

export { credentialsFor, until } from '../helpers/sandboxSetup';
export { createDataset, readyDataset, uploadTexts } from '../helpers/sandboxCalls';

/** A resource locator value "By ID". */
export const byId = (value: string) => ({ __rl: true, mode: 'id', value });

/** Runs the node on a training job with fast polling (`parameters` override both). */
export async function runTraining(sb: Sandbox, parameters: INodeParameters, extra: Partial<RunNodeOptions> = {}): Promise<RunNodeResult> {
	return await runNode({
		node,
		credentials: credentialsFor(sb),
		parameters: { resource: 'trainingJob', waitOptions: FAST_WAIT, ...parameters },
		...extra,
	});
}

/** A small ai-toolkit config on a dataset (by name): a checkpoint every 10 steps, and samples when asked. */
export function textConfig(o: { name: string; dataset: string; steps?: number; model?: string; samples?: string[] }): string {
	const samples = o.samples?.length
		? `      sample:\n        sample_every: 10\n        prompts:\n${o.samples.map((p) => `          - ${p}\n`).join('')}`
		: '';
	return `job: extension
config:
  name: ${o.name}
  process:
    - type: sd_trainer
      training_folder: /app/ai-toolkit/output
      datasets:
        - folder_path: /app/ai-toolkit/datasets/${o.dataset}
      save:
        save_every: 10
${samples}      train:
        steps: ${o.steps ?? 20}
      model:
        name_or_path: ${o.model ?? 'black-forest-labs/FLUX.1-dev'}
`;
}

export const isJobSubmit = (e: RequestLogEntry) => e.api === 'trainer' && e.method === 'POST' && e.path === JOBS;
export const isJobCall = (suffix: string) => (e: RequestLogEntry) =>
	e.api === 'trainer' && e.method === 'POST' && e.path.startsWith(`${JOBS}/`) && e.path.endsWith(`/${suffix}`);

/** Submit with the Simple form on `datasetId` (no wait unless `extra` says so). */
export function simpleParams(datasetId: string, extra: INodeParameters = {}): INodeParameters {
	return {
		resource: 'trainingJob',
		operation: 'submit',
		configMode: 'simple',
		jobName: 'p3r5on_v1',
		baseModel: 'flux-dev',
		dataset: byId(datasetId),
		steps: 40,
		learningRate: 0.0002,
		rank: 8,
		triggerWord: 'p3r5on',
		samplePrompts: 'a photo of [trigger] on a beach\n\nportrait of [trigger]',
		simpleOptions: { saveEvery: 10 },
		waitForCompletion: false,
		waitOptions: FAST_WAIT,
		...extra,
	};
}
