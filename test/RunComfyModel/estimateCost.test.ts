/**
 * Model → Estimate Cost: every item checked exactly as Run checks it and priced from the catalog
 * (base_price_usd × units of price_unit), per item and for the batch, without any paid call. Where the price
 * cannot be derived it says "not estimated" and why, never a guess. Also the pricing rules on their own.
 */
import type { IDataObject } from 'n8n-workflow';

import { estimateRun } from '../../nodes/RunComfyModel/helpers/pricing';
import type { ModelEntry } from '../../nodes/shared/types';
import { runNode } from '../helpers/engine';
import { MODELS, credentialsFor, isSubmit, node, useSandbox } from './setup';

const sb = useSandbox();
beforeEach(() => sb.reset());

const TEXT_TO_VIDEO_NO_DURATION = 'wan-ai/wan-2-2/a14b/text-to-video';
const SORA = 'openai/sora-2/text-to-video';

async function estimate(items: IDataObject[], extra: { continueOnFail?: boolean } = {}) {
	const result = await runNode({
		node,
		credentials: credentialsFor(sb),
		inputItems: items.map((json) => ({ json })),
		parameters: {
			resource: 'model',
			operation: 'estimateCost',
			model: { __rl: true, mode: 'id', value: '={{ $json.model }}' },
			inputMode: 'json',
			inputsJson: '={{ JSON.stringify($json.inputs) }}',
		},
		...extra,
	});
	// Nothing is ever submitted (or paid) by an estimate.
	expect(sb.log().filter(isSubmit)).toEqual([]);
	expect(sb.state().runs).toEqual([]);
	return result;
}

describe('Model → Estimate Cost', () => {
	it('per output: base price × the outputs asked for, per item and for the batch', async () => {
		const result = await estimate([1, 2, 4].map((n) => ({ model: MODELS.flash, inputs: { prompt: 'x', num_images: n } })));
		expect(result.status).toBe('success');
		expect(result.items.map((i) => i.json.estimated_cost_usd)).toEqual([0.04, 0.08, 0.16]);
		result.items.forEach((item, i) => {
			expect(item.pairedItem).toEqual({ item: i });
			expect(item.json).toMatchObject({
				model_id: MODELS.flash,
				estimated: true,
				base_price_usd: 0.04,
				price_unit: 'output',
				units: [1, 2, 4][i],
				batch_estimated_cost_usd: 0.28,
				batch_items: 3,
				batch_items_estimated: 3,
			});
			expect(item.json.basis).toMatch(/\$0\.04 per output × \d \(num_images\), at the base rate/);
		});
	});

	it('per output without a count input: one output per run (the schema default when there is one)', async () => {
		const result = await estimate([{ model: MODELS.flash, inputs: { prompt: 'x' } }]);
		expect(result.items[0].json).toMatchObject({ estimated: true, estimated_cost_usd: 0.04, units: 1 });
	});

	it('per second: base price × the duration asked for, or the schema default', async () => {
		const result = await estimate([
			{ model: MODELS.imageToVideo, inputs: { prompt: 'x', image_url: 'https://example.com/a.png', duration: '10' } },
			{ model: SORA, inputs: { prompt: 'x' } },
		]);
		expect(result.items[0].json).toMatchObject({ estimated: true, estimated_cost_usd: 0.9, price_unit: 'second', units: 10 });
		expect(result.items[0].json.basis).toMatch(/\$0\.09 per second × 10 s \(duration\)/);
		expect(result.items[1].json).toMatchObject({ estimated: true, estimated_cost_usd: 0.4, units: 4 });
		expect(result.items[1].json.batch_estimated_cost_usd).toBe(1.3);
	});

	it('"not estimated", with the reason, for a per-second model without a duration input; the total leaves it out and says so', async () => {
		const result = await estimate([
			{ model: TEXT_TO_VIDEO_NO_DURATION, inputs: { prompt: 'x' } },
			{ model: MODELS.flash, inputs: { prompt: 'x', num_images: 2 } },
		]);
		expect(result.items[0].json).toEqual(
			expect.objectContaining({
				model_id: TEXT_TO_VIDEO_NO_DURATION,
				estimated: false,
				reason: `${TEXT_TO_VIDEO_NO_DURATION} is priced per second of output, and its length cannot be read from the request (no duration input)`,
			}),
		);
		expect(result.items[0].json.estimated_cost_usd).toBeUndefined();
		for (const item of result.items) {
			expect(item.json).toMatchObject({
				batch_estimated_cost_usd: 0.08,
				batch_items: 2,
				batch_items_estimated: 1,
				batch_note: '1 item has no estimate; the total leaves them out',
			});
		}
	});

	it('checks every item as Run does: a bad item is an error naming it, and nothing is submitted', async () => {
		const result = await estimate([
			{ model: MODELS.flash, inputs: { prompt: 'x' } },
			{ model: MODELS.flash, inputs: { prompt: 'x', num_images: 9 } },
		]);
		expect(result.status).toBe('error');
		expect(result.error?.message).toMatch(/^Item 1: .*num_images/);
		const lenient = await estimate(
			[
				{ model: MODELS.flash, inputs: { prompt: 'x' } },
				{ model: MODELS.flash, inputs: { prompt: 'x', num_images: 9 } },
			],
			{ continueOnFail: true },
		);
		expect(lenient.items).toHaveLength(2);
		expect(lenient.items[1].json.error).toMatch(/num_images/);
		expect(lenient.items[0].json).toMatchObject({ estimated: true, batch_items: 2, batch_items_estimated: 1 });
	});
});

describe('pricing rules (estimateRun)', () => {
	const entry = (over: Partial<ModelEntry>): ModelEntry =>
		({
			model_id: 'acme/x/v1',
			base_price_usd: 0.5,
			price_unit: 'output',
			input_schema: { type: 'object', properties: {} },
			...over,
		}) as ModelEntry;

	it.each([
		[
			'an unknown unit',
			entry({ price_unit: 'megapixel' }),
			/acme\/x\/v1 is priced per "megapixel", which this node cannot count before running/,
		],
		['no unit at all', entry({ price_unit: undefined as unknown as string }), /priced per "unknown unit"/],
		['no base price', entry({ base_price_usd: undefined as unknown as number }), /the catalog gives no base price for acme\/x\/v1/],
		['a negative base price', entry({ base_price_usd: -1 }), /no base price/],
		[
			'a per-second model without a duration',
			entry({ price_unit: 'second' }),
			/priced per second of output, and its length cannot be read/,
		],
	])('%s: not estimated, with the reason', (_what, model, reason) => {
		const result = estimateRun(model, { prompt: 'x' });
		expect(result.estimated).toBe(false);
		expect((result as { reason: string }).reason).toMatch(reason);
	});

	it('counts outputs and seconds from the request, else the schema default; money rounded to microdollars', () => {
		expect(estimateRun(entry({ base_price_usd: 0.1 }), { num_outputs: 3 })).toMatchObject({ estimated: true, usd: 0.3, units: 3 });
		expect(estimateRun(entry({ price_unit: 'second', base_price_usd: 0.07 }), { duration: '8s' })).toMatchObject({ usd: 0.56, units: 8 });
		const withDefault = entry({
			price_unit: 'second',
			input_schema: { type: 'object', properties: { seconds: { type: 'integer', default: 6 } } },
		} as Partial<ModelEntry>);
		expect(estimateRun(withDefault, {})).toMatchObject({ usd: 3, units: 6 });
		expect(estimateRun(entry({ base_price_usd: 0.0000014 }), { num_images: 3 })).toMatchObject({ usd: 0.000004 });
	});
});
