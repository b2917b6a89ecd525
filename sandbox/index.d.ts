/**
 * The sandbox: a local stand-in of the whole RunComfy service on loopback. Plain JavaScript (sandbox/*.js),
 * independent of the nodes: it imports nothing from nodes/ or credentials/.
 * This file is the contract the tests, the demo and the benchmark code against.
 */

export interface SandboxQuirks {
	/** GET /prod/v2/deployments answers a bare array (live) instead of `{ deployments: [...] }`. */
	bareDeploymentList?: boolean;
	/** GET datasets answers `{ datasets: [...] }` (live, default true) or a bare array (false). */
	wrappedDatasetList?: boolean;
	/** Which inference path versions are served: both by default. */
	inferencePaths?: 'v1' | 'v2' | 'both';
	/** Deployment cancel answers `{status: 'cancellation_requested'}` and the run ends `cancelled` later. */
	deploymentCancelRequested?: boolean;
	/** Result records say `completed` instead of `succeeded`. */
	resultSaysCompleted?: boolean;
	/** American spelling `canceled` in statuses and results. */
	americanCanceled?: boolean;
	/** Errors come as HTTP 200 with `error_code` + `error_message` in the body. */
	errorsAsHttp200?: boolean;
}

export interface SandboxFaults {
	/** Fraction (0..1) of requests answered 5xx. */
	rate5xx?: number;
	/** Fraction answered 429 with `Retry-After`. */
	rate429?: number;
	retryAfterSeconds?: number;
	/** Fraction of connections destroyed without an answer. */
	rateDrop?: number;
	/** Fraction of responses delayed by `slowMs`. */
	rateSlow?: number;
	slowMs?: number;
	/** For faults on paid POSTs: apply them before (request not accepted) or after (accepted, answer lost). */
	paidFaultTiming?: 'before' | 'after';
	/** Only these path prefixes get faults (default all except /__sandbox). */
	pathPrefixes?: string[];
	/** Deterministic seed for the fault dice. */
	seed?: number;
}

export interface SandboxConfig {
	token?: string;
	/** Wallet in microdollars. */
	walletMicrodollars?: number;
	/** Default run duration of a model run / deployment inference, ms (queue to completion). */
	runDurationMs?: number;
	/** Per-model duration overrides, ms. */
	modelDurations?: Record<string, number>;
	/** How long a run stays in_queue before it starts, ms. */
	queueMs?: number;
	/** How many runs execute at once (the rest wait in_queue); default unlimited. */
	workers?: number;
	/** Training: ms per step. */
	trainingStepMs?: number;
	/** Dataset: ms from last upload to READY. */
	datasetReadyMs?: number;
	/** Serve large outputs: size in bytes of generated files for models/deployments marked large. */
	largeOutputBytes?: number;
	/** Models whose runs fail, with the error text. */
	failingModels?: Record<string, string>;
	quirks?: SandboxQuirks;
	faults?: SandboxFaults;
	/** Size of the catalog: extra generated models beyond the curated ones (for picker benchmarks). */
	extraModels?: number;
}

export interface RequestLogEntry {
	seq: number;
	time: number;
	/** Which API: 'model' | 'serverless' | 'trainer' | 'files' | 'foreign' | 'control'. */
	api: string;
	method: string;
	path: string;
	query: Record<string, string | string[]>;
	/** Parsed JSON body when there was one (multipart: `{ file: { filename, size, contentType } }`). */
	body?: unknown;
	/** The Authorization header as received (tests assert where the token went). */
	authorization?: string;
	status: number;
	/** Fault injected, if any: '5xx' | '429' | 'drop' | 'slow'. */
	fault?: string;
	/** Request ids created by this request (paid submissions). */
	createdId?: string;
}

export interface SandboxUrls {
	modelApi: string;
	serverless: string;
	trainer: string;
	/** Allowed file host: http://127.0.0.1:<port> */
	files: string;
	/** A host outside the allow-list serving the same files: http://localhost:<port> */
	foreignFiles: string;
}

export interface Sandbox {
	urls: SandboxUrls;
	token: string;
	/** Merge new settings (quirks, faults, durations, wallet...). */
	configure(config: SandboxConfig): void;
	/** Back to the initial state: catalog, wallet, no runs, no datasets, empty log. */
	reset(config?: SandboxConfig): void;
	log(): RequestLogEntry[];
	clearLog(): void;
	/** Direct state access for assertions. */
	state(): {
		walletMicrodollars: number;
		runs: Array<{ id: string; kind: 'model' | 'deployment'; target: string; status: string; body: unknown }>;
		datasets: Array<{ id: string; name: string; status: string; files: Array<{ filename: string; size_bytes: number }> }>;
		jobs: Array<{ id: string; name: string; status: string; current_step: number; total_steps: number }>;
		deployments: Array<{ id: string; name: string; is_enabled: boolean }>;
	};
	close(): Promise<void>;
}

export function startSandbox(config?: SandboxConfig & { host?: string }): Promise<Sandbox>;
