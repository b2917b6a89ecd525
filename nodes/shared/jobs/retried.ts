/**
 * n8n's Retry of a failed execution runs the failed node again in a new execution that keeps the custom data: its
 * `runcomfy_<node>` record (./paidRecord.ts) is what the node sees of what it paid.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { isToolCall } from '../items';
import { isTerminal } from '../status';
import type { Batch } from './batch';
import type { Accepted, JobItem, JobKind } from './kind';
import type { SubmissionMemory } from './memory';
import { runIndexOf } from './memory';
import { customDataKey, executionCustomData, parseRecord } from './paidRecord';

/** n8n keeps at most 10 custom data keys per execution. */
const KEY_LIMIT = 10;

/**
 * On the first try of the node in a retried execution, what the failed execution submitted for each item of this
 * run goes into the memory (state `retried`), where the submit step finds it.
 */
export function rememberRetried<P extends JobItem, O>(ctx: IExecuteFunctions, kind: JobKind<P, O>, memory: SubmissionMemory): void {
	if (!kind.paid || !kind.submit || memory.tryNumber !== 1 || isToolCall(ctx) || modeOf(ctx) !== 'retry') return;
	const node = ctx.getNode().name;
	const key = customDataKey(node);
	let all: IDataObject | undefined;
	try {
		all = executionCustomData(ctx).getAll();
	} catch {
		// no custom data here: nothing can be known, so every item may have been paid
	}
	const value = typeof all?.[key] === 'string' ? all[key] : undefined;
	const record = parseRecord(value, runIndexOf(ctx));
	// Without our key while n8n's keys are full, the record may have been dropped: nothing unlisted is safe.
	const unknown = !all || record.truncated || (value === undefined && Object.keys(all).length >= KEY_LIMIT);
	const items = ctx.getInputData().length;
	for (let i = 0; i < items; i++) {
		const listed = record.items.get(i);
		if (listed !== undefined) memory.set(i, { state: 'retried', id: listed === '?' ? undefined : listed });
		else if (unknown) memory.set(i, { state: 'retried', id: undefined, unlisted: true });
	}
}

const modeOf = (ctx: IExecuteFunctions): string | undefined => {
	try {
		return ctx.getMode();
	} catch {
		return undefined;
	}
};

/** What the submit step does with an item the failed execution listed. */
export type RetriedChoice = { follow: Accepted } | { submit: true } | { refuse: { message: string; description: string } };

/**
 * One check of the run the failed execution submitted for `p` (status, and its result once it has ended): a run
 * that definitively failed or was cancelled may be submitted again; any other is followed.
 */
export async function choose<P extends JobItem, O>(
	batch: Batch<P, O>,
	p: P,
	entry: { id?: string; unlisted?: boolean },
): Promise<RetriedChoice> {
	const { ctx, kind } = batch;
	const { noun } = kind;
	const node = ctx.getNode().name;
	const where = `Fetch it with ${noun.lookUp}, or remove the item from the input before you retry.`;
	if (entry.id === undefined) {
		const why = entry.unlisted
			? `the execution this one retries paid for more ${noun.many} than its custom data lists`
			: `in the execution this one retries its ${noun.one} may have been accepted (no answer was seen)`;
		return {
			refuse: {
				message: `Item ${p.itemIndex} is not submitted again: ${why}`,
				description: `Find its ${noun.idLabel} in the n8n log ("RunComfy: paid … submitted (node "${node}", item ${p.itemIndex}, …)") or on your RunComfy dashboard. ${where}`,
			},
		};
	}
	const id = entry.id;
	const t = { ...p, id, accepted: { [noun.idField]: id } };
	try {
		const status = await kind.poll(t);
		if (!isTerminal(status.state)) return { follow: { id, json: t.accepted } };
		if (status.state !== 'failed' && status.state !== 'cancelled') {
			const result = kind.fetch ? await kind.fetch(t, status.record) : status.record;
			if (kind.verdict(t, status.record, result).ok) return { follow: { id, json: t.accepted } };
		}
		ctx.logger.info(
			`RunComfy: item ${p.itemIndex}'s ${noun.one} ${id} of the execution this one retries ended without a result; submitting it again`,
			{
				node,
				itemIndex: p.itemIndex,
				[noun.idField]: id,
			},
		);
		return { submit: true };
	} catch (error) {
		return {
			refuse: {
				message: `Item ${p.itemIndex} is not submitted again: the execution this one retries submitted ${noun.one} ${id} for it, and its status could not be read (${(error as Error).message})`,
				description: `${noun.idLabel} ${id} may already be paid. ${where}`,
			},
		};
	}
}
