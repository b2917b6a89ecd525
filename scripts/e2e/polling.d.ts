/** Types of scripts/e2e/polling.js (Model → Run and Training → Submit waiting by polls in a real n8n). */
import type { RequestLogEntry } from '../../sandbox';
import type { WorkflowJson } from './n8n';

/** Model → Run on each item's `model` with its `prompt` (JSON inputs), no downloads. */
export const MODEL_RUN_PARAMETERS: Record<string, unknown>;

export function modelRunWorkflow(opts: { credential: { id: string; name: string }; name?: string }): Omit<WorkflowJson, 'id'>;
export function trainingWorkflow(opts: { credential: { id: string; name: string }; name?: string }): Omit<WorkflowJson, 'id'>;

export interface WebhookCall {
	/** Around the call to the workflow's webhook, ms since the epoch. */
	startedAt: number;
	endedAt: number;
	/** The items of the workflow's last node (the Run node's output, passed through). */
	items: Array<Record<string, unknown>>;
}

/** `pollingGoal`: Wait Options → Polling Goal of the item's run (default Lowest Delay). */
export function runModels(
	baseUrl: string,
	items: Array<{ model: string; prompt: string; pollingGoal?: 'lowestDelay' | 'fewestRequests' }>,
): Promise<WebhookCall>;
export function train(
	baseUrl: string,
	job: { name: string; dataset: string; steps: number; pollSeconds: number; maxPollSeconds: number },
): Promise<WebhookCall>;

/** Status and result requests per run in the sandbox's request log, for the runs of `items` (Model → Run's output), in item order. */
export function requestsPerRun(log: RequestLogEntry[], items: Array<Record<string, unknown>>): Array<{ status: number; result: number }>;
