/**
 * Every paid submission leaves a trace outside the node's memory: a line in n8n's log (and its log streaming),
 * and the ids in the execution's custom data, which the execution list shows. n8n keeps at most 10 custom data
 * keys of 512 characters, so each node writes one key, `runcomfy_<node>`, listing "item:id" pairs; what does
 * not fit is counted ("+N more, see the log").
 */
import type { IDataObject } from 'n8n-workflow';

import type { Batch } from './flow';
import type { Accepted, JobItem } from './kind';

const VALUE_LIMIT = 512;

const paidSoFar = new WeakMap<object, string[]>();

export function recordPaid<P extends JobItem, O>(batch: Batch<P, O>, p: P, accepted: Accepted): void {
	const { ctx, kind } = batch;
	const node = ctx.getNode();
	const ids: IDataObject = { ...kind.ids(p), [kind.noun.idField]: accepted.id };
	ctx.logger.info(`RunComfy: paid ${kind.noun.one} submitted (node "${node.name}", item ${p.itemIndex}, ${kind.noun.idField} ${accepted.id})`, {
		node: node.name,
		itemIndex: p.itemIndex,
		...ids,
	});
	const list = paidSoFar.get(batch) ?? [];
	list.push(`${p.itemIndex}:${accepted.id}`);
	paidSoFar.set(batch, list);
	try {
		ctx.customData.set(customDataKey(node.name), customDataValue(list));
	} catch {
		// custom data is a convenience (unavailable in some contexts); the log line above is the record
	}
}

/** `runcomfy_<node name>`: letters, digits and underscores only, at most 50 characters (n8n's rule). */
export const customDataKey = (nodeName: string): string =>
	`runcomfy_${nodeName.normalize('NFKD').replace(/[^\p{L}\p{N}_]+/gu, '_')}`.slice(0, 50);

/** "0:id 1:id …" up to n8n's 512 characters; the rest is counted. */
export function customDataValue(list: string[]): string {
	let value = '';
	for (let n = 0; n < list.length; n++) {
		const next = value ? `${value} ${list[n]}` : list[n];
		const rest = list.length - n - 1;
		const tail = rest > 0 ? ` +${rest} more, see the log` : '';
		if (next.length + tail.length > VALUE_LIMIT) return `${value} +${list.length - n} more, see the log`.trim();
		value = next;
	}
	return value;
}
