import type { IDataObject, INodeProperties, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/** What a watcher remembers between polls (kept per event kind in the node's static data). */
export interface WatchState extends IDataObject {
	/** Last state key seen per watched id; a new key in a reported state is a transition. */
	seen?: IDataObject;
}

/**
 * One watched thing as seen by one poll. Nothing is written to the state until every observation of the poll
 * (and every output it needs) has been read, so a failed request never swallows a transition.
 */
export interface Observation {
	/** The watched id (job, dataset, request; `balance:<threshold µ$>` for the balance). */
	id: string;
	/** Identifies the state: the same key twice in a row is the same state, a new key is a transition. */
	key: string;
	/** Whether entering this state is an event (finished, failed, ...). */
	reported: boolean;
	/** Builds the output item; may fetch more (a result). Called only for items that are output. */
	output(): Promise<IDataObject>;
}

export interface TriggerEvent {
	properties: INodeProperties[];
	/** Reads the watched things once (the same in a scheduled poll and in "Fetch Test Event"). */
	observe(ctx: IPollFunctions): Promise<Observation[]>;
}

/**
 * Decides what a poll emits. Manual mode ("Fetch Test Event"): the current state of everything watched, and the
 * state is left as it was, so testing never consumes a transition. Otherwise: each observation whose key is new
 * and reported, once; then the state records every current key (ids no longer watched are forgotten).
 */
export async function emit(observations: Observation[], state: WatchState, manual: boolean): Promise<IDataObject[]> {
	if (manual) {
		const out: IDataObject[] = [];
		for (const o of observations) out.push(await o.output());
		return out;
	}
	const seen = state.seen ?? {};
	const firing = observations.filter((o) => o.reported && seen[o.id] !== o.key);
	const out: IDataObject[] = [];
	for (const o of firing) out.push(await o.output());
	// Committed only now: any error above leaves the state untouched and the next poll fires again.
	const next: IDataObject = {};
	for (const o of observations) next[o.id] = o.key;
	state.seen = next;
	return out;
}

/** Splits "a, b\nc" or an expression's array into trimmed, non-empty, unique ids. */
export function parseIdList(value: unknown): string[] {
	const parts = Array.isArray(value)
		? value.flatMap((v) => (Array.isArray(v) ? v.map(String) : String(v ?? '').split(/[\s,;]+/)))
		: String(value ?? '').split(/[\s,;]+/);
	return [...new Set(parts.map((p) => p.trim()).filter((p) => p.length > 0))];
}

/** The ids of a list parameter, or an error telling the user to enter some. */
export function requireIds(ctx: IPollFunctions, ids: string[], what: string, field: string): string[] {
	if (ids.length === 0) {
		throw new NodeOperationError(ctx.getNode(), `No ${what} to watch`, {
			description: `Enter at least one ID in "${field}" (separated by commas or new lines), or an expression that returns a list of IDs.`,
		});
	}
	return ids;
}
