/** How the wait engine classifies a failed status request: the transport's one lookup. */
export { httpStatusOf, isTransientError, parseRetryAfter, retryAfterMsOf } from '../transport/http';

export const toError = (e: unknown): Error => (e instanceof Error ? e : new Error(typeof e === 'string' ? e : JSON.stringify(e)));
