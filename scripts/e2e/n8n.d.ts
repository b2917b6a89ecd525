/**
 * Types of scripts/e2e/n8n.js (the real-n8n harness, implemented in scripts/e2e/lib/), for the TypeScript
 * e2e tests.
 */
export const ROOT: string;
export const PACKAGE_NAME: string;
export const N8N_VERSION: string;
export const N8N_1X_VERSION: string;
export const CACHE_DIR: string;
export const CREDENTIAL_NAME: string;
export const CREDENTIAL_TYPE: string;
export const NODE_TYPES: {
	model: string;
	deployment: string;
	dataset: string;
	training: string;
	trigger: string;
	webhookTrigger: string;
};

export interface Owner {
	email: string;
	firstName: string;
	lastName: string;
	password: string;
}
export const DEFAULT_OWNER: Owner;

export interface UserFolder {
	dir: string;
	n8nDir: string;
	packageDir: string;
	encryptionKey: string;
	/** Files package.json lists that dist/ lacks (left out of the installed manifest). */
	missing: string[];
	keep: boolean;
	cleanup(): void;
}

export interface CredentialJson {
	id: string;
	name: string;
	type: string;
	data: Record<string, string>;
}

export interface WorkflowJson {
	id: string;
	name: string;
	nodes: Array<{
		id?: string;
		name: string;
		type: string;
		typeVersion: number;
		position: [number, number];
		parameters: Record<string, unknown>;
		credentials?: Record<string, { id: string; name: string }>;
		[key: string]: unknown;
	}>;
	connections: Record<string, unknown>;
	[key: string]: unknown;
}

export interface BinaryMeta {
	id?: string;
	data?: string;
	mimeType: string;
	fileName?: string;
	fileExtension?: string;
	fileSize?: string;
	bytes?: number;
	[key: string]: unknown;
}

export interface ExecutionItem {
	json: Record<string, unknown>;
	binary?: Record<string, BinaryMeta>;
	pairedItem?: { item: number } | Array<{ item: number }>;
	error?: unknown;
}

export interface RunJson {
	status: string;
	finished?: boolean;
	mode?: string;
	data: {
		resultData: {
			runData: Record<string, Array<{ data?: { main: ExecutionItem[][] }; error?: Record<string, unknown>; executionStatus?: string }>>;
			lastNodeExecuted?: string;
			error?: Record<string, unknown>;
		};
	};
	[key: string]: unknown;
}

export interface CliResult {
	code: number | null;
	signal: string | null;
	stdout: string;
	stderr: string;
}

export interface SandboxLike {
	token: string;
	urls: { modelApi: string; serverless: string; trainer: string };
}

export interface N8nInstance {
	url: string;
	port: number;
	/** The version of this n8n. */
	version: string;
	/** The `n8n start` process (its own process group). */
	process: { pid?: number; exitCode: number | null; kill(signal?: string): boolean };
	logs(): string;
	rest: RestClient;
	stop(): Promise<void>;
}

export interface RestClient {
	baseUrl: string;
	cookies: Map<string, string>;
	browserId: string;
	/** JSON body of the answer, unwrapped from n8n's `{ data }`; rejects on HTTP >= 400 (error.status, error.body). */
	request(method: string, path: string, body?: unknown, opts?: { headers?: Record<string, string>; raw?: boolean }): Promise<unknown>;
	get(path: string, opts?: { headers?: Record<string, string>; raw?: boolean }): Promise<unknown>;
	post(path: string, body?: unknown, opts?: { headers?: Record<string, string>; raw?: boolean }): Promise<unknown>;
	patch(path: string, body?: unknown, opts?: { headers?: Record<string, string>; raw?: boolean }): Promise<unknown>;
	setupOwner(owner?: Owner): Promise<unknown>;
	login(owner?: Owner): Promise<unknown>;
	createCredential(cred: Omit<CredentialJson, 'id'> & { id?: string }): Promise<{ id: string; name: string; type: string }>;
	testCredential(cred: { id?: string; name: string; type: string; data: Record<string, string> }): Promise<{ status: string; message: string }>;
	resourceLocatorResults(req: DynamicParametersRequest & { filter?: string }): Promise<{
		results: Array<{ name: string; value: string; url?: string; description?: string }>;
		paginationToken?: string;
	}>;
	resourceMapperFields(req: DynamicParametersRequest): Promise<{ fields: ResourceMapperFieldJson[]; emptyFieldsNotice?: string }>;
	loadOptions(req: DynamicParametersRequest): Promise<Array<{ name: string; value: string | number | boolean; description?: string }>>;
	/** POST /rest/workflows (the editor's save): no n8n CLI process, unlike importWorkflow(). */
	createWorkflow(workflow: object): Promise<StoredWorkflowJson>;
	/** POST /rest/workflows/:id/run (the editor's "Execute workflow"), then waits for the execution to end. */
	runManually(workflowId: string, opts?: { timeoutMs?: number }): Promise<RunJson & { id: string; workflowId?: string; mode: string }>;
	getWorkflow(workflowId: string): Promise<StoredWorkflowJson>;
	/** POST /rest/workflows/:id/activate (the editor's "Publish"): a polling trigger runs its first poll before this answers. */
	activateWorkflow(workflowId: string): Promise<StoredWorkflowJson>;
	deactivateWorkflow(workflowId: string): Promise<StoredWorkflowJson>;
	publicationStatus(workflowId: string): Promise<PublicationStatus>;
	/** Waits until the (asynchronous, outbox-driven) publication settled; with versionId, until that version is live. */
	waitForPublication(workflowId: string, opts?: { versionId?: string; timeoutMs?: number }): Promise<PublicationStatus>;
	/** GET /rest/executions (newest first), optionally of one workflow. */
	listExecutions(opts?: { workflowId?: string; limit?: number }): Promise<ExecutionSummary[]>;
	/** GET /rest/executions/:id, its flatted data decoded (works with nodeItems()/nodeError()). */
	getExecution(executionId: string): Promise<RunJson & { id: string; workflowId?: string; mode: string }>;
}

