import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { getBalance } from './transport';

/**
 * The "Minimum Balance" guard of paid operations: checked once per execution before anything is submitted,
 * compared exactly in microdollars. `minimumUsd` of 0 (or less) turns it off.
 */
export async function assertMinimumBalance(ctx: IExecuteFunctions, minimumUsd: number): Promise<void> {
	if (!(minimumUsd > 0)) return;
	const balance = await getBalance(ctx);
	const minimumMicro = Math.round(minimumUsd * 1_000_000);
	const haveMicro = Number(balance.balance_microdollars ?? Math.round(Number(balance.balance_usd) * 1_000_000));
	if (haveMicro < minimumMicro) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The RunComfy balance is $${(haveMicro / 1_000_000).toFixed(2)}, below the minimum of $${(minimumMicro / 1_000_000).toFixed(2)} set on this node`,
			{
				description:
					'Nothing was submitted. Top up the balance at runcomfy.com, or lower "Minimum Balance (USD)" in the node\'s options.',
			},
		);
	}
}
