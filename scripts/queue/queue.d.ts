/**
 * Types of scripts/queue/queue.js (n8n queue mode on one machine), for the TypeScript queue-mode test.
 */
import type { CredentialJson, N8nInstance, UserFolder, WorkflowJson } from '../e2e/n8n';

/** n8n environment for queue mode as printed by `services.sh start` (EXECUTIONS_MODE, QUEUE_BULL_REDIS_*, DB_*). */
export type QueueServiceEnv = Record<string, string>;

export interface QueueServices {
	env: QueueServiceEnv;
	stateDir: string;
	redisPort: number;
	pgPort: number;
	/** What services.sh printed on stderr (install/start steps). */
	log: string;
	/** Stops Redis and PostgreSQL; `purge` (default true) removes the state folder. */
	stop(opts?: { purge?: boolean }): Promise<void>;
}

export interface QueueWorker {
	name: string;
	process: N8nInstance['process'];
	healthUrl: string;
	hostId?: string;
	logs(): string;
	/** Execution ids this worker started (from its log). */
	executions(): string[];
	stop(): Promise<void>;
	exited: Promise<{ code: number | null; signal: string | null }>;
}

/** An `n8n webhook` process: production and waiting webhooks, no editor. */
export interface QueueWebhook {
	name: string;
	url: string;
	port: number;
	process: N8nInstance['process'];
	logs(): string;
	stop(): Promise<void>;
	exited: Promise<{ code: number | null; signal: string | null }>;
}

export interface QueueCluster {
	main: N8nInstance;
	workers: QueueWorker[];
	/** With `webhook: true`: the process WEBHOOK_URL names. */
	webhook?: QueueWebhook;
	env: Record<string, string>;
	executionsByWorker(): Record<string, string[]>;
	stop(): Promise<void>;
}

export function startServices(opts?: {
	stateDir?: string;
	redisPort?: number;
	pgPort?: number;
	timeoutMs?: number;
}): Promise<QueueServices>;
export function queueEnv(services: { env: QueueServiceEnv }, extra?: Record<string, string>): Record<string, string>;
export function startWorker(
	userFolder: UserFolder,
	env: Record<string, string>,
	opts?: { concurrency?: number; name?: string; readyTimeoutMs?: number; echo?: boolean },
): Promise<QueueWorker>;
export function startCluster(
	userFolder: UserFolder,
	opts: {
		services: { env: QueueServiceEnv };
		workers?: number;
		concurrency?: number;
		webhook?: boolean;
		env?: Record<string, string>;
		readyTimeoutMs?: number;
		echo?: boolean;
		log?: (msg: string) => void;
	},
): Promise<QueueCluster>;
export function importCredential<T extends CredentialJson | CredentialJson[]>(
	userFolder: UserFolder,
	services: { env: QueueServiceEnv },
	credentials: T,
): Promise<T>;
export function importWorkflow<T extends string | object | Array<string | object>>(
	userFolder: UserFolder,
	services: { env: QueueServiceEnv },
	workflows: T,
	opts?: { credential?: { id: string; name: string }; publish?: boolean },
): Promise<T extends unknown[] ? WorkflowJson[] : WorkflowJson>;
