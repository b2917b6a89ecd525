/**
 * Learned run times kept in the workflow's static data (the node's own part, `getWorkflowStaticData('node')`,
 * field `runTimes`), so that a restarted n8n, a queue-mode worker or an `n8n execute` starts from what earlier
 * executions learned. The copy is compact and bounded and holds no ids, inputs or URLs (../wait/persist).
 *
 * Only with "Remember Run Times" on (off by default): n8n writes a workflow's static data back whole when a
 * non-manual execution ends, so saving here also writes back every other node's static data as it was when this
 * execution started; a polling trigger that moved its cursor meanwhile (the RunComfy Trigger keeps its own in the
 * workflow's static data) would fire the same events again after a restart (docs/waiting.md).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { restoreRunTimes, saveRunTimes } from '../wait';
import type { DurationStore } from '../wait';

const FIELD = 'runTimes';

const staticDataOf = (ctx: IExecuteFunctions): IDataObject | undefined => {
	try {
		return ctx.getWorkflowStaticData('node');
	} catch {
		return undefined;
	}
};

/** Merges the saved run times of `keys` into the store (keys it knows nothing about). */
export function loadSavedRunTimes(ctx: IExecuteFunctions, store: DurationStore, keys: string[]): void {
	if (!keys.length) return;
	const data = staticDataOf(ctx);
	try {
		if (data) restoreRunTimes(store, keys, data[FIELD]);
	} catch {
		// a malformed copy only means starting cold
	}
}

/** Saves what the store knows of `keys` (n8n writes it when a non-manual execution ends). */
export function storeSavedRunTimes(ctx: IExecuteFunctions, store: DurationStore, keys: string[]): void {
	if (!keys.length) return;
	const data = staticDataOf(ctx);
	try {
		if (data) data[FIELD] = saveRunTimes(store, keys, data[FIELD]) as unknown as IDataObject;
	} catch {
		// learning must never break the job flow
	}
}
