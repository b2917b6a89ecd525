/**
 * n8n before 2.34 ships an n8n-workflow whose `sleep(ms)` ignores an abort signal. Stop must still end a wait
 * at once there: here `sleep` is that older one, and its timers are never allowed to fire.
 */
const pendingSleeps: Array<() => void> = [];
/** Called when a sleep starts, so a test can press Stop while the node is sleeping. */
let onSleep: (() => void) | undefined;

jest.mock('n8n-workflow', () => ({
	...jest.requireActual('n8n-workflow'),
	// The pre-2.34 shape: one argument, no signal; it only ends when the test lets it.
	sleep: async () =>
		await new Promise<void>((resolve) => {
			pendingSleeps.push(resolve);
			onSleep?.();
		}),
}));

import type { WaitJob } from '../../../nodes/shared/wait';
import { realClock, waitForAll } from '../../../nodes/shared/wait';
import { abortableSleep } from '../../../nodes/shared/wait/clock';

import { opts } from './helpers';

afterEach(() => {
	onSleep = undefined;
	for (const resolve of pendingSleeps.splice(0)) resolve();
});

describe('Stop with an n8n-workflow sleep that ignores the signal', () => {
	it('ends a sleep the moment the signal aborts, with the abort reason', async () => {
		const ac = new AbortController();
		const sleeping = abortableSleep(600_000, ac.signal);
		ac.abort(new Error('stopped by the user'));
		await expect(sleeping).rejects.toThrow('stopped by the user');
		expect(pendingSleeps).toHaveLength(1); // the old sleep is still pending: only the race ended it
	});

	it('refuses to start a sleep when the signal has already aborted', async () => {
		const ac = new AbortController();
		ac.abort();
		await expect(abortableSleep(600_000, ac.signal)).rejects.toThrow();
		expect(pendingSleeps).toHaveLength(0);
	});

	it('the engine returns "stopped" at Stop instead of waiting out the poll interval', async () => {
		const ac = new AbortController();
		let polls = 0;
		const job: WaitJob = { itemIndex: 0, id: 'r1', poll: async () => ({ state: 'running', record: { polls: ++polls } }) };
		onSleep = () => queueMicrotask(() => ac.abort());
		const [o] = await waitForAll(
			[job],
			opts({ initialIntervalMs: 600_000, maxIntervalMs: 600_000, cancelOnStop: false }),
			ac.signal,
			realClock,
		);
		expect(o.kind).toBe('stopped');
		expect(pendingSleeps.length).toBeGreaterThan(0); // Stop came while a sleep was pending
	});

	it('a sleep without a signal still ends when its time is up', async () => {
		const sleeping = abortableSleep(5);
		expect(pendingSleeps).toHaveLength(1);
		pendingSleeps.splice(0)[0]();
		await expect(sleeping).resolves.toBeUndefined();
	});
});
