import type { IDataObject, INodeProperties, IPollFunctions } from 'n8n-workflow';

/** What a watcher remembers between polls (kept in the node's static data). */
export interface WatchState extends IDataObject {
	/** Last state seen per watched id; an event fires when it moves into a reported state. */
	seen?: IDataObject;
	/** Balance watcher: whether the balance was below the threshold at the last poll. */
	below?: boolean;
}

export interface TriggerEvent {
	properties: INodeProperties[];
	/**
	 * Reads the watched things once and returns the events to emit. In manual mode (Fetch Test Event) it
	 * returns the current records without touching `state`, so testing does not swallow a real transition.
	 */
	check(ctx: IPollFunctions, state: WatchState, manual: boolean): Promise<IDataObject[]>;
}

/** Splits "a, b\nc" or an expression's array into trimmed, non-empty, unique ids. */
export function parseIdList(value: unknown): string[] {
	const parts = Array.isArray(value) ? value.map(String) : String(value ?? '').split(/[\s,;]+/);
	return [...new Set(parts.map((p) => p.trim()).filter((p) => p.length > 0))];
}

/**
 * Records `current` for `id` and says whether it is a new transition into a reported state. Only
 * reported states are remembered as "emitted", so a job that goes RUNNING → STOPPED → (resumed) RUNNING →
 * STOPPED fires twice, once per transition.
 */
export function isNewTransition(state: WatchState, id: string, current: string, reported: boolean): boolean {
	const seen = (state.seen ??= {});
	const previous = seen[id] as string | undefined;
	seen[id] = current;
	return reported && previous !== current;
}
