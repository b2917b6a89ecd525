/**
 * Estimating what a model run will cost before paying, from the catalog only: `base_price_usd` × units, where
 * the unit is the model's `price_unit` ("output"/"image": the number of outputs asked for; "second": the
 * duration asked for). The catalog calls it a base rate (resolution or quality can raise it), so an estimate
 * says which basis it used. When the units cannot be read from the request (a per-second model without a
 * duration input, a unit this node does not know), there is no estimate and the reason says why: never a guess.
 */
import type { IDataObject } from 'n8n-workflow';

import { roundToMicrodollars } from '../../shared/money';
import type { JsonSchemaProperty, ModelEntry } from '../../shared/types';

export type CostEstimate =
	| { estimated: true; usd: number; units: number; unit: string; basePriceUsd: number; basis: string }
	| { estimated: false; reason: string };

const COUNT_INPUTS = ['num_images', 'num_outputs', 'number_of_images', 'num_videos', 'n', 'batch_size'];
const DURATION_INPUTS = ['duration', 'duration_seconds', 'seconds', 'video_length', 'length'];
const PER_OUTPUT = ['output', 'outputs', 'image', 'images', 'video', 'videos', 'audio', 'generation', 'request', 'run'];
const PER_SECOND = ['second', 'seconds', 's', 'sec'];

/** A count or a duration from a request value: 4, "4", "8s" (the catalog's own duration choices). */
function amountOf(value: unknown): number | undefined {
	if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
	if (typeof value !== 'string') return undefined;
	const match = /^\s*(\d+(?:\.\d+)?)\s*(s|sec|secs|seconds?)?\s*$/i.exec(value);
	return match ? Number(match[1]) : undefined;
}

/** The first of `names` the request gives (or, failing that, whose schema default is set), as an amount. */
function inputAmount(
	body: IDataObject,
	properties: Record<string, JsonSchemaProperty>,
	names: string[],
): { name: string; amount: number } | undefined {
	for (const name of names) {
		const amount = amountOf(body[name]);
		if (amount !== undefined) return { name, amount };
	}
	for (const name of names) {
		const amount = amountOf(properties[name]?.default);
		if (amount !== undefined) return { name, amount };
	}
	return undefined;
}

export function estimateRun(model: ModelEntry, body: IDataObject): CostEstimate {
	const price = model.base_price_usd;
	const unit = String(model.price_unit ?? '')
		.trim()
		.toLowerCase();
	if (typeof price !== 'number' || !Number.isFinite(price) || price < 0) {
		return { estimated: false, reason: `the catalog gives no base price for ${model.model_id}` };
	}
	const properties = model.input_schema?.properties ?? {};
	const note = model.pricing_note ? `; the catalog says: ${model.pricing_note}` : '';
	if (PER_OUTPUT.includes(unit)) {
		const count = inputAmount(body, properties, COUNT_INPUTS);
		const units = count?.amount ?? 1;
		const basis = `$${price} per ${unit} × ${units} (${count ? count.name : 'one output per run'}), at the base rate${note}`;
		return { estimated: true, usd: roundToMicrodollars(price * units), units, unit, basePriceUsd: price, basis };
	}
	if (PER_SECOND.includes(unit)) {
		const duration = inputAmount(body, properties, DURATION_INPUTS);
		if (!duration) {
			return {
				estimated: false,
				reason: `${model.model_id} is priced per second of output, and its length cannot be read from the request (no duration input)`,
			};
		}
		const basis = `$${price} per second × ${duration.amount} s (${duration.name}), at the base rate${note}`;
		return {
			estimated: true,
			usd: roundToMicrodollars(price * duration.amount),
			units: duration.amount,
			unit: 'second',
			basePriceUsd: price,
			basis,
		};
	}
	return {
		estimated: false,
		reason: `${model.model_id} is priced per "${unit || 'unknown unit'}", which this node cannot count before running${note}`,
	};
}
