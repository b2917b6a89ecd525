/**
 * Long timers at node level. setTimeout holds at most 2^31 - 1 ms (about 24.8 days); a longer delay fires at
 * once. Max Wait may be up to 30 days and the poll intervals up to an hour: the node must sleep for them, not
 * time out at once nor poll back to back. Proven from the sandbox log while a run goes from submit to its end.
 */
import { RunComfyModel } from '../../nodes/RunComfyModel/RunComfyModel.node';
import { runNode } from '../helpers/engine';
import { credentialsFor, flashPromptRun, isModelStatus, isModelSubmit, until, useFaultSandbox } from '../helpers/faults-setup';

const sb = useFaultSandbox();

describe('long waits and intervals', () => {
	it('Max Wait of 30 days (beyond what setTimeout holds) and hour-long intervals: no timeout, no poll while the run runs', async () => {
		sb.reset({ runDurationMs: 150, queueMs: 0 });
		expect(30 * 24 * 3600 * 1000).toBeGreaterThan(2 ** 31 - 1);
		let problem: Error | undefined;
		const result = await runNode({
			node: new RunComfyModel(),
			credentials: credentialsFor(sb),
			...flashPromptRun(1, { pollIntervalSeconds: 3600, maxPollIntervalSeconds: 3600, maxWaitSeconds: 30 * 24 * 3600 }),
			// Stop once the run has finished on the service: by then a timer that fired at once would have polled.
			onStart: (stop) => {
				void until(() => sb.state().runs.some((r) => r.finishedAt !== null), 'the run finished on the service').then(
					stop,
					(error: Error) => {
						problem = error;
						stop();
					},
				);
			},
		});
		expect(problem).toBeUndefined();
		expect(result.stopped).toBe(true);
		const log = sb.log();
		expect(log.filter(isModelSubmit)).toHaveLength(1);
		// Still sleeping before its first status request: not timed out, not polling back to back.
		expect(log.filter(isModelStatus)).toEqual([]);
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		expect(result.items[0].json).toMatchObject({ request_id: log.find(isModelSubmit)?.createdId, stopped: true });
		expect(result.items[0].json.timed_out).toBeUndefined();
	});
});
