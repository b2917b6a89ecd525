/**
 * How the wait engine classifies a failed status request: the transport's one lookup of HTTP status, Retry-After
 * and transient network failures, plus turning anything thrown into an Error.
 */
export { httpStatusOf, isTransientError, parseRetryAfter, retryAfterMsOf } from '../transport/http';

export const toError = (e: unknown): Error => (e instanceof Error ? e : new Error(typeof e === 'string' ? e : JSON.stringify(e)));
