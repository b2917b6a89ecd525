/**
 * Turning the service's answers (and failed connections) into NodeApiError / NodeOperationError with a hint
 * that says how to fix the problem. Nothing here keeps a reference to n8n's request options, so the
 * Authorization header can never travel inside an error; every text is also scrubbed of the token.
 */
import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { MAX_TEXT, bodySample, clip, redact, redactDeep, secretOf } from './redaction';

export { bodySample, clip, redact, redactDeep, rememberSecret, secretOf } from './redaction';

/** What a path id names, for the 404 hint. */
export type SubjectKind = 'model' | 'request' | 'deployment' | 'deploymentRequest' | 'instance' | 'dataset' | 'job';

export interface Subject {
	kind: SubjectKind;
	id: string;
}

/** Names of the service's error codes (docs error-code pages, service-facts §7). */
export const KNOWN_ERROR_CODES: Record<string, string> = {
	'400001': 'InvalidResourceIdentifier',
	'400002': 'InsufficientResources',
	'400004': 'UserAccountError',
	'401001': 'Unauthorized',
	'403001': 'PermissionDenied',
	'403003': 'Forbidden',
	'404001': 'ResourceNotFound',
	'422001': 'ValidationError',
	'500001': 'InternalError',
	'10001': 'InsufficientFunds',
	'10002': 'DisabledDeployment',
	'10003': 'DeletedDeployment',
	'40001': 'INVALID_DATASET_ID',
	'40401': 'DATASET_NOT_FOUND',
	'40901': 'DATASET_NAME_CONFLICT',
};

const INSUFFICIENT_FUNDS_CODES = new Set(['400002', '10001']);

const TOP_UP_HINT =
	'Your RunComfy balance is too low for this request. Top up the balance at https://www.runcomfy.com (Profile → Billing), then run again.';

const isObject = (v: unknown): v is IDataObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The service's error code in a body, or undefined when there is none (null counts as none). */
export function errorCodeOf(body: unknown): string | undefined {
	if (!isObject(body)) return undefined;
	const code = body.error_code;
	if (code === null || code === undefined || code === '') return undefined;
	return String(code);
}

/**
 * The human message of an error body: error_message, message, error (string or {message}), detail (string),
 * scrubbed of the secret and cut.
 */
export function serviceMessageOf(body: unknown, secret?: string): string | undefined {
	if (typeof body === 'string') {
		const text = body.trim();
		if (!text) return undefined;
		// An HTML error page says nothing useful beyond its title.
		const title = /<title>([^<]*)<\/title>/i.exec(text)?.[1];
		if (/^<!doctype|^<html/i.test(text)) return title ? clip(title.trim(), 300, secret) : undefined;
		return clip(text, 300, secret);
	}
	if (!isObject(body)) return undefined;
	for (const key of ['error_message', 'message', 'error', 'detail', 'msg']) {
		const v = body[key];
		if (typeof v === 'string' && v.trim()) return clip(v.trim(), MAX_TEXT, secret);
		if (key === 'error' && isObject(v)) {
			const inner = v.message ?? v.error_message ?? v.error;
			if (typeof inner === 'string' && inner.trim()) return clip(inner.trim(), MAX_TEXT, secret);
		}
	}
	return undefined;
}

/** Renders a validation `detail` array (`[{loc: [...], msg}]`) as "field: message; other: message". */
export function renderValidationDetail(detail: unknown): string | undefined {
	if (!Array.isArray(detail) || detail.length === 0) return undefined;
	const parts = detail.slice(0, 20).map((entry) => {
		if (typeof entry === 'string') return entry;
		if (!isObject(entry)) return JSON.stringify(entry);
		const loc = Array.isArray(entry.loc)
			? entry.loc
					.filter((p, i) => !(i === 0 && ['body', 'query', 'path'].includes(String(p))))
					.map(String)
					.join('.')
			: typeof entry.loc === 'string'
				? entry.loc
				: typeof entry.field === 'string'
					? entry.field
					: '';
		const msg = String(entry.msg ?? entry.message ?? entry.error ?? JSON.stringify(entry));
		return loc ? `${loc}: ${msg}` : msg;
	});
	const more = detail.length > 20 ? ` (and ${detail.length - 20} more)` : '';
	return parts.join('; ') + more;
}

