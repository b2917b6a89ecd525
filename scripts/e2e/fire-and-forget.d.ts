/** Types of scripts/e2e/fire-and-forget.js (workflow A submits with Deliver Results To, workflow B receives). */
import type { ExecutionSummary, RestClient, RunJson, WorkflowJson } from './n8n';

export function submitterWorkflow(opts: { credential: { id: string; name: string }; path?: string; name?: string }): Omit<WorkflowJson, 'id'>;
export function receiverWorkflow(opts: { token: string; credential: { id: string; name: string }; name?: string }): Omit<WorkflowJson, 'id'>;
export function plainWebhookReceiverWorkflow(opts: { token: string; credential: { id: string; name: string }; name?: string }): Omit<WorkflowJson, 'id'>;
export function productionUrl(baseUrl: string, token: string): string;

export interface SubmittedBatch {
	/** Around the call to workflow A's webhook, ms since the epoch. */
	startedAt: number;
	endedAt: number;
	/** The items of A's last node (the Run node's output, passed through). */
	items: Array<Record<string, unknown>>;
}

export function submitBatch(
	baseUrl: string,
	opts: { path?: string; deployment: string; n: number; deliverTo: string; intermediate?: boolean; prefix?: string },
): Promise<SubmittedBatch>;

export function allExecutions(rest: RestClient, workflowId: string): Promise<ExecutionSummary[]>;
export function executionsOf(rest: RestClient, workflowId: string, count: number, opts?: { limitMs?: number }): Promise<ExecutionSummary[]>;

export interface ReceivedRun {
	id: string;
	status: string;
	mode: string;
	startedAt: number;
	stoppedAt: number;
	fired: Array<Record<string, unknown>>;
	kept: Array<Record<string, unknown>>;
	raw: RunJson;
}
export function receivedRuns(rest: RestClient, executions: ExecutionSummary[]): Promise<ReceivedRun[]>;

interface LogEntryLike {
	api: string;
	status: number;
	time: number;
	event?: string;
	requestId?: string;
	attempt?: number;
	duplicate?: boolean;
	outOfOrder?: boolean;
	error?: string;
	refused?: string;
}

export function deliveriesSettled(log: LogEntryLike[], ids: string[]): boolean;

export interface DeliveryStats {
	attempts: number;
	answered: number;
	notAnswered: number;
	notAnsweredBy: Record<string, number>;
	retries: number;
	finalAnswered: number;
	duplicates: number;
	finalDuplicatesAnswered: number;
	outOfOrder: number;
	intermediate: number;
	lastFinalAt: number;
}
export function deliveryStats(log: LogEntryLike[], ids: string[]): DeliveryStats;
export function isFinal(e: LogEntryLike): boolean;
