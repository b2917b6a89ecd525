/**
 * `apiRequest`: the one way the nodes talk to the RunComfy API.
 *
 * - Authenticated with `helpers.httpRequestWithAuthentication('runComfyApi', …)` against the credential's base
 *   URL of the family; JSON in and out; redirects are not followed (the token stays on the API host).
 * - Every failure becomes a NodeApiError with a hint (see errors.ts); a 2xx answer carrying an `error_code`
 *   is a failure too, except for a submission whose answer names the id of what it made (`acceptedById`).
 *   No error keeps n8n's request options, and every text is scrubbed of the token.
 * - Retries: 429 (Retry-After honoured), 5xx and dropped connections, with bounded exponential backoff and
 *   jitter, sleeping with the execution cancel signal. A paid submission (or any request marked
 *   `retry: 'notAccepted'`) is only repeated when the service provably did not take it (429, connection
 *   refused); otherwise it fails with "may have been accepted, check before resubmitting".
 * - Stop: no attempt starts after it. A paid submission already on the wire is not cut off (cutting it would
 *   lose the id of a run the service may have taken): it ends with its answer or its own timeout, and the job
 *   flow waits a bounded grace for it and cancels what was accepted.
 */
import type { IAllExecuteFunctions, IDataObject, IHttpRequestOptions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import type { ApiFamily, RunComfyContext, RunComfyCredentials } from './types';
import { CREDENTIAL_NAME } from './types';
import { baseUrlFor, getCredentials } from './credentials';
import type { ErrorContext, HttpFailure, NetworkFailure, Subject } from './errors';
import {
	cancelledError,
	errorCodeOf,
	httpError,
	maybeAcceptedError,
	networkError,
	rateLimitedError,
	statusFromErrorCode,
	unexpectedAnswerError,
} from './errors';
import { headerOf, networkFactsOf, parseRetryAfter } from './http';
import type { RetryPolicy } from './retry';
import { DEFAULT_RETRY_POLICY, backoffDelay } from './retry';

/**
 * How a failed request may be repeated.
 * - `auto`: reads, polls, cancels, deletes, edits, uploads that overwrite — retried on 429, 408, 5xx and drops.
 * - `notAccepted`: only when the service provably did not take it (429, connection refused). Paid
 *   submissions always use this; so do creates, where a repeat would make a second resource.
 * - `never`: a single attempt.
 */
export type RetryMode = 'auto' | 'notAccepted' | 'never';

/**
 * For endpoints that a loop calls again anyway: the wait engine's status polls are sent with `retry: 'never'`,
 * because the engine owns their retries (../wait/engine.ts). Other callers leave it out (`auto`).
 */
export interface RetryChoice {
	retry?: RetryMode;
}

/** What a 2xx answer must look like. `json` (default): an object or array. `jsonOrEmpty`: also an empty body
 * (returned as `null`). `any`: whatever came (parsed JSON, text, or `null` when empty). */
export type ExpectedAnswer = 'json' | 'jsonOrEmpty' | 'any';

export interface ApiRequestSpec {
	family: ApiFamily;
	method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
	/** Path below the family's base URL, already encoded (use `encodeModelId` / `encodeId`). */
	path: string;
	qs?: IDataObject;
	body?: unknown;
	/** A paid submission: never retried unless the service provably did not accept it; not cut off by Stop once sent. */
	paid?: boolean;
	/**
	 * A 2xx answer that names an id (request, job, dataset) is the accepted submission, whatever `error_code` it
	 * also carries: only an answer without an id can be a refusal. Default: `paid`.
	 */
	acceptedById?: boolean;
	/** Item index for error attribution. */
	itemIndex?: number;
	/** Retry mode; default `auto`, or `notAccepted` when `paid`. */
	retry?: RetryMode;
	/** What the path id names, for the 404 hint ("use the model id exactly as listed", …). */
	subject?: Subject;
	/** Human name of the action for messages, e.g. "model run", "training job submission". */
	operation?: string;
	/** For `paid`/`notAccepted` requests: what to check before resubmitting ("check … at runcomfy.com"). */
	checkHint?: string;
	/** When `path` answers 404 (e.g. the route does not exist on this service version), repeat once at this path.
	 * A 404 is never an accepted request, so this is safe for paid submissions. */
	fallbackPath?: string;
	expect?: ExpectedAnswer;
	/** Per-attempt timeout; default 120 s. */
	timeoutMs?: number;
	headers?: Record<string, string>;
	/**
	 * The request must still go out after the user pressed Stop: the cancel that Stop itself triggers.
	 * Such a request is not tied to the execution's cancel signal (it has its own timeout instead).
	 */
	survivesStop?: boolean;
}

/** A successful answer with the path that produced it (the fallback path when it was used). */
export interface ApiAnswer<T = unknown> {
	statusCode: number;
	body: T;
	headers: IDataObject;
	path: string;
	/** True when the answer came from `fallbackPath`. */
	usedFallback: boolean;
	attempts: number;
}

export const DEFAULT_TIMEOUT_MS = 120_000;
/** Requests sent after Stop (remote cancels) get a short timeout: the user is waiting for the stop. */
export const SURVIVES_STOP_TIMEOUT_MS = 15_000;

let activePolicy: RetryPolicy = { ...DEFAULT_RETRY_POLICY };

/** The retry policy in force (read-only copy). */
export const getRetryPolicy = (): RetryPolicy => ({ ...activePolicy });

/**
 * Changes the retry policy (e.g. a benchmark or a test that wants shorter backoff). Returns the previous
 * policy so it can be restored. Bounds are enforced: 1–10 attempts, delays ≤ 60 s.
 */
export function setRetryPolicy(policy: Partial<RetryPolicy>): RetryPolicy {
	const previous = activePolicy;
	activePolicy = {
		maxAttempts: Math.min(10, Math.max(1, Math.floor(policy.maxAttempts ?? previous.maxAttempts))),
		baseDelayMs: Math.min(60_000, Math.max(0, policy.baseDelayMs ?? previous.baseDelayMs)),
		maxDelayMs: Math.min(60_000, Math.max(0, policy.maxDelayMs ?? previous.maxDelayMs)),
	};
	return { ...previous };
}

/** The execution's cancel signal, when the context has one. */
export function cancelSignalOf(ctx: RunComfyContext): AbortSignal | undefined {
	const candidate = ctx as Partial<{ getExecutionCancelSignal: () => AbortSignal | undefined }>;
	return typeof candidate.getExecutionCancelSignal === 'function' ? candidate.getExecutionCancelSignal() : undefined;
}

const isPlainObject = (v: unknown): v is IDataObject =>
	typeof v === 'object' && v !== null && Object.getPrototypeOf(v) === Object.prototype;

/** Body and Content-Type for one attempt. Empty JSON objects are sent as the text `{}` (n8n drops empty objects). */
export function prepareBody(body: unknown): { body?: IHttpRequestOptions['body']; contentType?: string } {
	if (body === undefined) return {};
	if (typeof FormData !== 'undefined' && body instanceof FormData) return { body: body as unknown as IHttpRequestOptions['body'] };
	if (isPlainObject(body) || Array.isArray(body)) {
		const empty = Array.isArray(body) ? body.length === 0 : Object.keys(body).length === 0;
		return {
			body: empty ? JSON.stringify(body) : (body as IHttpRequestOptions['body']),
			contentType: 'application/json',
		};
	}
	return { body: body as IHttpRequestOptions['body'] };
}

type Outcome =
	| { kind: 'answer'; statusCode: number; body: unknown; headers: IDataObject }
	| { kind: 'network'; failure: NetworkFailure & { notSent: boolean; retryable: boolean } }
	| { kind: 'aborted' };

/** Reads what matters from an error thrown by n8n's request helpers (NodeApiError wrapping an AxiosError). */
export function classifyThrown(error: unknown, signal?: AbortSignal): Outcome {
	const e = (typeof error === 'object' && error !== null ? error : {}) as Record<string, unknown>;
	const cause = (typeof e.cause === 'object' && e.cause !== null ? e.cause : {}) as Record<string, unknown>;
	const code = [cause.code, e.code].find((c): c is string => typeof c === 'string' && c !== '');
	const name = String(cause.name ?? e.name ?? '');
	if (signal?.aborted || code === 'ERR_CANCELED' || name === 'CanceledError' || name === 'AbortError') return { kind: 'aborted' };
	// An HTTP answer that still came as an exception (should not happen with ignoreHttpStatusErrors).
	const response = (typeof cause.response === 'object' && cause.response !== null ? cause.response : undefined) as
		| Record<string, unknown>
		| undefined;
	if (response && typeof response.status === 'number') {
		return {
			kind: 'answer',
			statusCode: response.status,
			body: response.data,
			headers: { ...((response.headers ?? {}) as IDataObject) },
		};
	}
	const facts = networkFactsOf(error);
	return {
		kind: 'network',
		failure: {
			code: facts.code,
			message: facts.message,
			refused: facts.refused,
			timedOut: facts.timedOut,
			notSent: facts.notSent,
			retryable: facts.refused || facts.dropped || facts.timedOut,
		},
	};
}

/**
 * n8n's httpRequestWithAuthentication ties every request to the execution cancel signal when its `this` has
 * `getExecutionCancelSignal`, so Stop would abort the cancels Stop must send, and paid submissions on the wire.
 * This view of the context hides that method (only that): n8n's credential and proxy handling stay, the
 * request is bounded by its own timeout instead.
 */
function detachedFromStop(ctx: RunComfyContext): RunComfyContext {
	return new Proxy(ctx, {
		has: (target, key) => key !== 'getExecutionCancelSignal' && key in target,
		get: (target, key, receiver) => (key === 'getExecutionCancelSignal' ? undefined : (Reflect.get(target, key, receiver) as unknown)),
	});
}

async function attemptOnce(ctx: RunComfyContext, options: IHttpRequestOptions, signal?: AbortSignal, detached = false): Promise<Outcome> {
	try {
		const self = detached ? detachedFromStop(ctx) : ctx;
		const response = (await self.helpers.httpRequestWithAuthentication.call(self as IAllExecuteFunctions, CREDENTIAL_NAME, options)) as
			| { body?: unknown; headers?: IDataObject; statusCode?: number }
			| undefined;
		return {
			kind: 'answer',
			statusCode: Number(response?.statusCode ?? 0),
			body: response?.body,
			headers: { ...((response?.headers ?? {}) as IDataObject) },
		};
	} catch (error) {
		return classifyThrown(error, signal);
	}
}

/** Where a submission's answer names what the service made: a run or request, a training job, a dataset. */
const ACCEPTED_ID_FIELDS = ['request_id', 'job_id', 'dataset_id', 'id'] as const;

/** The first id a 2xx answer names (field and value), if any. */
export function acceptedIdOf(body: unknown): { field: string; id: string } | undefined {
	if (!isPlainObject(body)) return undefined;
	for (const field of ACCEPTED_ID_FIELDS) {
		const value = body[field];
		if ((typeof value === 'string' && value.trim() !== '') || (typeof value === 'number' && Number.isFinite(value))) {
			return { field, id: String(value) };
		}
	}
	return undefined;
}

const isEmptyBody = (body: unknown): boolean => body === undefined || body === null || (typeof body === 'string' && body.trim() === '');

function checkExpected(body: unknown, expect: ExpectedAnswer): { ok: true; value: unknown } | { ok: false } {
	if (expect === 'any') return { ok: true, value: isEmptyBody(body) ? null : body };
	if (isEmptyBody(body)) return expect === 'jsonOrEmpty' ? { ok: true, value: null } : { ok: false };
	if (typeof body === 'object') return { ok: true, value: body };
	return { ok: false };
}

interface Sent {
	answer?: ApiAnswer;
	/** A 404 returned instead of thrown (when a fallback path may still answer). */
	notFound?: { failure: HttpFailure; errorContext: ErrorContext };
}

async function pause(ms: number, signal: AbortSignal | undefined, onAbort: () => Error): Promise<void> {
	if (signal?.aborted) throw onAbort();
	try {
		await sleep(ms, signal);
	} catch {
		throw onAbort();
	}
	if (signal?.aborted) throw onAbort();
}

async function send(
	ctx: RunComfyContext,
	credentials: RunComfyCredentials,
	spec: ApiRequestSpec,
	path: string,
	returnNotFound: boolean,
): Promise<Sent> {
	const node = ctx.getNode();
	const baseUrl = baseUrlFor(credentials, spec.family);
	const mode: RetryMode = spec.paid ? 'notAccepted' : (spec.retry ?? 'auto');
	const policy = activePolicy;
	const signal = spec.survivesStop ? undefined : cancelSignalOf(ctx);
	// Bound to Stop on the wire: everything but paid submissions (see the file comment).
	const wireSignal = spec.paid ? undefined : signal;
	const operation = spec.operation ?? (spec.paid ? 'paid submission' : 'request');
	const errorContext: ErrorContext = {
		node,
		method: spec.method,
		path,
		subject: spec.subject,
		itemIndex: spec.itemIndex,
		token: credentials.accessToken,
	};
	const checkHint =
		spec.checkHint ??
		(spec.paid
			? 'check your recent requests and your balance on runcomfy.com.'
			: 'check on runcomfy.com (or with the matching List operation) whether it exists.');
	const why = spec.paid ? 'to avoid paying twice' : 'to avoid doing it twice';
	const onAbort = () => cancelledError(node, spec.paid || mode === 'notAccepted' ? operation : undefined, spec.itemIndex);
	// Stopped before an attempt: every earlier one was provably not taken (else it would not be repeated).
	const onStopBeforeSending = () => cancelledError(node, undefined, spec.itemIndex);

	for (let attempt = 1; ; attempt++) {
		if (signal?.aborted) throw onStopBeforeSending();
		const prepared = prepareBody(spec.body);
		const headers: IDataObject = { Accept: 'application/json', ...(spec.headers ?? {}) };
		if (prepared.contentType && !Object.keys(headers).some((k) => k.toLowerCase() === 'content-type')) {
			headers['Content-Type'] = prepared.contentType;
		}
		const options: IHttpRequestOptions = {
			method: spec.method,
			url: `${baseUrl}${path.startsWith('/') ? '' : '/'}${path}`,
			headers,
			json: true,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			disableFollowRedirect: true,
			sendCredentialsOnCrossOriginRedirect: false,
			arrayFormat: 'repeat',
			timeout: spec.timeoutMs ?? (spec.survivesStop ? SURVIVES_STOP_TIMEOUT_MS : DEFAULT_TIMEOUT_MS),
		};
		if (spec.qs && Object.keys(spec.qs).length > 0) options.qs = spec.qs;
		if (prepared.body !== undefined) options.body = prepared.body;
		if (wireSignal) options.abortSignal = wireSignal;

		const outcome = await attemptOnce(ctx, options, wireSignal, spec.survivesStop || spec.paid);
		if (outcome.kind === 'aborted') throw onAbort();

		let delay: number;
		if (outcome.kind === 'answer') {
			const { statusCode, body } = outcome;
			const said = errorCodeOf(body);
			const submission = spec.acceptedById ?? spec.paid === true;
			// For a submission, error_code 0 is no refusal: without an id it is an unconfirmed acceptance (below).
			const code = submission && said === '0' ? undefined : said;
			const ok = statusCode >= 200 && statusCode < 300;
			const named = ok && submission ? acceptedIdOf(body) : undefined;
			if (named && said !== undefined) {
				ctx.logger.warn(
					`RunComfy: the ${operation} answered HTTP ${statusCode} with ${named.field} ${named.id} and error_code ${said}; taken as accepted (it may be charged)`,
					{ node: node.name, itemIndex: spec.itemIndex, [named.field]: named.id, error_code: said },
				);
			}
			const success = ok && (code === undefined || named !== undefined);
			if (success) {
				const checked = checkExpected(body, spec.expect ?? 'json');
				if (checked.ok) {
					return {
						answer: { statusCode, body: checked.value, headers: outcome.headers, path, usedFallback: false, attempts: attempt },
					};
				}
				if (spec.paid) {
					throw maybeAcceptedError(
						errorContext,
						operation,
						`the service answered HTTP ${statusCode} without a readable confirmation`,
						checkHint,
						why,
						{ statusCode, body },
					);
				}
				throw unexpectedAnswerError(errorContext, statusCode, body, 'a JSON object');
			}
			if (statusCode >= 300 && statusCode < 400) {
				const location = headerOf(outcome.headers, 'location');
				throw unexpectedAnswerError(
					errorContext,
					statusCode,
					`redirect to ${typeof location === 'string' ? location : '(no location)'}; set the base URL to the final address (https)`,
					'an answer, not a redirect',
				);
			}
			const effective = statusCode >= 200 && statusCode < 300 ? (statusFromErrorCode(code) ?? 400) : statusCode;
			if (effective === 404 && returnNotFound) return { notFound: { failure: outcome, errorContext } };
			const retryAfterMs = parseRetryAfter(headerOf(outcome.headers, 'retry-after'));
			if (effective === 429) {
				if (mode === 'never') throw httpError(errorContext, outcome, retryAfterMs);
				if (retryAfterMs !== undefined && retryAfterMs > policy.maxDelayMs) {
					throw rateLimitedError(errorContext, retryAfterMs, attempt, body);
				}
				if (attempt >= policy.maxAttempts) throw rateLimitedError(errorContext, retryAfterMs, attempt, body);
				delay = retryAfterMs ?? backoffDelay(attempt, policy);
			} else if (effective >= 500 || (effective === 408 && mode === 'auto')) {
				if (mode === 'notAccepted') {
					throw maybeAcceptedError(
						errorContext,
						operation,
						`the service answered HTTP ${statusCode}${code ? ` (${code})` : ''}`,
						checkHint,
						why,
						{ statusCode: effective, body },
					);
				}
				if (mode === 'never' || attempt >= policy.maxAttempts) throw httpError(errorContext, outcome, retryAfterMs);
				delay = retryAfterMs !== undefined && retryAfterMs <= policy.maxDelayMs ? retryAfterMs : backoffDelay(attempt, policy);
			} else {
				throw httpError(errorContext, outcome, retryAfterMs);
			}
		} else {
			const { failure } = outcome;
			if (!failure.notSent && mode === 'notAccepted') {
				const what = failure.timedOut ? 'the request timed out' : `the connection dropped${failure.code ? ` (${failure.code})` : ''}`;
				throw maybeAcceptedError(errorContext, operation, what, checkHint, why, { network: failure });
			}
			if (!failure.retryable || mode === 'never' || attempt >= policy.maxAttempts) {
				throw networkError(errorContext, failure, baseUrl, attempt);
			}
			delay = backoffDelay(attempt, policy);
		}
		await pause(delay, signal, onStopBeforeSending);
	}
}

/**
 * Sends one API request and returns the whole answer (status, headers, path used).
 *
 * With `fallbackPath`, a 404 on `path` (a 404 is never an accepted request, so this is safe for paid
 * submissions too) is followed by one request to `fallbackPath`. When both answer 404, the more telling
 * error is reported: the one carrying a service error code (a missing resource on an existing route)
 * rather than a bare 404 (a missing route); on a tie, the first.
 */
export async function apiRequestFull<T = unknown>(
	ctx: RunComfyContext,
	spec: ApiRequestSpec,
	credentials?: RunComfyCredentials,
): Promise<ApiAnswer<T>> {
	const creds = credentials ?? (await getCredentials(ctx));
	const hasFallback = spec.fallbackPath !== undefined && spec.fallbackPath !== spec.path;
	const first = await send(ctx, creds, spec, spec.path, hasFallback);
	if (first.answer) return first.answer as ApiAnswer<T>;
	const second = await send(ctx, creds, spec, spec.fallbackPath as string, true);
	if (second.answer) return { ...(second.answer as ApiAnswer<T>), usedFallback: true };
	const a = first.notFound!;
	const b = second.notFound!;
	const pick = errorCodeOf(a.failure.body) === undefined && errorCodeOf(b.failure.body) !== undefined ? b : a;
	throw httpError(pick.errorContext, pick.failure);
}

/** Sends one API request and returns the parsed body. */
export async function apiRequest<T = IDataObject>(ctx: RunComfyContext, spec: ApiRequestSpec): Promise<T> {
	const answer = await apiRequestFull<T>(ctx, spec);
	return answer.body;
}
