/* eslint-disable @n8n/community-nodes/no-restricted-globals */
import axios, { type AxiosInstance } from 'axios';

import type { Sandbox } from '../../sandbox';

/** An axios client that sends the bearer token and never throws on HTTP status. */
export function client(sb: Sandbox, token: string | null = sb.token): AxiosInstance {
	return axios.create({
		headers: token === null ? {} : { Authorization: `Bearer ${token}` },
		validateStatus: () => true,
		maxBodyLength: Infinity,
		maxContentLength: Infinity,
		// no follow-redirects layer: it would buffer whole request bodies in memory
		maxRedirects: 0,
	});
}

/** Polls `fn` until `done` holds, at most `max` times (5 ms apart); fails with the last value otherwise. */
export async function pollUntil<T>(fn: () => Promise<T>, done: (v: T) => boolean, max = 1000): Promise<T> {
	let last: T | undefined;
	for (let i = 0; i < max; i++) {
		last = await fn();
		if (done(last)) return last;
		await new Promise((resolve) => setTimeout(resolve, 5));
	}
	throw new Error(`condition not reached after ${max} polls; last value: ${JSON.stringify(last)}`);
}

/** Distinct consecutive values, e.g. [a, a, b, b, c] -> [a, b, c]. */
export function distinct<T>(values: T[]): T[] {
	return values.filter((v, i) => i === 0 || values[i - 1] !== v);
}