/** The HTTP status a service error code stands for (404001 → 404, trainer 40401 → 404), if it says. */
export function statusFromErrorCode(code: string | undefined): number | undefined {
	if (!code || !/^\d+$/.test(code)) return undefined;
	if (INSUFFICIENT_FUNDS_CODES.has(code)) return 402;
	const candidates = [code.slice(0, 3)].map(Number).filter((n) => n >= 400 && n <= 599);
	if (code.length >= 5 && candidates.length) return candidates[0];
	return undefined;
}

const SUBJECT_HINT: Record<SubjectKind, (id: string) => string> = {
	model: (id) =>
		`No model "${id}" exists. Use the model id exactly as listed by Get Many Models (for example "blackforestlabs/flux-2/flash/text-to-image"); pick it from the list to avoid typos.`,
	request: (id) =>
		`No Model API request "${id}" was found. Check the request id: it must come from a model run (deployment request ids are not valid here), and results are kept for a limited time.`,
	deploymentRequest: (id) =>
		`No request "${id}" was found on this deployment. Check the deployment id and the request id: the request id must come from an inference on this deployment (Model API request ids are not valid here), and results are kept for 7 days.`,
	deployment: (id) =>
		`No deployment "${id}" was found. Check the deployment id (Deployment → Get Many lists them); it may have been deleted.`,
	instance: (id) =>
		`No running instance "${id}" was found. Instance ids are only valid while the instance runs; read a fresh one from the request status while it is in progress.`,
	dataset: (id) => `No dataset "${id}" was found. Check the dataset id (Dataset → Get Many lists them); it may have been deleted.`,
	job: (id) => `No training job "${id}" was found. Check the job id returned when the job was submitted.`,
};

export interface HttpFailure {
	/** HTTP status as received. */
	statusCode: number;
	body: unknown;
	headers?: IDataObject;
}

export interface ErrorContext {
	node: INode;
	method: string;
	path: string;
	subject?: Subject;
	itemIndex?: number;
	token?: string;
	/** Extra sentence appended to the description. */
	extraHint?: string;
}

/** The hint for one failure (exported for tests and for nodes that add their own wording). */
export function hintFor(status: number, code: string | undefined, body: unknown, subject?: Subject): string {
	if (status === 401 || code === '401001') {
		return 'RunComfy did not accept the access token. Open the RunComfy API credential and paste the current token from your RunComfy profile page (Profile → API Token), without "Bearer ". A token rotated on the website stops working at once.';
	}
	if (status === 402 || (code !== undefined && INSUFFICIENT_FUNDS_CODES.has(code))) return TOP_UP_HINT;
	if (code === '10002') return 'The deployment is disabled (paused). Resume it (Deployment → Resume), then retry.';
	if (code === '10003') return 'The deployment was deleted. Create a new deployment or use another deployment id.';
	if (status === 403) {
		return 'The access token is valid but may not use this resource: it belongs to another account, or the account lacks permission. Check that the id belongs to the account of this credential.';
	}
	if (status === 404) {
		if (subject) return SUBJECT_HINT[subject.kind](subject.id);
		return 'The resource was not found. Check the id and the base URLs in the RunComfy API credential.';
	}
	if (status === 409) {
		return 'The request conflicts with something that already exists (for example a dataset with the same name). Choose another name, or use the existing resource.';
	}
	if (status === 422 || code === '422001' || (status === 400 && isObject(body) && Array.isArray(body.detail))) {
		const rendered = isObject(body) ? renderValidationDetail(body.detail) : undefined;
		return rendered
			? `These inputs were rejected: ${rendered}. Fix them and run again.`
			: 'The service rejected the inputs. Check them against the model or deployment schema and run again.';
	}
	if (status === 429) {
		return 'RunComfy is rate limiting requests from this account. Wait a moment and run again, or process fewer items in parallel.';
	}
	if (status >= 500) {
		return 'RunComfy had an internal error or is temporarily unavailable. Try again in a moment; if it persists, check https://www.runcomfy.com for service status.';
	}
	if (status === 400) {
		return 'The service rejected the request. Check the inputs and ids against the documentation and run again.';
	}
	return 'The service rejected the request.';
}

function buildNodeApiError(
	ctx: ErrorContext,
	message: string,
	description: string,
	httpCode: string | null,
	extraContext: IDataObject,
	errorResponse: IDataObject,
): NodeApiError {
	const safeMessage = redact(message, ctx.token);
	const safeDescription = redact(description, ctx.token);
	const err = new NodeApiError(ctx.node, redactDeep(errorResponse, ctx.token) as JsonObject, {
		message: safeMessage,
		description: safeDescription,
		httpCode: httpCode ?? undefined,
		itemIndex: ctx.itemIndex,
	});
	// NodeApiError rewrites messages that mention network error codes; keep ours as written.
	err.message = safeMessage;
	err.description = safeDescription;
	err.httpCode = httpCode;
	Object.assign(err.context, redactDeep(extraContext, ctx.token) as IDataObject);
	return err;
}

