/** `WaitOptions.onDone`: each job seen ended is handed on at once, not when the whole batch has ended. */
import { waitForAll } from '../../../nodes/shared/wait';
import type { WaitOutcome } from '../../../nodes/shared/wait';
import { VirtualClock, opts, timedJob } from './helpers';

it('a run seen ended is handed to onDone while the others are still waited for', async () => {
	const clock = new VirtualClock();
	const short = timedJob(clock, { endMs: 2000 }, { id: 'short' });
	const long = timedJob(clock, { endMs: 60_000 }, { id: 'long', itemIndex: 1 });
	const handed: Array<{ id: string; at: number }> = [];
	const onDone = async (o: WaitOutcome) => {
		handed.push({ id: o.job.id, at: clock.now() });
	};
	const outcomes = await clock.run(waitForAll([short.job, long.job], opts({ onDone }), undefined, clock));
	expect(outcomes.map((o) => o.kind)).toEqual(['done', 'done']);
	expect(handed.map((h) => h.id)).toEqual(['short', 'long']);
	const shortSeen = short.pollTimes[short.pollTimes.length - 1];
	expect(handed[0].at).toBe(shortSeen);
	expect(handed[0].at).toBeLessThan(long.pollTimes[long.pollTimes.length - 1]);
});

it('a failing onDone changes no outcome', async () => {
	const clock = new VirtualClock();
	const run = timedJob(clock, { endMs: 3000 });
	const onDone = async () => {
		throw new Error('fetch failed');
	};
	const [outcome] = await clock.run(waitForAll([run.job], opts({ onDone }), undefined, clock));
	expect(outcome.kind).toBe('done');
});
