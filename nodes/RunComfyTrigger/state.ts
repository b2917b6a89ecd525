/**
 * Where the trigger keeps what it has seen between polls.
 *
 * n8n keys a node's static data (`getWorkflowStaticData('node')`) by the node's NAME (`node:<name>` in the
 * workflow's static data), so renaming the node used to start from an empty state and fire every finished
 * run again. The state now lives in the workflow's global static data under the node's id, which a rename
 * keeps; a state found under the old place is moved over once.
 */
import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import type { WatchState } from './events/types';

const KEY_PREFIX = 'runComfyTrigger:';

/** The global static-data key of one trigger node (its id; the name only for a node without one). */
export const stateKeyOf = (node: { id?: string; name: string }): string => `${KEY_PREFIX}${node.id || node.name}`;

export interface WatchStore {
	get(name: string): WatchState;
	set(name: string, state: WatchState): void;
}

const isObject = (v: unknown): v is IDataObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Plain copies, so what is written back is a new value n8n notices (it only observes assignments it sees). */
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

export function openWatchStore(ctx: IPollFunctions): WatchStore {
	const global = ctx.getWorkflowStaticData('global');
	const key = stateKeyOf(ctx.getNode());
	let states: IDataObject;
	if (isObject(global[key])) {
		states = copy(global[key] as IDataObject);
	} else {
		// Move a state from before (the node's static data, keyed by name) so the upgrade fires nothing again.
		const legacy = ctx.getWorkflowStaticData('node');
		states = {};
		for (const name of Object.keys(legacy)) {
			if (isObject(legacy[name])) states[name] = copy(legacy[name]);
			delete legacy[name];
		}
	}
	return {
		get: (name) => (isObject(states[name]) ? (states[name] as WatchState) : {}),
		set(name, state) {
			states = { ...states, [name]: copy(state) };
			// Assigned on n8n's observed object, so the change is saved with the workflow.
			global[key] = states;
		},
	};
}
