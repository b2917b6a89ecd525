/**
 * Every paid submission leaves a trace outside the node's memory: a line in n8n's log (and its log streaming),
 * and the ids in the execution's custom data, which the execution list shows. n8n keeps at most 10 custom data
 * keys of 512 characters, so each node writes one key, `runcomfy_<node>`, listing "item:id" pairs; what does
 * not fit is counted ("+N more, see the log"). The key grows over the whole execution: later tries of the node
 * (Retry On Fail) and later runs of it in a loop add to it, never replace it.
 *
 * n8n saves custom data with the execution when the execution ends (not while a node runs), so after a crash
 * mid-node the log line is the record that survives (docs/money.md).
 */
import type { IDataObject } from 'n8n-workflow';

import type { Batch } from './flow';
import type { Accepted, JobItem } from './kind';

const VALUE_LIMIT = 512;

export function recordPaid<P extends JobItem, O>(batch: Batch<P, O>, p: P, accepted: Accepted): void {
	const { ctx, kind } = batch;
	const node = ctx.getNode();
	const ids: IDataObject = { ...kind.ids(p), [kind.noun.idField]: accepted.id };
	ctx.logger.info(`RunComfy: paid ${kind.noun.one} submitted (node "${node.name}", item ${p.itemIndex}, ${kind.noun.idField} ${accepted.id})`, {
		node: node.name,
		itemIndex: p.itemIndex,
		...ids,
	});
	try {
		const key = customDataKey(node.name);
		ctx.customData.set(key, appendPaid(ctx.customData.get(key), `${p.itemIndex}:${accepted.id}`));
	} catch {
		// custom data is a convenience (unavailable in some contexts); the log line above is the record
	}
}

/** `runcomfy_<node name>`: letters, digits and underscores only, at most 50 characters (n8n's rule). */
export const customDataKey = (nodeName: string): string =>
	`runcomfy_${nodeName.normalize('NFKD').replace(/[^\p{L}\p{N}_]+/gu, '_')}`.slice(0, 50);

const MORE = / \+(\d+) more, see the log$|^\+(\d+) more, see the log$/;

/** "0:id 1:id …" up to n8n's 512 characters, then "+N more, see the log": `entry` added to what `value` holds. */
export function appendPaid(value: string | undefined, entry: string): string {
	const before = value ?? '';
	const more = MORE.exec(before);
	if (more) {
		const listed = before.slice(0, more.index);
		return `${listed ? `${listed} ` : ''}+${Number(more[1] ?? more[2]) + 1} more, see the log`;
	}
	const next = before ? `${before} ${entry}` : entry;
	// Leave room for the count that may follow later entries.
	if (next.length + ' +999999 more, see the log'.length <= VALUE_LIMIT) return next;
	return `${before ? `${before} ` : ''}+1 more, see the log`;
}
