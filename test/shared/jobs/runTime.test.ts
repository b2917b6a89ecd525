/**
 * A run's time from the service's timestamps (nodes/shared/jobs/runTime.ts), and a Model → Run against the
 * sandbox learning it: the learned sample is the timestamps' window, not the stretch between two polls.
 */
import { runTimeWindow } from '../../../nodes/shared/jobs/runTime';
import { sharedDurations, timingKey } from '../../../nodes/shared/wait';
import { runNode } from '../../helpers/engine';
import { MODELS, credentialsFor, node, runParams, useSandbox } from '../../RunComfyModel/setup';

describe('runTimeWindow', () => {
	const at = (created: string, finished: string) => ({ created_at: created, finished_at: finished });

	it("is the run time from the timestamps, widened by their resolution and the submission's round trip", () => {
		// Microseconds (the live service's form): 1 ms resolution; the submission took 40 ms to answer.
		expect(runTimeWindow(at('2026-11-25T10:00:00.100000+00:00', '2026-11-25T10:00:07.400000+00:00'), 1000, 1040)).toEqual({
			lo: 7299,
			hi: 7341,
		});
		// Milliseconds with a Z.
		expect(runTimeWindow(at('2026-11-25T10:00:00.100Z', '2026-11-25T10:00:02.350Z'), 0, 0)).toEqual({ lo: 2249, hi: 2251 });
		// Whole seconds only: ±1 s.
		expect(runTimeWindow(at('2026-11-25T10:00:00Z', '2026-11-25T10:00:09Z'), 0, 5)).toEqual({ lo: 8000, hi: 10_005 });
	});

	it('is nothing without both timestamps, with unreadable ones, an end before the start, or no submit times', () => {
		const good = at('2026-11-25T10:00:00.000Z', '2026-11-25T10:00:01.000Z');
		expect(runTimeWindow({ created_at: good.created_at }, 0, 1)).toBeUndefined();
		expect(runTimeWindow(at('yesterday', good.finished_at), 0, 1)).toBeUndefined();
		expect(runTimeWindow({ created_at: 12, finished_at: 13 }, 0, 1)).toBeUndefined();
		expect(runTimeWindow(at(good.finished_at, good.created_at), 0, 1)).toBeUndefined();
		expect(runTimeWindow(good, undefined, 1)).toBeUndefined();
		expect(runTimeWindow(good, 5, 1)).toBeUndefined();
	});
});

describe("Model → Run learns the run time from the result's timestamps", () => {
	const sb = useSandbox({ runDurationMs: 600, queueMs: 0 });

	it('the learned sample starts at the run time the timestamps give, not at the submit as the polls alone say', async () => {
		const key = timingKey('model', MODELS.flash, '');
		sharedDurations.forget(key);
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			inputItems: [{ json: {} }],
			// The first poll, 1 s after the submit, already sees the 0.6 s run finished: the polls only say "within 1 s".
			parameters: runParams(
				MODELS.flash,
				{ prompt: 'a lighthouse' },
				{ downloadOutputs: false, waitOptions: { pollIntervalSeconds: 1, maxPollIntervalSeconds: 1, maxWaitSeconds: 20 } },
			),
		});
		expect(result.error).toBeUndefined();
		const json = result.items[0].json as { created_at: string; finished_at: string };
		const runTime = Date.parse(json.finished_at) - Date.parse(json.created_at);
		const [sample] = sharedDurations.samples(key, 'total');
		// The polls alone say "ended between the submit and the first poll" (lo 0); the timestamps move lo up to the
		// run time. The window's width is the submission's round trip, which depends on the machine's load: the exact
		// window is checked by the runTimeWindow tests above, not here.
		expect(sample.lo).toBeGreaterThanOrEqual(runTime - 1);
		expect(sample.hi).toBeGreaterThan(sample.lo);
		sharedDurations.forget(key);
	});
});
