/** Types of scripts/e2e/polling.js (Model → Run and Training → Submit waiting by polls in a real n8n). */
import type { RequestLogEntry } from '../../sandbox';
import type { UserFolder, WorkflowJson } from './n8n';

/** Model → Run on each item's `model` with its `prompt` (JSON inputs), no downloads. */
export const MODEL_RUN_PARAMETERS: Record<string, unknown>;

export function modelRunWorkflow(opts: { credential: { id: string; name: string }; name?: string }): Omit<WorkflowJson, 'id'>;
/** The node name of the RSS Feed Trigger in besidePollingTriggerWorkflow (its cursor: `node:<name>` in static data). */
export const RSS_TRIGGER: string;
/** The model workflow with n8n's RSS Feed Trigger polling `feedUrl` beside it. */
export function besidePollingTriggerWorkflow(opts: { credential: { id: string; name: string }; feedUrl: string }): Omit<WorkflowJson, 'id'>;
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
export function runModelsBeside(baseUrl: string, items: Array<{ model: string; prompt: string }>): Promise<WebhookCall>;
/** Reads (no `data`) or replaces a workflow's static data in the user folder's SQLite database. */
export function staticData(n8nHome: string, userFolder: UserFolder, workflowId: string): Promise<Record<string, unknown>>;
export function staticData(n8nHome: string, userFolder: UserFolder, workflowId: string, data: Record<string, unknown>): Promise<unknown>;
export function train(
	baseUrl: string,
	job: { name: string; dataset: string; steps: number; pollSeconds: number; maxPollSeconds: number },
): Promise<WebhookCall>;

/** Status and result requests per run in the sandbox's request log, for the runs of `items` (Model → Run's output), in item order. */
export function requestsPerRun(log: RequestLogEntry[], items: Array<Record<string, unknown>>): Array<{ status: number; result: number }>;
