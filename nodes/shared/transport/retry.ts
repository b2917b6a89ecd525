/** Retry policy of the transport: bounded exponential backoff with jitter (Retry-After is read in ./http). */
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

/** Backoff before attempt `attempt + 1` (attempt counts from 1): base·2^(attempt−1), ±25 % jitter, capped. */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
	const raw = policy.baseDelayMs * 2 ** Math.max(0, attempt - 1);
	const jittered = raw * (0.75 + random() * 0.5);
	return Math.round(Math.min(policy.maxDelayMs, jittered));
}
