/** Types of scripts/e2e/parking.js (parked Inference → Run in a real n8n). */
import type { ExecutionSummary, RestClient, WorkflowJson } from './n8n';

export function parkingWorkflow(opts: { credential: { id: string; name: string }; path?: string; name?: string }): Omit<WorkflowJson, 'id'>;

/** The parking workflow with a second parking node, "Run Again" (each item again on its `again` deployment). */
export function twoParksWorkflow(opts: { credential: { id: string; name: string }; path?: string; name?: string }): Omit<WorkflowJson, 'id'>;

export function waitFor<T>(what: string, check: () => Promise<T | undefined | false | null>, opts?: { limitMs?: number; intervalMs?: number }): Promise<T>;

/** A webhook delivery in the sandbox's request log still waiting for its answer. */
export function deliveryInFlight(entry: { api?: string; status?: number; error?: string; refused?: unknown }): boolean;

/** The parked node's requests among the sandbox's runs, in item order (runs without a callback URL left out). */
export function requestsByItem<T extends { webhook?: string }>(runs: T[]): T[];

/** The body of one run: `items` become the Run node's input items. */
export interface ParkBody {
	/** `again`: the deployment of "Run Again" (twoParksWorkflow). */
	items: Array<{ deployment: string; prompt: string; again?: string }>;
	maxWait?: number;
	onTimeout?: 'fail' | 'returnRunning';
	intermediate?: boolean;
	download?: boolean;
}

export function startRun(
	rest: RestClient,
	baseUrl: string,
	opts: { path?: string; workflowId: string; known: Set<string>; body: ParkBody },
): Promise<string>;


export function waitForStatus(
	rest: RestClient,
	workflowId: string,
	id: string,
	statuses: string[],
	opts?: { limitMs?: number; intervalMs?: number },
): Promise<ExecutionSummary>;
