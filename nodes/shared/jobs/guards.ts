import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { getBalance } from '../transport';

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
			`The RunComfy balance is ${formatUsd(haveMicro)}, below the minimum of ${formatUsd(minimumMicro)} set on this node`,
			{
				description:
					'Nothing was submitted. Top up the balance at runcomfy.com, or lower "Minimum Balance (USD)" in the node\'s options.',
			},
		);
	}
}

/** "$1.00", "$0.999999", "-$0.25": cents, plus the microdollars when there are any (so $0.999999 never reads $1.00). */
export function formatUsd(microdollars: number): string {
	const sign = microdollars < 0 ? '-' : '';
	const abs = Math.abs(Math.round(microdollars));
	const whole = Math.floor(abs / 1_000_000);
	const fraction = String(abs % 1_000_000).padStart(6, '0').replace(/0+$/, '').padEnd(2, '0');
	return `${sign}$${whole}.${fraction}`;
}
