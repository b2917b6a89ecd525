/**
 * Helpers of the sandbox's own suites: the sandbox of a suite, the direct client and bounded polling, and a
 * reader of state sequences.
 */
import { startSandbox } from '../../sandbox';
import type { Sandbox, StartOptions } from '../../sandbox';
import { lazySandbox } from '../helpers/lazySandbox';

export { client, pollUntil } from '../helpers/sandboxCalls';

/** The sandbox of a suite: started before its tests, reset to `config` before each, closed after them. */
export function useStartedSandbox(config: StartOptions = {}): Sandbox {
	let current: Sandbox | undefined;
	beforeAll(async () => {
		current = await startSandbox(config);
	});
	afterAll(async () => await current?.close());
	beforeEach(() => current?.reset());
	return lazySandbox(() => current);
}

/** Distinct consecutive values, e.g. [a, a, b, b, c] -> [a, b, c]. */
export function distinct<T>(values: T[]): T[] {
	return values.filter((v, i) => i === 0 || values[i - 1] !== v);
}