export interface StoredWorkflowJson extends WorkflowJson {
	versionId: string;
	active: boolean;
	activeVersionId?: string | null;
	staticData?: unknown;
}

export interface PublicationStatus {
	status: 'in_progress' | 'published' | 'partial' | 'failed' | 'not_published';
	liveVersionId: string | null;
	pendingVersionId: string | null;
	triggers: Array<{ nodeId: string; status: string; errorMessage?: string | null }>;
}

export interface ExecutionSummary {
	id: string;
	workflowId: string;
	mode: string;
	status: string;
	finished?: boolean;
	startedAt?: string;
	stoppedAt?: string | null;
	[key: string]: unknown;
}

export interface DynamicParametersRequest {
	nodeType: string;
	version?: number;
	/** e.g. 'parameters.model' */
	path: string;
	methodName: string;
	parameters?: Record<string, unknown>;
	credential?: { id: string; name: string; type?: string };
}

export interface ResourceMapperFieldJson {
	id: string;
	displayName: string;
	required: boolean;
	defaultMatch: boolean;
	display: boolean;
	type?: string;
	options?: Array<{ name: string; value: unknown }>;
	defaultValue?: unknown;
	[key: string]: unknown;
}

type Log = (msg: string) => void;

export function node24(): { bin: string; binDir: string };
/**
 * The pinned n8n's home, installed into the cache on first use (several minutes). Once per process it runs
 * scripts/provision-n8n.sh, which re-checks the cache (native modules load) and rebuilds a broken one.
 */
export function ensureN8n(opts?: { log?: Log; version?: string }): Promise<string>;
export function ensureBuilt(opts?: { log?: Log }): Promise<boolean>;
export function packageManifest(): {
	pkg: { name: string; version: string; n8n: { nodes?: string[]; credentials?: string[] }; [key: string]: unknown };
	nodes: string[];
	credentials: string[];
	missing: string[];
};
export function createUserFolder(opts?: { dir?: string; encryptionKey?: string; keep?: boolean }): UserFolder;
export function binaryFilePath(userFolder: UserFolder, binaryId: string): string;
export function n8nEnv(userFolder: UserFolder, extra?: Record<string, string>): Record<string, string>;
export function n8nCli(
	userFolder: UserFolder,
	args: string[],
	opts?: { home?: string; env?: Record<string, string>; timeoutMs?: number; check?: boolean },
): Promise<CliResult>;
export function freePort(): Promise<number>;
export function portIsFree(port: number): Promise<boolean>;
export function newId(): string;
export function sandboxCredential(sandbox: SandboxLike, opts?: { id?: string; name?: string }): CredentialJson;
export function liveCredential(token: string, opts?: { id?: string; name?: string }): CredentialJson;
export function importCredential<T extends CredentialJson | CredentialJson[]>(
	userFolder: UserFolder,
	credentials: T,
	opts?: { home?: string; timeoutMs?: number },
): Promise<T>;
export function prepareWorkflow(fileOrObject: string | object, opts?: { credential?: { id: string; name: string }; id?: string }): WorkflowJson;
export function importWorkflow<T extends string | object | Array<string | object>>(
	userFolder: UserFolder,
	workflows: T,
	opts?: { credential?: { id: string; name: string }; home?: string; timeoutMs?: number },
): Promise<T extends unknown[] ? WorkflowJson[] : WorkflowJson>;
export function execute(
	userFolder: UserFolder,
	workflowId: string,
	opts?: { home?: string; env?: Record<string, string>; timeoutMs?: number },
): Promise<CliResult & { run: RunJson | undefined }>;
export function nodeItems(run: RunJson | undefined, nodeName: string, opts?: { run?: number; output?: number }): ExecutionItem[] | undefined;
export function nodeError(run: RunJson | undefined, nodeName: string, runIndex?: number): Record<string, unknown> | undefined;
/** Signals a detached child's whole process group (falls back to the child alone). */
export function killGroup(child: import('child_process').ChildProcess, signal: NodeJS.Signals): void;

/** Keeps the last ~1 MB of a detached child's output and stops its process group (SIGTERM, then SIGKILL). */
export function supervise(
	child: import('child_process').ChildProcess,
	options?: { echo?: boolean; prefix?: string },
): { logs(): string; exited: Promise<{ code: number | null; signal: string | null }>; stop(): Promise<void> };

export function startN8n(
	userFolder: UserFolder,
	opts?: { port?: number; home?: string; env?: Record<string, string>; readyTimeoutMs?: number; log?: Log; echo?: boolean },
): Promise<N8nInstance>;
/**
 * Starts `n8n start`, creates the owner account, saves the credentials and workflows through the REST API (each
 * credential's id, in its object and in the workflows, becomes the one n8n gives it) and publishes each workflow as
 * the editor does, waiting until each publication settled; `statuses` in the order of `workflows` ('published' when
 * it worked).
 */
export function startN8nWithPublished(
	userFolder: UserFolder,
	setup: { credentials?: CredentialJson[]; workflows: object[] },
	opts?: { port?: number; home?: string; env?: Record<string, string>; readyTimeoutMs?: number; log?: Log; echo?: boolean; publicationTimeoutMs?: number },
): Promise<{ n8n: N8nInstance; workflows: WorkflowJson[]; statuses: string[] }>;
export function run(
	command: string,
	args: string[],
	opts?: { cwd?: string; env?: Record<string, string | undefined>; timeoutMs?: number },
): Promise<CliResult>;
export function killAll(signal?: string): void;
