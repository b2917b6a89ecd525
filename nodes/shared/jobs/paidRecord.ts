/**
 * Every paid submission leaves a trace outside the node's memory: a log line, and its ids in one custom data key,
 * `runcomfy_<node>`, within n8n's limits (10 keys, values of 255 characters).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import type { Batch } from './batch';
import type { Accepted, JobItem } from './kind';
import { runIndexOf } from './memory';

/** n8n's limits (n8n-core execution-metadata): value length without an error line, key length. */
const VALUE_LIMIT = 255;
const KEY_LIMIT = 50;

/** What every log line naming a paid id starts with, whatever the node: the one thing to grep a worker's log for. */
export const PAID_LOG_PREFIX = 'RunComfy paid:';

/** The runs of the node that already warned that custom data did not take the record. */
const warned = new WeakSet<object>();

export function recordPaid<P extends JobItem, O>(batch: Batch<P, O>, p: P, accepted: Accepted): void {
	const { ctx, kind } = batch;
	const node = ctx.getNode();
	const ids: IDataObject = { ...kind.ids(p), [kind.noun.idField]: accepted.id };
	ctx.logger.info(
		`${PAID_LOG_PREFIX} ${kind.noun.one} submitted (node "${node.name}", item ${p.itemIndex}, ${kind.noun.idField} ${accepted.id})`,
		{
			node: node.name,
			itemIndex: p.itemIndex,
			...ids,
		},
	);
	record(batch, p.itemIndex, accepted.id);
}

/** A submission that may have been accepted (no answer was seen): listed as "item:?" for a Retry of the execution. */
export function recordMaybePaid<P extends JobItem, O>(batch: Batch<P, O>, p: P): void {
	if (batch.kind.paid) record(batch, p.itemIndex, '?');
}

function record<P extends JobItem, O>(batch: Batch<P, O>, itemIndex: number, id: string): void {
	const { ctx } = batch;
	const node = ctx.getNode();
	const key = customDataKey(node.name);
	const run = runIndexOf(ctx);
	let why: string | undefined;
	try {
		const data = executionCustomData(ctx);
		const value = appendPaid(data.get(key), `${run > 0 ? `${run}.` : ''}${itemIndex}:${id}`);
		data.set(key, value);
		// n8n drops a key beyond its 10th without a word (and, outside manual runs, a refused one too).
		if (data.get(key) !== value) why = 'n8n did not keep the key; it keeps at most 10 per execution';
	} catch (error) {
		why = (error as Error).message;
	}
	if (why === undefined || warned.has(batch)) return;
	warned.add(batch);
	ctx.logger.warn(
		`RunComfy: the paid ids of node "${node.name}" are not in the execution's custom data (${why}); they are in the info lines "${PAID_LOG_PREFIX} …"`,
		{
			node: node.name,
			customDataKey: key,
		},
	);
}

type CustomData = Pick<IExecuteFunctions['customData'], 'get' | 'set' | 'getAll'>;

/**
 * The execution's custom data: `this.customData` (n8n 2.x), else `$execution.customData` of the expression data
 * (n8n 1.x has only that one). Throws when the context has neither.
 */
export function executionCustomData(ctx: IExecuteFunctions): CustomData {
	const direct = (ctx as { customData?: CustomData }).customData;
	if (direct) return direct;
	const execution = ctx.getWorkflowDataProxy(0).$execution as { customData?: CustomData } | undefined;
	if (execution?.customData) return execution.customData;
	throw new Error('n8n gives this node no custom data here');
}

/**
 * `runcomfy_<node name>`: ASCII letters, digits and underscores, at most 50 characters: the key rule of n8n 1.x
 * (2.x also takes other letters), so the same key works on every supported version.
 */
export function customDataKey(nodeName: string): string {
	const ascii = nodeName.normalize('NFKD').replace(/[^A-Za-z0-9_]+/g, '_');
	return `runcomfy_${ascii}`.slice(0, KEY_LIMIT);
}

const MORE = / \+(\d+) more, see the log$|^\+(\d+) more, see the log$/;
const ENTRY = /^(?:(\d+)\.)?(\d+):(\S+)$/;

/** The ids a record lists for one run of the node (the last per item: a later try's), and whether it was cut short. */
export function parseRecord(value: string | undefined, runIndex: number): { items: Map<number, string>; truncated: boolean } {
	const items = new Map<number, string>();
	const more = MORE.exec(value ?? '');
	for (const entry of (value ?? '').slice(0, more?.index).split(' ')) {
		const m = ENTRY.exec(entry);
		if (m && Number(m[1] ?? 0) === runIndex) items.set(Number(m[2]), m[3]);
	}
	return { items, truncated: more !== null };
}

/** "0:id 1:id …" up to n8n's 255 characters, then "+N more, see the log": `entry` added to what `value` holds. */
export function appendPaid(value: string | undefined, entry: string): string {
	const before = value ?? '';
	const more = MORE.exec(before);
	if (more) {
		const listed = before.slice(0, more.index);
		return `${listed ? `${listed} ` : ''}+${Number(more[1] ?? more[2]) + 1} more, see the log`;
	}
	const next = before ? `${before} ${entry}` : entry;
	// Leave room for the count that may follow later entries.
	if (next.length + ' +9999999 more, see the log'.length <= VALUE_LIMIT) return next;
	return `${before ? `${before} ` : ''}+1 more, see the log`;
}
