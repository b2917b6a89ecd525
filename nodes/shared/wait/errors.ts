/**
 * How the wait engine classifies a failed status request: the HTTP status of an error, how long a 429 asks us
 * to wait, and whether an error is worth another poll. Kept in this small file so it can be swapped for the
 * transport's one shared lookup.
 */

const TRANSIENT_CODES = new Set([
	'ECONNRESET',
	'ECONNREFUSED',
	'ECONNABORTED',
	'ETIMEDOUT',
	'ESOCKETTIMEDOUT',
	'EPIPE',
	'EAI_AGAIN',
	'ENOTFOUND',
	'ENETUNREACH',
	'EHOSTUNREACH',
	'UND_ERR_SOCKET',
	'UND_ERR_CONNECT_TIMEOUT',
	'ERR_SOCKET_CONNECTION_TIMEOUT',
]);

type ErrorLike = Record<string, unknown>;

const asObject = (v: unknown): ErrorLike | undefined =>
	typeof v === 'object' && v !== null ? (v as ErrorLike) : undefined;

/** The HTTP status of an error thrown by the transport (NodeApiError.httpCode) or by a raw request. */
export function httpStatusOf(error: unknown): number | undefined {
	const e = asObject(error);
	if (!e) return undefined;
	const candidates: unknown[] = [
		e.httpCode,
		e.statusCode,
		e.status,
		asObject(e.response)?.status,
		asObject(e.response)?.statusCode,
		asObject(e.cause)?.httpCode,
		asObject(e.cause)?.statusCode,
		asObject(e.cause)?.status,
		asObject(asObject(e.cause)?.response)?.status,
		asObject(e.context)?.httpCode,
		asObject(e.context)?.statusCode,
	];
	for (const c of candidates) {
		const n = typeof c === 'string' ? Number(c) : c;
		if (typeof n === 'number' && Number.isInteger(n) && n >= 100 && n <= 599) return n;
	}
	return undefined;
}

function headerValue(headers: unknown, name: string): unknown {
	const h = asObject(headers);
	if (!h) return undefined;
	if (typeof h.get === 'function') {
		try {
			return (h.get as (n: string) => unknown).call(h, name);
		} catch {
			return undefined;
		}
	}
	const key = Object.keys(h).find((k) => k.toLowerCase() === name);
	return key === undefined ? undefined : h[key];
}

/** Parses a Retry-After value: seconds, or an HTTP date relative to `now`. */
export function parseRetryAfter(value: unknown, now: number): number | undefined {
	if (Array.isArray(value)) value = value[0];
	if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value * 1000;
	if (typeof value !== 'string' || value.trim() === '') return undefined;
	const t = value.trim();
	if (/^\d+(\.\d+)?$/.test(t)) return Number(t) * 1000;
	const date = Date.parse(t);
	if (!Number.isNaN(date)) return Math.max(0, date - now);
	return undefined;
}

/**
 * How long a 429 asks us to wait, in ms, if the error says. Looks at (in order) `retryAfterMs` on the error
 * or its `context` (the transport's preferred place), `retryAfter` (seconds), then a `retry-after` header on
 * the error's response / cause / errorResponse.
 */
export function retryAfterMsOf(error: unknown, now: number): number | undefined {
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
		const ms = parseRetryAfter(headerValue(asObject(holder)?.headers, 'retry-after'), now);
		if (ms !== undefined) return ms;
	}
	return undefined;
}

/** 5xx, 408 and network failures are worth another poll; other 4xx are not. */
export function isTransientError(error: unknown): boolean {
	const status = httpStatusOf(error);
	if (status !== undefined) return status >= 500 || status === 408;
	const e = asObject(error);
	const codes = [e?.code, asObject(e?.cause)?.code, asObject(e?.context)?.code];
	if (codes.some((c) => typeof c === 'string' && TRANSIENT_CODES.has(c))) return true;
	const message = `${String(e?.message ?? '')} ${String(asObject(e?.cause)?.message ?? '')}`;
	return /socket hang up|network|could not reach|connection (was )?refused|connection failed|ECONNRESET|ETIMEDOUT|ECONNREFUSED|EAI_AGAIN|timeout|timed out/i.test(message);
}

export const toError = (e: unknown): Error => (e instanceof Error ? e : new Error(typeof e === 'string' ? e : JSON.stringify(e)));
