import type { IDataObject } from 'n8n-workflow';

import { getBalance } from '../../shared/transport';
import type { TriggerEvent } from './types';

const show = { event: ['balanceBelow'] };

export const balanceEvent: TriggerEvent = {
	properties: [
		{
			displayName: 'Threshold (USD)',
			name: 'thresholdUsd',
			type: 'number',
			typeOptions: { minValue: 0, numberPrecision: 2 },
			required: true,
			default: 5,
			description:
				'Fires once when the balance drops below this amount, and again only after it has gone back to or above it',
			displayOptions: { show },
		},
	],

	async check(ctx, state, manual) {
		const thresholdUsd = ctx.getNodeParameter('thresholdUsd', 0) as number;
		// Compared in whole microdollars: floating dollars would misjudge balances a cent around the threshold.
		const thresholdMicro = Math.round(thresholdUsd * 1_000_000);
		const balance = await getBalance(ctx);
		const micro = Number(balance.balance_microdollars ?? Math.round(Number(balance.balance_usd) * 1_000_000));
		const below = micro < thresholdMicro;
		const event: IDataObject = {
			event: below ? 'balance.below_threshold' : 'balance.above_threshold',
			threshold_usd: thresholdUsd,
			threshold_microdollars: thresholdMicro,
			...balance,
		};
		if (manual) return [event];
		const crossedBelow = below && state.below !== true;
		state.below = below;
		return crossedBelow ? [event] : [];
	},
};
