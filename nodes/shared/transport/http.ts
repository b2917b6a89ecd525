/**
 * HTTP facts every caller reads the same way: a header by name, Retry-After, the HTTP status of an error,
 * and which network failures are worth another try. Used by the transport, the download module and the wait
 * engine; nothing here sends a request.
 */

import type { IExecuteFunctions } from 'n8n-workflow';

/** A Node Readable of bytes, named through n8n-workflow's types (nodes may not import 'stream'). */
export type ByteStream = Exclude<Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0], Buffer>;

type Loose = Record<string, unknown>;

const asObject = (v: unknown): Loose | undefined => (typeof v === 'object' && v !== null ? (v as Loose) : undefined);

/**
 * A header's value by name, case-insensitively, from a plain object or a Headers-like object with `get`
 * (axios hands out either). A list gives its first value. Undefined when absent.
 */
export function headerOf(headers: unknown, name: string): string | undefined {
	const h = asObject(headers);
	if (!h) return undefined;
	const wanted = name.toLowerCase();
	let value: unknown;
	if (typeof h.get === 'function') {
		try {
			value = (h.get as (n: string) => unknown).call(h, wanted);
		} catch {
			value = undefined;
		}
	}
	if (value === undefined || value === null) {
		const key = Object.keys(h).find((k) => k.toLowerCase() === wanted);
		value = key === undefined ? undefined : h[key];
	}
	if (Array.isArray(value)) value = value[0];
	return value === undefined || value === null ? undefined : String(value);
}

/**
 * Retry-After in ms: delay-seconds (a number or its text) or an HTTP date relative to `now`. A list gives its
 * first value. Undefined when absent or unreadable.
 */
