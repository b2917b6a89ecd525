/** Which run of a timing key is at the front of RunComfy's queue, and whether its runs go one at a time. */
import { KeyQueue } from '../../../nodes/shared/wait/keyQueue';

/** A queue of runs 0…n−1, none seen yet. */
function queueOf(n: number): KeyQueue {
	const queue = new KeyQueue();
	for (let i = 0; i < n; i++) queue.add(i);
	return queue;
}

describe('KeyQueue', () => {
	it('the front counts the positions down by the runs that ended after they were read; of two equal, the first submitted leads', () => {
		const queue = queueOf(4);
		queue.seenQueued(2, 2, 1000);
		queue.seenQueued(3, 3, 1000);
		// Run 0 was found going at 1200, after the positions above were read: its end counts for them.
		queue.ended(0, 1200);
		// Run 1 read at 1500, after run 0's last poll: that end may have come before, so it does not count for run 1.
		queue.seenQueued(1, 1, 1500);
		expect(queue.front()).toBe(1);
		queue.ended(1, 1600);
		expect(queue.front()).toBe(2);
	});

	it('ends a cold batch saw late do not count down a position read after those runs were last polled', () => {
		const queue = queueOf(10);
		// A tick read run 8's position at 9000; runs 0-5 were last polled before it and only seen ended later.
		queue.seenQueued(8, 4, 9000);
		for (let i = 0; i <= 5; i++) queue.ended(i, 1000 * (i + 1));
		queue.seenGoing(6, 13_950, 14_000);
		// Run 7, asked at 13 950, says in_queue with no position: it stands first behind the run going.
		queue.seenQueued(7, queue.rankOf(7), 13_950);
		expect(queue.front()).toBe(7);
		queue.ended(6, 14_000);
		expect(queue.front()).toBe(7);
	});

	it('one at a time once a woken front, with nothing else going, is seen going; a queued run then waits for the run going', () => {
		const queue = queueOf(3);
		queue.seenGoing(0, 900, 1000);
		queue.seenQueued(1, 1, 1000);
		queue.seenQueued(2, 2, 1000);
		expect(queue.oneAtATime()).toBe(false);
		expect(queue.blocked(2)).toBe(false);
		queue.ended(0);
		queue.wake(1, 5000);
		expect(queue.seenGoing(1, 5000, 5050)).toBe(false);
		expect(queue.oneAtATime()).toBe(true);
		expect(queue.blocked(2)).toBe(true);
		expect(queue.blocked(1)).toBe(false);
		queue.ended(1);
		expect(queue.blocked(2)).toBe(false);
		expect(queue.lastLeft()).toBe(2);
	});

	it('a woken front seen going while another run is going is no sign of one at a time', () => {
		const queue = queueOf(3);
		queue.seenGoing(0, 0, 10);
		queue.seenGoing(2, 100, 110);
		queue.seenQueued(1, 1, 100);
		queue.ended(0);
		queue.wake(1, 500);
		queue.seenGoing(1, 500, 510);
		expect(queue.oneAtATime()).toBe(false);
	});

	it('two runs surely going at one moment end one at a time, and say so once', () => {
		const queue = queueOf(3);
		queue.seenQueued(1, 1, 0);
		queue.wake(1, 0);
		queue.seenGoing(1, 0, 10);
		expect(queue.oneAtATime()).toBe(true);
		// Run 2 seen going between two polls that saw run 1 going.
		queue.seenGoing(2, 500, 510);
		expect(queue.seenGoing(1, 1000, 1010)).toBe(true);
		expect(queue.oneAtATime()).toBe(false);
		expect(queue.seenGoing(2, 1500, 1510)).toBe(false);
	});

	it('runs going one after the other, their polls never overlapping, stay one at a time', () => {
		const queue = queueOf(3);
		queue.seenQueued(1, 1, 0);
		queue.wake(1, 0);
		queue.seenGoing(1, 0, 10);
		queue.seenGoing(1, 900, 910);
		// Run 2 first seen going after run 1's last poll that saw it going, before its end was seen.
		queue.seenGoing(2, 950, 960);
		expect(queue.oneAtATime()).toBe(true);
	});

	it('a woken front that a later poll still finds queued asks the runs behind it to look again', () => {
		const queue = queueOf(3);
		queue.seenQueued(1, 1, 0);
		queue.wake(1, 1000);
		// A poll sent before the wake tells nothing.
		expect(queue.seenQueued(1, 1, 900)).toBe(false);
		expect(queue.seenQueued(1, 1, 1100)).toBe(true);
		expect(queue.seenQueued(1, 1, 1200)).toBe(false);
	});

	it('every run asked at once after the first end, none seen going before: one then seen going and the rest queued is one at a time', () => {
		const queue = queueOf(4);
		queue.seenQueued(0, 1, 1000);
		queue.ended(1);
		queue.sweep();
		queue.seenGoing(0, 2400, 2440);
		queue.seenQueued(2, queue.rankOf(2), 2400);
		queue.seenQueued(3, queue.rankOf(3), 2400);
		expect(queue.oneAtATime()).toBe(true);
		expect(queue.front()).toBe(2);
		expect(queue.blocked(3)).toBe(true);
	});

	it('two runs seen going after the first end, as when two or more go at once, are no sign of one at a time', () => {
		const queue = queueOf(4);
		queue.ended(0);
		queue.sweep();
		queue.seenGoing(1, 2400, 2440);
		queue.seenGoing(2, 2400, 2450);
		queue.seenQueued(3, 1, 2400);
		expect(queue.oneAtATime()).toBe(false);
		expect(queue.blocked(3)).toBe(false);
	});

	it('no sign from the first end when a run was already seen going: it may have been going beside the run that ended', () => {
		const queue = queueOf(3);
		queue.seenGoing(1, 900, 950);
		queue.ended(0);
		queue.sweep();
		queue.seenGoing(2, 2400, 2440);
		expect(queue.oneAtATime()).toBe(false);
	});

	it('a run seen queued without a position stands behind the runs submitted before it that are neither ended nor going', () => {
		const queue = queueOf(5);
		queue.seenGoing(1, 0, 10);
		queue.ended(0);
		expect(queue.rankOf(2)).toBe(1);
		expect(queue.rankOf(4)).toBe(3);
	});

	it('a run asked after the first end but held since, seen going much later, leaves the queue one at a time', () => {
		const queue = queueOf(4);
		queue.ended(0);
		queue.sweep();
		queue.seenGoing(1, 2400, 2440);
		expect(queue.oneAtATime()).toBe(true);
		queue.ended(1);
		queue.wake(2, 9000);
		queue.seenGoing(2, 9000, 9040);
		// Run 3 was asked with the others but never answered then; it is seen going after run 2 ended.
		queue.ended(2);
		queue.seenGoing(3, 15_000, 15_040);
		expect(queue.oneAtATime()).toBe(true);
	});

	it('two runs seen going after the first success are no sign of one at a time, also when one poll waited for a free slot', () => {
		const queue = queueOf(4);
		queue.ended(0);
		queue.sweep();
		// Both polls were asked for at 2400; the second was sent only once a Parallel Status Check was free.
		queue.seenGoing(1, 2400, 2440, 2400);
		queue.seenGoing(2, 2600, 2650, 2400);
		expect(queue.oneAtATime()).toBe(false);
	});

	it('a run whose wait ended unseen (an error, a timeout) no longer counts as left or going', () => {
		const queue = queueOf(3);
		queue.seenGoing(0, 0, 10);
		queue.gone(0);
		expect(queue.goingRun()).toBeUndefined();
		queue.ended(1);
		expect(queue.lastLeft()).toBe(2);
	});
});
