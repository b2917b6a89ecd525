/**
 * Every job of a batch sleeps on the execution's one cancel signal at the same time. An EventTarget checks each
 * new listener against all it holds, so a listener per sleep made a 10,000-item batch quadratic: the signal gets
 * one listener however many sleeps wait on it, and Stop still ends every one of them.
 */
import { abortableSleep } from '../../../nodes/shared/wait/clock';

const SLEEPS = 200;

afterEach(() => {
	jest.useRealTimers();
});

describe('sleeps sharing the execution signal', () => {
	it('add one abort listener to the signal for any number of sleeps, and Stop ends them all', async () => {
		jest.useFakeTimers();
		const ac = new AbortController();
		const added = jest.spyOn(ac.signal, 'addEventListener');
		const sleeping = Array.from({ length: SLEEPS }, async () => await abortableSleep(60_000, ac.signal));
		const settled = Promise.allSettled(sleeping);
		expect(added).toHaveBeenCalledTimes(1);
		expect(jest.getTimerCount()).toBe(SLEEPS);

		ac.abort(new Error('stopped by the user'));
		const results = await settled;
		expect(results.every((r) => r.status === 'rejected' && (r.reason as Error).message === 'stopped by the user')).toBe(true);
		// Each sleep's own timer was cleared, none is left to fire later.
		expect(jest.getTimerCount()).toBe(0);
	});

	it('end on time without the signal, and a later Stop wakes only the sleeps still waiting', async () => {
		jest.useFakeTimers();
		const ac = new AbortController();
		const added = jest.spyOn(ac.signal, 'addEventListener');
		const early = Array.from({ length: SLEEPS }, async () => await abortableSleep(1_000, ac.signal));
		const late = abortableSleep(60_000, ac.signal);
		const lateSettled = late.then(
			() => 'resolved',
			(error: Error) => error.message,
		);
		await jest.advanceTimersByTimeAsync(1_000);
		await expect(Promise.all(early)).resolves.toHaveLength(SLEEPS);
		ac.abort(new Error('stop'));
		await expect(lateSettled).resolves.toBe('stop');
		expect(added).toHaveBeenCalledTimes(1);
		// A sleep that starts after Stop is refused at once.
		await expect(abortableSleep(1_000, ac.signal)).rejects.toThrow('stop');
	});
});
