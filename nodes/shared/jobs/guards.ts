import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { CostEstimate } from './kind';

import { MICRODOLLARS_PER_USD, toMicrodollars } from '../money';
import { getBalance } from '../transport';

/**
 * The "Minimum Balance" guard of paid operations: checked once per execution before anything is submitted, compared
 * exactly in microdollars.
 */
export async function assertMinimumBalance(ctx: IExecuteFunctions, minimumUsd: number): Promise<void> {
	if (!(minimumUsd > 0)) return;
	const balance = await getBalance(ctx);
	const minimumMicro = toMicrodollars(minimumUsd);
	const haveMicro = Number(balance.balance_microdollars ?? toMicrodollars(Number(balance.balance_usd)));
	if (haveMicro < minimumMicro) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The RunComfy balance is ${formatUsd(haveMicro)}, below the minimum of ${formatUsd(minimumMicro)} set on this node`,
			{
				description: 'Nothing was submitted. Top up the balance at runcomfy.com, or lower "Minimum Balance (USD)" in the node\'s options.',
			},
		);
	}
}

/** "$1.00", "$0.999999", "-$0.25": cents, plus the microdollars when there are any (so $0.999999 never reads $1.00). */
export function formatUsd(microdollars: number): string {
	const sign = microdollars < 0 ? '-' : '';
	const abs = Math.abs(Math.round(microdollars));
	const whole = Math.floor(abs / MICRODOLLARS_PER_USD);
	const fraction = String(abs % MICRODOLLARS_PER_USD)
		.padStart(6, '0')
		.replace(/0+$/, '')
		.padEnd(2, '0');
	return `${sign}$${whole}.${fraction}`;
}

/** What each execution's node has already submitted, in estimated US dollars (the canvas cap is per execution). */
const ledger = new Map<string, { usd: number; touched: number }>();
const DAY_MS = 24 * 60 * 60 * 1000;

const ledgerKey = (ctx: IExecuteFunctions): string => {
	const node = ctx.getNode();
	return `${ctx.getExecutionId?.() ?? 'no-execution'}\u0000${node.id ?? node.name}`;
};

/**
 * What "Max Estimated Cost (USD)" limits: on the canvas, what the node submits in one `execution` (loops and tries
 * of the node count); for an AI agent's or MCP client's tool `call`, that call alone, since n8n runs many calls in
 * one long execution.
 */
export type CapScope = 'execution' | 'call';

/** "Max Estimated Cost (USD)": refuses the batch before anything is paid when its estimate is above the cap or unknown. */
export function assertCostCap(
	ctx: IExecuteFunctions,
	capUsd: number,
	estimates: Array<{ itemIndex: number; estimate: CostEstimate }>,
	scope: CapScope = 'execution',
): void {
	if (!(capUsd > 0) || estimates.length === 0) return;
	const now = Date.now();
	for (const [key, entry] of ledger) if (now - entry.touched > DAY_MS) ledger.delete(key);
	const unknown = estimates.filter((e) => e.estimate.usd === undefined);
	if (unknown.length) {
		const first = unknown[0];
		throw new NodeOperationError(
			ctx.getNode(),
			`The cost of ${unknown.length} of ${estimates.length} items cannot be estimated, so "Max Estimated Cost (USD)" cannot be enforced`,
			{
				itemIndex: first.itemIndex,
				description: `Item ${first.itemIndex}: ${(first.estimate as { reason: string }).reason}. Nothing was submitted. Use a model with a published per-output or per-second price, or set "Max Estimated Cost (USD)" to 0 and rely on "Minimum Balance (USD)".`,
			},
		);
	}
	const batchMicro = estimates.reduce((sum, e) => sum + toMicrodollars(e.estimate.usd as number), 0);
	const capMicro = toMicrodollars(capUsd);
	if (scope === 'call') {
		if (batchMicro > capMicro) throw overCapForCall(ctx, estimates[0].itemIndex, batchMicro, capMicro);
		return;
	}
	const key = ledgerKey(ctx);
	const beforeMicro = toMicrodollars(ledger.get(key)?.usd ?? 0);
	if (beforeMicro + batchMicro > capMicro) {
		const already = beforeMicro ? `, plus ${formatUsd(beforeMicro)} this node already submitted in this execution,` : '';
		throw new NodeOperationError(
			ctx.getNode(),
			`The estimated cost of ${estimates.length} item${estimates.length === 1 ? '' : 's'} is ${formatUsd(batchMicro)}${already} above the cap of ${formatUsd(capMicro)}`,
			{
				itemIndex: estimates[0].itemIndex,
				description:
					'Nothing was submitted. The estimate is the catalog\'s base price × the outputs or seconds asked for (Estimate Cost shows it per item). Process fewer items, or raise "Max Estimated Cost (USD)" in the node\'s options.',
			},
		);
	}
	if (!ledger.has(key)) freeAtExecutionEnd(ctx, key);
	ledger.set(key, { usd: (beforeMicro + batchMicro) / MICRODOLLARS_PER_USD, touched: now });
}

/** The refusal an agent reads as the tool's answer: the estimate, the cap, and what to change. */
function overCapForCall(ctx: IExecuteFunctions, itemIndex: number, estimateMicro: number, capMicro: number): NodeOperationError {
	return new NodeOperationError(
		ctx.getNode(),
		`The estimated cost of this call is ${formatUsd(estimateMicro)}, above the "Max Estimated Cost (USD)" of ${formatUsd(capMicro)} per call`,
		{
			itemIndex,
			description: `Nothing was submitted or charged. Ask for less in one call (fewer outputs, a shorter duration) so the estimate is at most ${formatUsd(capMicro)}, or ask the user to raise "Max Estimated Cost (USD)" on the node. The estimate is the catalog's base price × the outputs or seconds asked for (Estimate Cost shows it).`,
		},
	);
}

/** The booking lives as long as its execution (the sweep above is the fallback where n8n has no such hook). */
function freeAtExecutionEnd(ctx: IExecuteFunctions, key: string): void {
	try {
		ctx.onExecutionFinish?.(() => ledger.delete(key));
	} catch {
		// no lifecycle hooks in this context
	}
}

/** How many executions' nodes have bookings against a cap right now (for tests of their release). */
export const bookedCount = (): number => ledger.size;
