/** Helpers of the sandbox's own suites: the direct client and bounded polling, and a reader of state sequences. */
export { client, pollUntil } from '../helpers/sandboxCalls';

/** Distinct consecutive values, e.g. [a, a, b, b, c] -> [a, b, c]. */
export function distinct<T>(values: T[]): T[] {
	return values.filter((v, i) => i === 0 || values[i - 1] !== v);
}