export function parseRetryAfter(value: unknown, now: number = Date.now()): number | undefined {
	if (Array.isArray(value)) value = value[0];
	if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? Math.round(value * 1000) : undefined;
	if (typeof value !== 'string') return undefined;
	const text = value.trim();
	if (text === '') return undefined;
	if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
	const date = Date.parse(text);
	return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The HTTP status of an error thrown by the transport (NodeApiError.httpCode) or by a raw request. */
export function httpStatusOf(error: unknown): number | undefined {
	const e = asObject(error);
	if (!e) return undefined;
	const cause = asObject(e.cause);
	const candidates: unknown[] = [
		e.httpCode,
		e.statusCode,
		e.status,
		asObject(e.response)?.status,
		asObject(e.response)?.statusCode,
		cause?.httpCode,
		cause?.statusCode,
		cause?.status,
		asObject(cause?.response)?.status,
		asObject(e.context)?.httpCode,
		asObject(e.context)?.statusCode,
	];
	for (const c of candidates) {
		const n = typeof c === 'string' ? Number(c) : c;
		if (typeof n === 'number' && Number.isInteger(n) && n >= 100 && n <= 599) return n;
	}
	return undefined;
}

/**
 * How long a 429 asks us to wait, in ms, if the error says: `retryAfterMs` on the error or its `context` (the
 * transport puts it there), `retryAfter` (seconds), then a `retry-after` header on the error's response, cause
 * or errorResponse.
 */
export function retryAfterMsOf(error: unknown, now: number = Date.now()): number | undefined {
	const e = asObject(error);
	if (!e) return undefined;
	const ctx = asObject(e.context);
	for (const v of [e.retryAfterMs, ctx?.retryAfterMs]) {
		if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return v;
	}
	for (const v of [e.retryAfter, ctx?.retryAfter]) {
		const ms = parseRetryAfter(v, now);
		if (ms !== undefined) return ms;
	}
	const holders = [e, e.response, e.cause, asObject(e.cause)?.response, e.errorResponse, asObject(e.errorResponse)?.response];
	for (const holder of holders) {
		const ms = parseRetryAfter(headerOf(asObject(holder)?.headers, 'retry-after'), now);
		if (ms !== undefined) return ms;
	}
	return undefined;
}

// ---------------------------------------------------------------------------------------------------------
// Network failures
// ---------------------------------------------------------------------------------------------------------

/** A connection that broke before (or while) the answer arrived: the request may have reached the server. */
export const DROPPED_CONNECTION_CODES: ReadonlySet<string> = new Set([
	'ECONNRESET',
	'ECONNABORTED',
	'ETIMEDOUT',
	'ESOCKETTIMEDOUT',
	'EPIPE',
	'EAI_AGAIN',
	'ENETUNREACH',
	'EHOSTUNREACH',
	'ENETDOWN',
	'EHOSTDOWN',
	'UND_ERR_SOCKET',
	'UND_ERR_CONNECT_TIMEOUT',
	'ERR_SOCKET_CONNECTION_TIMEOUT',
	'ERR_STREAM_PREMATURE_CLOSE',
]);

/** Failures that prove nothing reached the server: refused, no such host, TLS or URL problems. */
export const NOT_SENT_CODES: ReadonlySet<string> = new Set([
	'ECONNREFUSED',
	'ENOTFOUND',
	'EPROTO',
	'ERR_INVALID_URL',
	'ERR_TLS_CERT_ALTNAME_INVALID',
	'CERT_HAS_EXPIRED',
	'DEPTH_ZERO_SELF_SIGNED_CERT',
	'SELF_SIGNED_CERT_IN_CHAIN',
	'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
	'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
	'ERR_SSL_WRONG_VERSION_NUMBER',
]);

/** Codes worth another poll later: dropped connections, a refused connection, a name that did not resolve now. */
const TRANSIENT_CODES: ReadonlySet<string> = new Set([...DROPPED_CONNECTION_CODES, 'ECONNREFUSED', 'ENOTFOUND']);

/** Messages of dropped connections that carry no code (socket hang up, undici's "other side closed"). */
const DROPPED_MESSAGE = /socket hang up|ECONNRESET|other side closed|premature close/i;

/** Messages that say a request timed out. */
const TIMEOUT_MESSAGE = /timeout of \d+ms exceeded|timed out|\btimeout\b/i;

/** Messages of network trouble, as raw errors or the transport's own errors word them. */
const NETWORK_MESSAGE =
	/socket hang up|network|could not reach|connection (was )?refused|connection failed|ECONNRESET|ETIMEDOUT|ECONNREFUSED|EAI_AGAIN|timeout|timed out/i;

/** What a thrown network error says, read from the error and its cause (n8n wraps axios errors). */
export interface NetworkFacts {
	code?: string;
	message: string;
	/** The connection was refused: nothing reached the server. */
	refused: boolean;
	timedOut: boolean;
	/** The connection broke before or while the answer arrived. */
	dropped: boolean;
	/** Nothing can have reached the server (refused, unknown host, TLS or URL problem). */
	notSent: boolean;
}

export function networkFactsOf(error: unknown): NetworkFacts {
	const e = asObject(error) ?? {};
	const cause = asObject(e.cause) ?? {};
	const code = [cause.code, e.code].find((c): c is string => typeof c === 'string' && c !== '');
	const message = String(cause.message ?? e.message ?? error);
	const refused = code === 'ECONNREFUSED';
	const timedOut =
		code === 'ETIMEDOUT' ||
		code === 'ESOCKETTIMEDOUT' ||
		(code === 'ECONNABORTED' && /timeout/i.test(message)) ||
		/timeout of \d+ms exceeded/i.test(message);
	const dropped = (code !== undefined && DROPPED_CONNECTION_CODES.has(code)) || DROPPED_MESSAGE.test(message);
	const notSent = code !== undefined && NOT_SENT_CODES.has(code);
	return { code, message, refused, timedOut, dropped, notSent };
}

/** True when a message reads like a timeout (for errors without a code). */
export const isTimeoutMessage = (message: string): boolean => TIMEOUT_MESSAGE.test(message);

/** 5xx, 408 and network failures are worth another poll; other 4xx are not. */
export function isTransientError(error: unknown): boolean {
	const status = httpStatusOf(error);
	if (status !== undefined) return status >= 500 || status === 408;
	const e = asObject(error);
	const codes = [e?.code, asObject(e?.cause)?.code, asObject(e?.context)?.code];
	if (codes.some((c) => typeof c === 'string' && TRANSIENT_CODES.has(c))) return true;
	const message = `${String(e?.message ?? '')} ${String(asObject(e?.cause)?.message ?? '')}`;
	return NETWORK_MESSAGE.test(message);
}
