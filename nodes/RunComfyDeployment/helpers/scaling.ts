/** Checks of the hardware and scaling fields of Create / Update, before anything is sent. */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { checkNumber, emptyNumber, isEmptyValue, rawExpression, refuseEmptyExpression } from '../../shared/params';
import { HARDWARE_SKUS } from '../../shared/types';

const NOTHING = 'Nothing was changed on the service.';

export function checkHardware(ctx: IExecuteFunctions, itemIndex: number, raw: unknown): string {
	const sku = String(raw ?? '').trim();
	if (!(HARDWARE_SKUS as readonly string[]).includes(sku)) {
		throw new NodeOperationError(ctx.getNode(), `"${sku}" is not a known hardware SKU`, {
			itemIndex,
			description: `Choose one of ${HARDWARE_SKUS.join(', ')}. ${NOTHING}`,
		});
	}
	return sku;
}

/** Bounds of the scaling fields (the service publishes none; beyond these a value is a mistake that costs money). */
export const SCALING_LIMITS = {
	minInstances: { label: 'Min Instances', min: 0, max: 1000 },
	maxInstances: { label: 'Max Instances', min: 1, max: 1000 },
	queueSize: { label: 'Queue Size', min: 0, max: 10_000 },
	keepWarmSeconds: { label: 'Keep Warm (Seconds)', min: 0, max: 86_400 },
} as const;

/**
 * A whole number within its field's bounds (NaN, "10s", objects, negatives and huge values are refused, and so is
 * an empty value from an expression: `path` is where the field is written, to read its expression).
 */
export function checkCount(
	ctx: IExecuteFunctions,
	itemIndex: number,
	raw: unknown,
	field: keyof typeof SCALING_LIMITS,
	path?: string,
): number {
	const { label, min, max } = SCALING_LIMITS[field];
	const rule = { label, min, max, integer: true, example: `a whole number from ${min} to ${max}`, outcome: NOTHING };
	if (isEmptyValue(raw) && path !== undefined) emptyNumber(ctx, rawExpression(ctx, path, itemIndex), raw, rule, itemIndex);
	return checkNumber(ctx, raw, rule, itemIndex);
}

export function checkMinMax(ctx: IExecuteFunctions, itemIndex: number, min: number, max: number): void {
	if (min > max) {
		throw new NodeOperationError(ctx.getNode(), `Min Instances (${min}) is above Max Instances (${max})`, {
			itemIndex,
			description: `Lower "Min Instances" or raise "Max Instances" so that min ≤ max. ${NOTHING}`,
		});
	}
}

/** The fields of Create/Update as the service names them. */
export const FIELD_NAMES: Record<string, string> = {
	name: 'name',
	workflowVersion: 'workflow_version',
	hardware: 'hardware',
	minInstances: 'min_instances',
	maxInstances: 'max_instances',
	queueSize: 'queue_size',
	keepWarmSeconds: 'keep_warm_duration_in_seconds',
	enabled: 'is_enabled',
};

/**
 * Converts the node's fields to the service's body, validating each given one. `prefix` is where the fields are
 * written ("updateFields."), so that a count whose expression gave nothing is refused rather than left out.
 */
export function scalingBody(ctx: IExecuteFunctions, itemIndex: number, fields: IDataObject, prefix = ''): IDataObject {
	const body: IDataObject = {};
	const count = (field: keyof typeof SCALING_LIMITS) => checkCount(ctx, itemIndex, fields[field], field, `${prefix}${field}`);
	if (fields.name !== undefined) {
		const name = String(fields.name).trim();
		if (!name) {
			throw new NodeOperationError(ctx.getNode(), 'The deployment name is empty', {
				itemIndex,
				description: `Enter a name, or remove the Name field. ${NOTHING}`,
			});
		}
		body.name = name;
	}
	if (fields.workflowVersion !== undefined) {
		const version = String(fields.workflowVersion).trim();
		if (!version) {
			throw new NodeOperationError(ctx.getNode(), 'The workflow version is empty', {
				itemIndex,
				description: `Enter the version of the cloud-saved workflow, e.g. v1. ${NOTHING}`,
			});
		}
		body.workflow_version = version;
	}
	if (fields.hardware !== undefined) body.hardware = [checkHardware(ctx, itemIndex, fields.hardware)];
	// `in`: a field given whose expression gave undefined is refused, not left out.
	if ('minInstances' in fields) body.min_instances = count('minInstances');
	if ('maxInstances' in fields) body.max_instances = count('maxInstances');
	if ('queueSize' in fields) body.queue_size = count('queueSize');
	if ('keepWarmSeconds' in fields) body.keep_warm_duration_in_seconds = count('keepWarmSeconds');
	if ('enabled' in fields) {
		const expression = isEmptyValue(fields.enabled) ? rawExpression(ctx, `${prefix}enabled`, itemIndex) : undefined;
		if (expression !== undefined) {
			throw refuseEmptyExpression(ctx, {
				label: 'Enabled',
				itemIndex,
				expression,
				value: fields.enabled,
				wanted: 'true or false',
				fallback: 'true',
				outcome: NOTHING,
			});
		}
		// Anything but true/false is refused: read loosely, "yes" would pause the deployment.
		if (fields.enabled !== true && fields.enabled !== false && fields.enabled !== 'true' && fields.enabled !== 'false') {
			throw new NodeOperationError(
				ctx.getNode(),
				`"Enabled" of item ${itemIndex} must be true or false, but is ${JSON.stringify(fields.enabled) ?? String(fields.enabled)}`,
				{
					itemIndex,
					description: `Switch it on or off, or make the expression produce true or false. ${NOTHING}`,
				},
			);
		}
		body.is_enabled = fields.enabled === true || fields.enabled === 'true';
	}
	return body;
}
