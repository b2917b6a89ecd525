/**
 * What cannot be undone waits for a kept output (nodes/shared/jobs/lastSteps.ts): each step runs once when the
 * output is final, none after Stop or from a presentation that failed, and a step that does not run says why.
 * (Inside n8n's engine, with deletions: test/RunComfyDeployment/earlyPresent.test.ts and park.test.ts.)
 */
import { LastSteps } from '../../../nodes/shared/jobs/lastSteps';

/** A step that records what happened to it. */
function recorded() {
	const seen: string[] = [];
	return { seen, step: { run: async () => void seen.push('run'), skip: (reason: string) => void seen.push(`skip: ${reason}`) } };
}

describe('LastSteps', () => {
	it('a final output runs every step once', async () => {
		const steps = new LastSteps();
		const [a, b] = [recorded(), recorded()];
		await steps.collect(async (afterBatch) => afterBatch(a.step));
		await steps.collect(async (afterBatch) => afterBatch(b.step));
		await steps.finish(undefined);
		await steps.finish(undefined);
		expect([a.seen, b.seen]).toEqual([['run'], ['run']]);
	});

	it('an output n8n may throw away runs none, and each step is told why', async () => {
		const steps = new LastSteps();
		const a = recorded();
		await steps.collect(async (afterBatch) => afterBatch(a.step));
		await steps.finish('Retry On Fail may run this node again');
		expect(a.seen).toEqual(['skip: Retry On Fail may run this node again']);
	});

	it('a presentation that fails keeps none of the steps it registered', async () => {
		const steps = new LastSteps();
		const a = recorded();
		await expect(
			steps.collect(async (afterBatch) => {
				afterBatch(a.step);
				throw new Error('download stopped');
			}),
		).rejects.toThrow('download stopped');
		await steps.finish(undefined);
		expect(a.seen).toEqual([]);
	});

	it('after Stop no step runs', async () => {
		const steps = new LastSteps();
		const a = recorded();
		await steps.collect(async (afterBatch) => afterBatch(a.step));
		const stop = new AbortController();
		stop.abort();
		await steps.finish(undefined, stop.signal);
		expect(a.seen).toEqual([]);
	});
});
