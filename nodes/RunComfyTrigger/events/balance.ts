import { checkNumber } from '../../shared/params';
import type { NumberRule } from '../../shared/params';
import { MAX_USD_SETTING, MICRODOLLARS_PER_USD, toMicrodollars } from '../../shared/money';
import { getBalance } from '../../shared/transport';
import { fireForExistingProperty } from './options';
import type { Observation, TriggerEvent } from './types';

const show = { event: ['balanceBelow'] };

/** An expression giving "5$" or NaN would otherwise turn the watch off without a word. */
const THRESHOLD: NumberRule = {
	label: 'Threshold (USD)',
	min: 0,
	max: MAX_USD_SETTING,
	example: 'US dollars, e.g. 5',
	outcome: 'Nothing was checked.',
};

export const balanceEvent: TriggerEvent = {
	properties: [
		{
			displayName: 'Threshold (USD)',
			name: 'thresholdUsd',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: MAX_USD_SETTING, numberPrecision: 2 },
			required: true,
			default: 5,
			description:
				'Fires once when the balance drops below this amount, and again only after it has gone back to or above it. Compared exactly, in microdollars.',
			displayOptions: { show },
		},
		fireForExistingProperty(
			show,
			'Fire If Already Below',
			'a balance that is already below the threshold',
			'A changed threshold starts afresh and fires if the balance is below it.',
		),
	],

	async observe(ctx) {
		const thresholdUsd = checkNumber(ctx, ctx.getNodeParameter('thresholdUsd', 0), THRESHOLD, undefined);
		// Compared in whole microdollars: floating dollars would misjudge balances a fraction of a cent around it.
		const thresholdMicro = toMicrodollars(thresholdUsd);
		const balance = await getBalance(ctx);
		const micro = Number(balance.balance_microdollars);
		const below = micro < thresholdMicro;
		const id = `balance:${thresholdMicro}`;
		const observation: Observation = {
			// A changed threshold starts afresh.
			id,
			key: below ? 'below' : 'above',
			reported: below,
			output: async () => ({
				event: below ? 'balance.below_threshold' : 'balance.above_threshold',
				below_threshold: below,
				threshold_usd: thresholdMicro / MICRODOLLARS_PER_USD,
				threshold_microdollars: thresholdMicro,
				...balance,
				currency: balance.currency ?? 'USD',
			}),
		};
		// One observation; a failure fails the poll (there is nothing else to report).
		return { ids: [id], observations: [observation], failures: [] };
	},
};
