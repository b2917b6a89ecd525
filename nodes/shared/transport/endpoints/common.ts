import type { IDataObject } from 'n8n-workflow';

import type { RequestHandle, RunComfyContext } from '../types';
import { answerShapeError } from '../errors';

export const asObject = (value: unknown): IDataObject =>
	typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as IDataObject) : {};

/**
 * A list that comes either bare (`[...]`) or wrapped (`{ <key>: [...] }`). Anything else is an error: an
 * empty list would silently hide a wrong base URL.
 */
export function normaliseList<T extends IDataObject>(ctx: RunComfyContext, body: unknown, key: string, what: string): T[] {
	if (Array.isArray(body)) return body.filter((e) => typeof e === 'object' && e !== null) as T[];
	const obj = asObject(body);
	const list = obj[key];
	if (Array.isArray(list)) return list.filter((e) => typeof e === 'object' && e !== null) as T[];
	for (const alt of ['items', 'data', 'results']) {
		if (Array.isArray(obj[alt])) return (obj[alt] as unknown[]).filter((e) => typeof e === 'object' && e !== null) as T[];
	}
	throw answerShapeError(ctx, {
		summary: `Unexpected ${what} answer`,
		message: `RunComfy answered the ${what} request with something that is not a list`,
		description: `Expected a list or { "${key}": [...] }. Check the base URLs in the RunComfy API credential.`,
		body,
	});
}

/** A paid submission answered 2xx but without a request id: it was probably accepted, and we cannot follow it. */
export function requireRequestId(
	ctx: RunComfyContext,
	body: unknown,
	operation: string,
	checkHint: string,
	itemIndex?: number,
): RequestHandle {
	const handle = asObject(body);
	const id = handle.request_id ?? handle.id;
	if (typeof id === 'string' && id !== '') return { ...handle, request_id: id } as RequestHandle;
	if (typeof id === 'number') return { ...handle, request_id: String(id) } as RequestHandle;
	const error = answerShapeError(ctx, {
		summary: 'No request id in the answer',
		message: `The ${operation} was probably accepted, but the answer carries no request id`,
		description: `It was NOT sent again. Before you resubmit, ${checkHint}`,
		body,
		itemIndex,
	});
	error.context.mayHaveBeenAccepted = true;
	throw error;
}

/** Copies `alias` into `key` when only the alias is present (e.g. `deployment_id` → `id`). */
export function withId<T extends IDataObject>(record: unknown, key: string, ...aliases: string[]): T {
	const obj = { ...asObject(record) };
	if (obj[key] === undefined || obj[key] === null || obj[key] === '') {
		for (const alias of aliases) {
			if (obj[alias] !== undefined && obj[alias] !== null && obj[alias] !== '') {
				obj[key] = obj[alias];
				break;
			}
		}
	}
	return obj as T;
}
