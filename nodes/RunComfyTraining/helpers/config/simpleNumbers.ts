/**
 * The numbers of the Simple form, read per item and checked before anything is paid: an expression that gives
 * "2k", NaN, an object, a negative or a huge value (a million steps is a costly typo) is refused with the field,
 * the item and the value, and so is an expression that gives nothing (a misspelt field must not train 2,000
 * steps). The bounds are also the fields' UI limits.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { checkNumber, emptyNumber, isEmptyValue, rawExpression, readNumber } from '../../../shared/params';
import type { NumberRule } from '../../../shared/params';

const whole = (label: string, min: number, max: number, example: string): NumberRule => ({ label, min, max, integer: true, example });

export const SIMPLE_NUMBERS = {
	steps: whole('Steps', 1, 100_000, 'a whole number of steps, e.g. 2000'),
	learningRate: { label: 'Learning Rate', min: 0, above: true, max: 1, example: 'e.g. 0.0001' } as NumberRule,
	rank: whole('Rank', 0, 256, "a whole number up to 256, or 0 for the base model's usual rank"),
	batchSize: whole('Batch Size', 1, 64, 'a whole number, e.g. 1'),
	maxStepSavesToKeep: whole('Keep Last N Checkpoints', 1, 1000, 'a whole number, e.g. 4'),
	sampleEvery: whole('Sample Every N Steps', 1, 100_000, 'a whole number of steps, e.g. 250'),
	saveEvery: whole('Save Every N Steps', 1, 100_000, 'a whole number of steps, e.g. 250'),
	seed: whole('Seed', 0, 4_294_967_295, 'a whole number, e.g. 42'),
} as const;

export interface SimpleNumbers {
	steps: number;
	learningRate: number;
	rank: number;
	batchSize?: number;
	maxStepSavesToKeep?: number;
	sampleEvery?: number;
	saveEvery?: number;
	seed?: number;
}

/** Steps, Learning Rate, Rank and the Training Options numbers of one item (options left out stay undefined). */
export function readSimpleNumbers(ctx: IExecuteFunctions, itemIndex: number): SimpleNumbers {
	const options = ctx.getNodeParameter('simpleOptions', itemIndex, {}) as IDataObject;
	// Left empty in the editor: the trainer's default; an expression that gave nothing is refused.
	const optional = (name: 'batchSize' | 'maxStepSavesToKeep' | 'sampleEvery' | 'saveEvery' | 'seed'): number | undefined => {
		const value = options[name];
		if (!isEmptyValue(value)) return checkNumber(ctx, value, SIMPLE_NUMBERS[name], itemIndex);
		return name in options
			? emptyNumber(ctx, rawExpression(ctx, `simpleOptions.${name}`, itemIndex), value, SIMPLE_NUMBERS[name], itemIndex)
			: undefined;
	};
	return {
		steps: readNumber(ctx, 'steps', itemIndex, 2000, SIMPLE_NUMBERS.steps),
		learningRate: readNumber(ctx, 'learningRate', itemIndex, 0.0001, SIMPLE_NUMBERS.learningRate),
		rank: readNumber(ctx, 'rank', itemIndex, 0, SIMPLE_NUMBERS.rank),
		batchSize: optional('batchSize'),
		maxStepSavesToKeep: optional('maxStepSavesToKeep'),
		sampleEvery: optional('sampleEvery'),
		saveEvery: optional('saveEvery'),
		seed: optional('seed'),
	};
}