/**
 * An error answer of the service (non-2xx, or 2xx with an error_code). The message names the HTTP status the
 * service sent; a 2xx answer carrying an error_code names none (the code says it all). `httpCode` is the status
 * the code stands for when it stands for one (404001 → 404), so "not found" checks work either way.
 */
export function httpError(ctx: ErrorContext, failure: HttpFailure, retryAfterMs?: number): NodeApiError {
	const code = errorCodeOf(failure.body);
	const ok = failure.statusCode >= 200 && failure.statusCode < 300;
	const mapped = statusFromErrorCode(code);
	// The status the hints reason about: a 2xx error without a status of its own is a refusal (400-like).
	const effective = ok ? (mapped ?? 400) : failure.statusCode;
	const httpCode = ok ? (mapped === undefined ? null : String(mapped)) : String(failure.statusCode);
	const name =
		code === undefined
			? undefined
			: ((isObject(failure.body) && typeof failure.body.error_name === 'string' ? failure.body.error_name : undefined) ??
				KNOWN_ERROR_CODES[code]);
	const serviceMessage =
		serviceMessageOf(failure.body, ctx.token) ?? (ok ? 'the service reported an error' : defaultStatusText(failure.statusCode));
	const codeText = code ? ` (${[code, name].filter(Boolean).join(' ')})` : '';
	const message = `RunComfy API error${ok ? '' : ` ${failure.statusCode}`}${codeText}: ${serviceMessage}`;
	const hint = hintFor(effective, code, failure.body, ctx.subject);
	const answered = ok ? ` (answered HTTP ${failure.statusCode} with error_code ${code})` : '';
	const description = [hint, ctx.extraHint, `Request: ${ctx.method} ${ctx.path}${answered}`].filter(Boolean).join(' ');
	return buildNodeApiError(
		ctx,
		message,
		description,
		httpCode,
		{
			...(httpCode ? { httpCode } : {}),
			httpStatus: failure.statusCode,
			...(code ? { errorCode: code } : {}),
			...(name ? { errorName: name } : {}),
			...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
			method: ctx.method,
			path: ctx.path,
		},
		{
			...(httpCode ? { httpCode } : {}),
			...(code ? { error_code: code } : {}),
			...(name ? { error_name: name } : {}),
			message: serviceMessage,
			...(isObject(failure.body) && failure.body.detail !== undefined ? { detail: failure.body.detail } : {}),
		},
	);
}

function defaultStatusText(status: number): string {
	const texts: Record<number, string> = {
		400: 'Bad request',
		401: 'Unauthorized',
		402: 'Payment required',
		403: 'Forbidden',
		404: 'Not found',
		409: 'Conflict',
		422: 'Validation error',
		429: 'Too many requests',
		500: 'Internal server error',
		502: 'Bad gateway',
		503: 'Service unavailable',
		504: 'Gateway timeout',
	};
	return texts[status] ?? `HTTP ${status}`;
}

/** A connection that failed before an answer arrived. */
export interface NetworkFailure {
	code?: string;
	message: string;
	/** The connection was refused: nothing reached the service. */
	refused: boolean;
	timedOut: boolean;
}

export function networkError(ctx: ErrorContext, failure: NetworkFailure, baseUrl: string, attempts: number): NodeApiError {
	const what = failure.refused
		? 'the connection was refused'
		: failure.timedOut
			? 'the request timed out'
			: `the connection failed${failure.code ? ` (${failure.code})` : ''}`;
	const message = `Could not reach RunComfy at ${baseUrl}: ${what}`;
	const description = [
		`${attempts > 1 ? `Tried ${attempts} times. ` : ''}Check your network and the base URLs in the RunComfy API credential, then try again.`,
		ctx.extraHint,
		`Request: ${ctx.method} ${ctx.path}. Detail: ${clip(failure.message, 200, ctx.token)}`,
	]
		.filter(Boolean)
		.join(' ');
	return buildNodeApiError(
		ctx,
		message,
		description,
		null,
		{ ...(failure.code ? { code: failure.code } : {}), method: ctx.method, path: ctx.path, attempts },
		{ message, ...(failure.code ? { code: failure.code } : {}) },
	);
}

