/**
 * What cannot be undone (Deployment: deleting a request once its files arrived), kept until the node's output is
 * final.
 */
import { mapPool } from '../pool';

/** One thing that cannot be undone, with how its items say that it was not done. */
export interface LastStep {
	/** Does it; reports its own failure on its items (never throws). */
	run(): Promise<void>;
	/** Not done, for `reason` (a sentence for the items). */
	skip(reason: string): void;
}

/** Deletions in flight at once. */
const CONCURRENCY = 4;

export class LastSteps {
	private readonly steps: LastStep[] = [];

	/**
	 * Runs `present` with an `afterBatch` that registers here; its steps are kept only if `present` succeeds (an item
	 * whose presentation failed is not output as presented, so nothing may be undone for it).
	 */
	async collect<T>(present: (afterBatch: (step: LastStep) => void) => Promise<T>): Promise<T> {
		const steps: LastStep[] = [];
		const presented = await present((step) => steps.push(step));
		this.steps.push(...steps);
		return presented;
	}

	/** The output is final: runs every step once (none after Stop: n8n discards a stopped node's output). */
	async run(signal?: AbortSignal): Promise<void> {
		await mapPool(this.steps.splice(0), CONCURRENCY, async (step) => {
			if (!signal?.aborted) await step.run();
		});
	}

	/** The output may be thrown away, or shown with `reason`: no step runs. */
	skip(reason: string): void {
		for (const step of this.steps.splice(0)) step.skip(reason);
	}

	/** After one try of a node (`notKept`: why n8n may not keep its output, see `SubmissionMemory.mayRerun`). */
	async finish(notKept: string | undefined, signal?: AbortSignal): Promise<void> {
		if (notKept) this.skip(notKept);
		else await this.run(signal);
	}
}
