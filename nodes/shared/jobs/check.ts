/** Steps 2 and 3 of the job flow (./flow.ts), before anything is paid: the item checks, then the guards. */
import type { IDataObject, NodeApiError } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { failedItemOrThrow, isToolCall, toNodeError } from '../items';
import type { Batch, Outputs } from './batch';
import { assertCostCap, assertMinimumBalance } from './guards';
import type { JobItem } from './kind';
import { readCostCap, readMinimumBalance, readWaitOptions } from './options';

/** 2. Every item is checked and every option read; returns the refused items' outputs. */
export async function checkItems<P extends JobItem, O>(batch: Batch<P, O>): Promise<Outputs> {
	const { ctx, kind } = batch;
	const invalid: Array<{ itemIndex: number; error: NodeApiError | NodeOperationError; extra: IDataObject }> = [];
	for (let i = 0; i < batch.items.length; i++) {
		const extra: IDataObject = {};
		try {
			// An item an earlier try of the node submitted is not checked again (its job may have changed what the checks
			// see, e.g. a resumed job is running now); it is followed, never submitted again.
			const earlier = batch.earlier(i);
			const p = earlier && 'prepared' in earlier ? (earlier.prepared as P) : await kind.prepare(i, extra);
			const options = kind.readOptions ? kind.readOptions(p) : (undefined as O);
			const wait = readWaitOptions(ctx, i, kind.wait, Boolean(kind.park));
			const minimumBalance = kind.paid ? readMinimumBalance(ctx, i) : 0;
			const costCap = kind.estimate ? readCostCap(ctx, i) : 0;
			batch.checked.push({ p, options, wait, minimumBalance, costCap });
		} catch (error) {
			invalid.push({ itemIndex: i, error: toNodeError(ctx, error, i), extra });
		}
	}
	if (invalid.length && !batch.continueOnFail) {
		if (invalid.length === 1) throw invalid[0].error;
		const first = invalid[0].error;
		throw new NodeOperationError(ctx.getNode(), invalid.map((p) => lineOf(p.itemIndex, p.error.message)).join('. '), {
			itemIndex: invalid[0].itemIndex,
			description: batch.texts.invalidMany(invalid.length, batch.items.length, first.description ?? first.message),
		});
	}
	return new Map(invalid.map((bad) => [bad.itemIndex, [failedItemOrThrow(ctx, bad.error, bad.itemIndex, bad.extra)]]));
}

const lineOf = (itemIndex: number, message: string) => (/^Item \d+:/.test(message) ? message : `Item ${itemIndex}: ${message}`);

/** 3. The guards, before the first paid call; undefined when they allow the batch. */
export async function refusedByGuards<P extends JobItem, O>(batch: Batch<P, O>): Promise<Outputs | undefined> {
	const { ctx, kind } = batch;
	if (!kind.paid) return undefined;
	// A loop rather than Math.max(...list): a spread of a very large batch overflows the call stack.
	let minimum = -Infinity;
	for (const c of batch.checked) minimum = Math.max(minimum, c.minimumBalance);
	try {
		if (kind.estimate) {
			const caps = batch.checked.map((c) => c.costCap).filter((cap) => cap > 0);
			// Items an earlier try already submitted are not submitted (nor paid) again.
			const fresh = batch.checked.filter((c) => {
				const state = batch.earlier(c.p.itemIndex)?.state;
				return state === undefined || state === 'ended' || state === 'retried';
			});
			const estimate = kind.estimate;
			if (caps.length)
				assertCostCap(
					ctx,
					caps.reduce((a, b) => Math.min(a, b)),
					fresh.map((c) => ({ itemIndex: c.p.itemIndex, estimate: estimate(c.p) })),
					isToolCall(ctx) ? 'call' : 'execution',
				);
		}
		await assertMinimumBalance(ctx, minimum);
		return undefined;
	} catch (error) {
		if (!batch.continueOnFail) throw toNodeError(ctx, error, batch.checked[0].p.itemIndex);
		return new Map(batch.checked.map((c) => [c.p.itemIndex, [failedItemOrThrow(ctx, error, c.p.itemIndex, kind.ids(c.p))]]));
	}
}
