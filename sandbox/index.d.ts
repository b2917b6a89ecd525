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
	/** Errors come as HTTP 200 with `error_code` + `error_message` in the body (API hosts only, not faults). */
	errorsAsHttp200?: boolean;
	/** Status endpoints say `failed` (with `error`) for a failed run instead of `completed`. */
	statusSaysFailed?: boolean;
	/** Model API result before completion answers 400 `{error_code: 400005}` instead of the in-progress record. */
	resultNotReady400?: boolean;
	/** PATCH /prod/v2/deployments/{id} without `name` is refused with 422 "Deployment name is required" (live). */
	patchRequiresName?: boolean;
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
	/** Delay of a 'slow' fault, ms (default 2000). */
	slowMs?: number;
	/**
	 * For faults on paid POSTs (model submit, deployment inference, training submit/resume): apply them before
	 * (request not accepted, nothing created) or after (accepted, run created, answer lost). Default 'before'.
	 * A 429 is always 'before' (a 429 means the service did not accept the request).
	 */
	paidFaultTiming?: 'before' | 'after';
	/** Only these path prefixes get faults (any host, files too). Default: every API path; never /__sandbox, files host only when listed here. */
	pathPrefixes?: string[];
	/** Only requests with these HTTP methods get faults, e.g. ['POST'] to hit a model's submit but not its catalog entry (same path). Default: every method. */
	methods?: string[];
	/** Deterministic seed for the fault dice. */
	seed?: number;
	/**
	 * Every accepted paid POST (model submit, deployment inference, training submit/resume) and dataset create or
	 * upload answers 2xx with this `error_code` beside its id (e.g. 0, or 500001). Not rolled: all of them. Default: none.
	 */
	acceptedErrorCode?: number;
}

/**
 * Webhook deliveries of deployment requests submitted with `webhook` (query parameter, or the legacy body field).
 * Only loopback targets (127.0.0.0/8, ::1, localhost) are contacted; anything else is refused
 * before any connection or lookup and logged with `refused`.
 */
export interface SandboxWebhooks {
	/** Deliver at all (default true). false: the URL is only recorded (the old behaviour). */
	enabled?: boolean;
	/** A delivery that has not been answered within this is a failed attempt, ms (default 10_000, like the live service). */
	timeoutMs?: number;
	/** Attempts per event, the first included (default 5). Retried on non-2xx, timeout and network errors. */
	maxAttempts?: number;
	/** Wait before the first retry, ms; doubles with every retry (default 1000). */
	baseDelayMs?: number;
	/** Longest wait between attempts, ms (default 60_000). */
	maxDelayMs?: number;
	/** Fraction (0..1) of delivered events that are delivered a second time right after (seeded by `seed`; default 0). */
	duplicateRate?: number;
	/**
	 * Fraction (0..1) of events held back until the request's next event was delivered (seeded; default 0). A
	 * held final event waits for the next delivery to the same URL, at most `holdMs`.
	 */
	outOfOrderRate?: number;
	/** Longest hold of an out-of-order final event, ms (default 2000). */
	holdMs?: number;
}

