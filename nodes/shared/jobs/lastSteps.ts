/**
 * What cannot be undone (Deployment: deleting a request once its files arrived), kept until the node's output is
 * final. The steps run only when n8n keeps that output: not when the node fails or is stopped, and not when n8n
 * throws it away to run the node again (Retry On Fail with a first item that failed). Otherwise a retry, or Get
 * Result, would find the paid result gone.
 */
import { mapPool } from '../pool';

/** Deletions in flight at once. */
const CONCURRENCY = 4;

export class LastSteps {
	private readonly steps: Array<() => Promise<void>> = [];

	add(step: () => Promise<void>): void {
		this.steps.push(step);
	}

	/** Runs every step once (none after Stop). A step reports its own failure on its items; it never throws. */
	async run(signal?: AbortSignal): Promise<void> {
		await mapPool(this.steps.splice(0), CONCURRENCY, async (step) => {
			if (!signal?.aborted) await step();
		});
	}
}