/** A paid submission (or a create) whose answer was lost: the service may have accepted (and charged) it. */
export function maybeAcceptedError(
	ctx: ErrorContext,
	operation: string,
	what: string,
	checkHint: string,
	why: string,
	cause: { statusCode?: number; network?: NetworkFailure; body?: unknown },
): NodeApiError {
	const serviceMessage = cause.body === undefined ? undefined : serviceMessageOf(cause.body, ctx.token);
	const message = `The ${operation} may have been accepted: ${what} before confirming it${serviceMessage ? ` (${serviceMessage})` : ''}`;
	const description = `It was NOT sent again automatically, ${why}. Before you resubmit, ${checkHint} Request: ${ctx.method} ${ctx.path}`;
	const code = errorCodeOf(cause.body);
	return buildNodeApiError(
		ctx,
		message,
		description,
		cause.statusCode ? String(cause.statusCode) : null,
		{
			mayHaveBeenAccepted: true,
			...(cause.statusCode ? { httpCode: String(cause.statusCode) } : {}),
			...(cause.network?.code ? { code: cause.network.code } : {}),
			...(code ? { errorCode: code } : {}),
			method: ctx.method,
			path: ctx.path,
		},
		{ message, mayHaveBeenAccepted: true },
	);
}

/** The service asked us to wait longer than we are willing to (or kept refusing). */
export function rateLimitedError(ctx: ErrorContext, retryAfterMs: number | undefined, attempts: number, body: unknown): NodeApiError {
	const wait = retryAfterMs !== undefined ? ` and asked to wait ${Math.ceil(retryAfterMs / 1000)} s` : '';
	const message = `RunComfy is rate limiting requests (HTTP 429)${wait}`;
	const description = [
		`Gave up after ${attempts} attempt${attempts === 1 ? '' : 's'}. Wait${retryAfterMs !== undefined ? ` at least ${Math.ceil(retryAfterMs / 1000)} s` : ' a moment'} and run again, or process fewer items in parallel.`,
		serviceMessageOf(body, ctx.token) ? `Service said: ${serviceMessageOf(body, ctx.token)}.` : '',
		ctx.extraHint,
		`Request: ${ctx.method} ${ctx.path}`,
	]
		.filter(Boolean)
		.join(' ');
	return buildNodeApiError(
		ctx,
		message,
		description,
		'429',
		{ httpCode: '429', ...(retryAfterMs !== undefined ? { retryAfterMs } : {}), method: ctx.method, path: ctx.path, attempts },
		{ message, httpCode: '429' },
	);
}

/** The answer was 2xx but not what the endpoint returns (e.g. an HTML page from a proxy). */
export function unexpectedAnswerError(ctx: ErrorContext, statusCode: number, body: unknown, expected: string): NodeApiError {
	const sample = bodySample(body, ctx.token, 200);
	const message = `RunComfy answered ${ctx.method} ${ctx.path} with something unexpected (expected ${expected})`;
	const description = `Check the base URLs in the RunComfy API credential: they must point at the RunComfy API (or a faithful proxy). Answer (HTTP ${statusCode}): ${sample || '(empty)'}`;
	return buildNodeApiError(ctx, message, description, String(statusCode), { method: ctx.method, path: ctx.path }, { message });
}

/** The execution was stopped while the request was in flight or waiting for a retry. */
export function cancelledError(node: INode, paidOperation?: string, itemIndex?: number): NodeOperationError {
	return new NodeOperationError(node, 'The execution was stopped while talking to RunComfy', {
		itemIndex,
		description: paidOperation
			? `The ${paidOperation} may already have reached RunComfy. Check before you submit it again.`
			: 'Nothing else was sent.',
	});
}

/** A problem in what the user entered, found before any request was sent. */
export function inputError(node: INode, message: string, description: string, itemIndex?: number): NodeOperationError {
	return new NodeOperationError(node, message, { description, itemIndex });
}

/**
 * A 2xx answer of the wrong shape (no list, no id, no balance), found by an endpoint after the request: the
 * description ends with a sample of the answer, scrubbed of the context's token like every other error body.
 */
export function answerShapeError(
	ctx: { getNode(): INode },
	what: { summary: string; message: string; description: string; body: unknown; itemIndex?: number },
): NodeApiError {
	const secret = secretOf(ctx);
	const sample = bodySample(what.body, secret, 200);
	return new NodeApiError(
		ctx.getNode(),
		{ message: what.summary },
		{
			message: redact(what.message, secret),
			description: redact(`${what.description} Answer: ${sample || '(empty)'}`, secret),
			itemIndex: what.itemIndex,
		},
	);
}