export interface SandboxConfig {
	token?: string;
	/** Wallet in microdollars. */
	walletMicrodollars?: number;
	/** Mean time a model run / deployment request spends in_progress, ms (default 2000). Total = queueMs + capacity wait + this (with `queueShare`: the whole time but the capacity wait). */
	runDurationMs?: number;
	/** Per-model (or per deployment id/name) mean in_progress time, ms; wins over runDurationMs. */
	modelDurations?: Record<string, number>;
	/**
	 * Each run lasts mean × (1 + s), s = spread × (u1 + u2 + u3) / 3 with u uniform on [-1, 1]: bell-shaped, never
	 * beyond ±spread. Default 0 (exact) for startSandbox(); the CLI (and so the benchmark) and the demo use 0.2. At most 0.9.
	 */
	spread?: number;
	/** Seed of the run-time draws (the n-th run after a reset or a new seed gets the n-th draw) and of the webhook chaos. Default 1. */
	seed?: number;
	/**
	 * Give every model and deployment its own copy of the run-time stream: the n-th run of each gets the same draw,
	 * so batches of different models submitted side by side run for the same times (benchmarks). Default false.
	 */
	drawsPerTarget?: boolean;
	/** How long every run stays in_queue before it may start, ms (default 300). */
	queueMs?: number;
	/**
	 * Share of each run's drawn time (its mean: `modelDurations` etc., spread included) spent in_queue with
	 * `queue_position`, the rest in_progress; replaces `queueMs`. From 0 to 0.95; default none (`queueMs`).
	 */
	queueShare?: number;
	/** Per model id / deployment id / deployment name queue share, overriding `queueShare` (merged key by key). */
	queueShares?: Record<string, number>;
	/**
	 * Concurrent runs per model and per deployment; later runs wait in_queue in FIFO order with `queue_position`
	 * (counting down as runs ahead start); a run's clock starts when it leaves the queue. 0/undefined = unlimited.
	 */
	capacity?: number;
	/** Per model id / deployment id / deployment name capacity, overriding `capacity` (merged key by key). */
	capacities?: Record<string, number>;
	/** Older knob: how many runs execute at once of all models together, and per deployment; 0/undefined = unlimited. */
	workers?: number;
	/** Training: ms per step (default 10). */
	trainingStepMs?: number;
	/** A training attempt reports RUNNING at its first step this long (loading the model). Default 0. */
	trainingLoadMs?: number;
	/** Training: ms a job stays IN_QUEUE (default: queueMs). */
	trainingQueueMs?: number;
	/** Dataset: ms from last upload to READY (default 300). */
	datasetReadyMs?: number;
	/** Size in bytes of generated outputs of models/deployments marked large (default 3 GiB). */
	largeOutputBytes?: number;
	/** Models (by model_id) or deployments (by id or name) whose runs fail, with the error text. */
	failingModels?: Record<string, string>;
	/** Charge per deployment inference, microdollars (default 20_000). */
	deploymentPriceMicrodollars?: number;
	/** deploymentCancelRequested quirk: the run turns cancelled this long after the cancel (or after 2 status polls). Default 100. */
	cancelDelayMs?: number;
	/** Lifetime of signed upload URLs, ms (default 15 min). */
	signedUrlTtlMs?: number;
	/**
	 * Model run outputs are listed as https:// URLs, as the live service lists them, so a workflow can pass them on
	 * to another model's file inputs (which must be https). The sandbox serves plain http, so downloading such a
	 * URL fails (default false).
	 */
	httpsOutputUrls?: boolean;
	quirks?: SandboxQuirks;
	faults?: SandboxFaults;
	/** Webhook delivery settings (merged key by key). */
	webhooks?: SandboxWebhooks;
	/** Size of the catalog: extra generated models beyond the curated ones (for picker benchmarks). */
	extraModels?: number;
}

