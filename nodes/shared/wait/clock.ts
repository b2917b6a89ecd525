/** The time seam of the wait engine: real time in nodes, a fake clock in tests. */
import { sleep } from 'n8n-workflow';

export interface Clock {
	now(): number;
	sleep(ms: number, signal?: AbortSignal): Promise<void>;
	/** A number in [0, 1) for jitter; defaults to Math.random. */
	random?(): number;
}

/** The longest delay a timer can hold; longer ones would fire at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Sleeps `ms` on `clock` in pieces a timer can hold, so a huge interval or deadline never fires early. */
export async function sleepFor(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
	if (!(ms > 0)) return;
	const until = clock.now() + ms;
	let left = ms;
	while (left > 0) {
		await clock.sleep(Math.min(left, MAX_TIMER_MS), signal);
		// Counting the pieces too ends the loop even on a clock that does not advance.
		left = Math.min(until - clock.now(), left - MAX_TIMER_MS);
	}
}

/**
 * n8n-workflow's `sleep` honours the signal only since 2.34: racing it with the signal ends the sleep at Stop on
 * every supported n8n.
 */
export async function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
	if (!signal) return await sleep(ms);
	if (signal.aborted) throw abortReason(signal);
	const own = new AbortController();
	let forget = (): void => undefined;
	const stopped = new Promise<never>((_, reject) => {
		forget = onAbortOf(signal, () => {
			reject(abortReason(signal));
			own.abort();
		});
	});
	try {
		await Promise.race([sleep(ms, own.signal), stopped]);
	} finally {
		forget();
		own.abort();
	}
}

/** The sleepers of each signal, woken by its one listener. */
const sleepers = new WeakMap<AbortSignal, Set<() => void>>();

/** Calls `wake` when `signal` aborts, one listener per signal; returns the function that forgets it. */
export function onAbortOf(signal: AbortSignal, wake: () => void): () => void {
	let waiting = sleepers.get(signal);
	if (!waiting) {
		const set = new Set<() => void>();
		waiting = set;
		sleepers.set(signal, set);
		signal.addEventListener(
			'abort',
			() => {
				const woken = [...set];
				set.clear();
				for (const w of woken) w();
			},
			{ once: true },
		);
	}
	const set = waiting;
	set.add(wake);
	return () => {
		set.delete(wake);
	};
}

const abortReason = (signal: AbortSignal): Error =>
	signal.reason instanceof Error ? signal.reason : new Error('The operation was aborted');

const timerClock: Clock = { now: () => Date.now(), sleep: abortableSleep };

/** Real time; sleeps longer than a timer can hold are split (see `sleepFor`). */
export const realClock: Clock = {
	now: () => Date.now(),
	sleep: async (ms, signal) => await sleepFor(timerClock, ms, signal),
	random: () => Math.random(),
};
