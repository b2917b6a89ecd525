/**
 * The one concurrency limiter: at most N tasks in flight, first come first served, no timers. A generic
 * utility below wait/ and jobs/ (it imports nothing): the wait engine runs its status requests through it;
 * submissions, result fetches and downloads of a batch run through `mapPool`, which is built on it.
 */

/**
 * A usable limit from any number: `Infinity` stays unlimited, a finite value is floored, and anything else
 * (NaN from a bad expression, 0, a negative number) becomes 1 — so a bad value slows a batch down but never
 * stops it (every item still runs).
 */
export function normaliseLimit(limit: number): number {
	if (limit === Infinity) return Infinity;
	return Number.isFinite(limit) && limit >= 1 ? Math.floor(limit) : 1;
}

export class Limiter {
	private active = 0;

	private readonly queue: Array<() => void> = [];

	private readonly limit: number;

	constructor(limit: number) {
		this.limit = normaliseLimit(limit);
	}

	async run<T>(task: () => Promise<T>): Promise<T> {
		if (this.active >= this.limit) {
			// The slot is handed over by the task that finishes (its `active` count is kept for us).
			await new Promise<void>((resolve) => this.queue.push(resolve));
		} else {
			this.active++;
		}
		try {
			return await task();
		} finally {
			const next = this.queue.shift();
			if (next) next();
			else this.active--;
		}
	}
}

/**
 * Runs `fn` over `items` with at most `limit` calls in flight (see `normaliseLimit`); items start in input
 * order and the results keep it. Rejects with the first error; the items already queued still run, as
 * with any Promise.all.
 */
export async function mapPool<T, R>(items: T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
	const limiter = new Limiter(limit);
	return await Promise.all(items.map(async (item, index) => await limiter.run(async () => await fn(item, index))));
}
