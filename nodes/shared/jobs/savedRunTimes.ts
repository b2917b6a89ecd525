/**
 * Learned run times kept in the workflow's static data (the node's own part, `getWorkflowStaticData('node')`,
 * field `runTimes`), so that a restarted n8n or an `n8n execute` starts from what earlier
 * executions learned. The copy is compact and bounded and holds no ids, inputs or URLs (../wait/persist).
 *
 * Only with "Remember Run Times" on (off by default): n8n writes a workflow's static data back whole when a
 * non-manual execution ends, so saving here also writes back every other node's static data as it was when this
 * execution started; a polling trigger that moved its cursor meanwhile would fire the same events again after a
 * restart (docs/waiting.md). Nothing is saved while the global static data holds anything (the RunComfy triggers
 * keep their state there); other nodes' own static data cannot be seen from here. n8n 2.x queue-mode workers start
 * new executions with empty static data, so the option is for the main process only (docs/queue-mode.md).
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

/**
 * Whether another node keeps state in the workflow's global static data (the RunComfy Trigger's cursor, the
 * RunComfy Webhook Trigger's delivery ledger, a Code node's `$getWorkflowStaticData('global')`): saving would write
 * it back as this execution loaded it, so nothing is saved then.
 */
function othersKeepGlobalState(ctx: IExecuteFunctions): boolean {
	try {
		return Object.keys(ctx.getWorkflowStaticData('global')).length > 0;
	} catch {
		return true;
	}
}

/** Saves what the store knows of `keys` (n8n writes it when a non-manual execution ends); an unchanged copy is not written. */
export function storeSavedRunTimes(ctx: IExecuteFunctions, store: DurationStore, keys: string[]): void {
	if (!keys.length || othersKeepGlobalState(ctx)) return;
	const data = staticDataOf(ctx);
	try {
		if (!data) return;
		const next = saveRunTimes(store, keys, data[FIELD]);
		if (JSON.stringify(next) !== JSON.stringify(data[FIELD])) data[FIELD] = next as unknown as IDataObject;
	} catch {
		// learning must never break the job flow
	}
}
