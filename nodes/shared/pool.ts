/**
 * The one bounded-concurrency helper: submissions, result fetches and downloads of a batch run through it,
 * so no more than `limit` requests of one kind are in flight at once.
 */

/** Runs `fn` over `items` with at most `limit` calls in flight; results keep the input order. */
export async function mapPool<T, R>(items: T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
	const results = new Array<R>(items.length);
	let next = 0;
	const worker = async () => {
		while (next < items.length) {
			const index = next++;
			results[index] = await fn(items[index], index);
		}
	};
	await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, async () => await worker()));
	return results;
}
