/** Retry policy of the transport: bounded exponential backoff with jitter, Retry-After honoured. */
import type { IDataObject } from 'n8n-workflow';

export interface RetryPolicy {
	/** Total attempts including the first. */
	maxAttempts: number;
	/** First backoff; doubles each attempt. */
	baseDelayMs: number;
	/** No single wait is longer than this; a Retry-After above it means "give up now". */
	maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
	maxAttempts: 4,
	baseDelayMs: 500,
	maxDelayMs: 10_000,
});

/** Network error codes of a connection that broke before (or while) the answer arrived. */
export const DROPPED_CONNECTION_CODES = new Set([
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

/** Parses Retry-After: delay-seconds or an HTTP date. Returns ms, or undefined when absent/unreadable. */
export function parseRetryAfter(value: unknown, now = Date.now()): number | undefined {
	if (Array.isArray(value)) value = value[0];
	if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? Math.round(value * 1000) : undefined;
	if (typeof value !== 'string') return undefined;
	const text = value.trim();
	if (text === '') return undefined;
	if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
	const date = Date.parse(text);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, date - now);
}

export function headerOf(headers: IDataObject | undefined, name: string): unknown {
	if (!headers) return undefined;
	const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
	return key === undefined ? undefined : headers[key];
}

/** Backoff before attempt `attempt + 1` (attempt counts from 1): base·2^(attempt−1), ±25 % jitter, capped. */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
	const raw = policy.baseDelayMs * 2 ** Math.max(0, attempt - 1);
	const jittered = raw * (0.75 + random() * 0.5);
	return Math.round(Math.min(policy.maxDelayMs, jittered));
}