export interface RequestLogEntry {
	seq: number;
	/** When the request arrived (webhook entries: when the attempt started), ms since the epoch. */
	time: number;
	/**
	 * Which API: 'model' | 'serverless' | 'trainer' | 'files' | 'foreign' for requests received (control calls under
	 * /__sandbox are not logged), 'webhook' for a webhook delivery attempt the sandbox made.
	 */
	api: string;
	method: string;
	path: string;
	query: Record<string, string | string[]>;
	/** Parsed JSON body when there was one (multipart: `{ file: { filename, size, contentType } }`; strings over 512 chars shortened). */
	body?: unknown;
	/** The Authorization header as received (tests assert where the token went). */
	authorization?: string;
	/** HTTP status sent (0 while in flight or when the connection was dropped). */
	status: number;
	/** Fault injected, if any: '5xx' | '429' | 'drop' | 'slow'. */
	fault?: string;
	/** Id created by this request (paid submissions: request id, training job id, `<jobId>/resume/<n>`). */
	createdId?: string;
	/** Webhook entries: the target URL (any `signature` query value replaced by REDACTED; `path`/`query` likewise). */
	url?: string;
	/** Webhook entries: 1 for the first attempt of a delivery, then 2, 3... for its retries. */
	attempt?: number;
	/** Webhook entries: the event's status: 'in_queue' | 'in_progress' | 'succeeded' | 'failed' | 'cancelled' (or 'canceled'). */
	event?: string;
	/** Webhook entries: the request and deployment the event is about. */
	requestId?: string;
	deploymentId?: string;
	/** Webhook entries: a chaos re-send of an event already delivered. */
	duplicate?: boolean;
	/** Webhook entries: an event that was held back behind a later one. */
	outOfOrder?: boolean;
	/** Webhook entries: why the target was refused (nothing was sent; `status` 0). */
	refused?: string;
	/** Webhook entries: 'timeout' or the network error code of a failed attempt (`status` 0). */
	error?: string;
	/** Webhook entries: the last attempt failed and no retry follows. */
	gaveUp?: boolean;
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

/** Stable ids of curated models and seeded deployments (see sandbox/README.md). */
export interface SandboxStableIds {
	models: {
		textToImage: string;
		lora: string;
		imageToVideo: string;
		videoToVideo: string;
		audioToAudio: string;
		imageEditPlural: string;
		largeOutput: string;
		alwaysFails: string;
		mixedHosts: string;
	};
	deployments: { textToImage: string; imageToImage: string; paused: string; largeVideo: string };
}

export interface Sandbox {
	urls: SandboxUrls;
	token: string;
	/** Stable model and deployment ids. */
	stable: SandboxStableIds;
	/** Merge new settings (quirks, faults, durations, wallet...). */
	configure(config: SandboxConfig): void;
	/** Back to the initial state (the start config, merged with `config` if given): catalog, wallet, seeded deployments, no runs, no datasets, empty log. */
	reset(config?: SandboxConfig): void;
	/** Entries in order; `sinceSeq` returns only newer ones. */
	log(sinceSeq?: number): RequestLogEntry[];
	clearLog(): void;
	/** Direct state access for assertions. */
	state(): {
		walletMicrodollars: number;
		/** `status` is the status-endpoint value (in_queue/in_progress/completed/cancelled); `failed` marks a failed run. Deleted runs are omitted. */
		runs: Array<{
			id: string;
			kind: 'model' | 'deployment';
			target: string;
			status: string;
			failed: boolean;
			body: unknown;
			chargedMicrodollars: number;
			createdAt: number;
			/** When it left the queue (in_progress), ms since the epoch; null while queued or when cancelled in the queue. */
			startedAt: number | null;
			/** When it really ended (completed or cancelled), ms since the epoch; null until then. */
			finishedAt: number | null;
			/** Its mean and its drawn in_progress time, ms. */
			meanMs: number;
			durationMs: number;
			/** Deployment requests with a webhook: the URL (signature redacted). */
			webhook?: string;
		}>;
		datasets: Array<{ id: string; name: string; status: string; error: string | null; files: Array<{ filename: string; size_bytes: number }> }>;
		jobs: Array<{ id: string; name: string; status: string; current_step: number; total_steps: number; attempts: number }>;
		deployments: Array<{ id: string; name: string; is_enabled: boolean }>;
	};
	close(): Promise<void>;
}

export interface StartOptions extends SandboxConfig {
	/** modelApi = portBase, serverless = +1, trainer = +2, files = +3 (default: free ports). */
	portBase?: number;
}

export function startSandbox(config?: StartOptions): Promise<Sandbox>;

/** Curated model ids tests rely on. */
export const STABLE_MODELS: SandboxStableIds['models'];
/** Seeded deployment ids. */
export const STABLE_DEPLOYMENTS: SandboxStableIds['deployments'];
/** The quirks that make the sandbox behave like the live service where it differs from the contract. */
export const LIVE_QUIRKS: SandboxQuirks;
/** Parses `a,b,!c,inferencePaths=v2,live` into a quirks object (CLI helper). */
export function parseQuirkList(list: string): SandboxQuirks;

/** The sandbox's deterministic PRNG (mulberry32): numbers in [0, 1) from `seed`. */
export function mulberry32(seed: number): () => number;
/** The mean of three uniforms on [-1, 1] drawn from `random`: bell-shaped, bounded by ±1 (run-time spreads). */
export function bellFraction(random: () => number): number;
