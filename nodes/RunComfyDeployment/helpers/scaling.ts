/** Checks of the hardware and scaling fields of Create / Update, before anything is sent. */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { checkNumber } from '../../shared/jobs';
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

/** A whole number within its field's bounds (NaN, "10s", objects, negatives and huge values are refused). */
export function checkCount(ctx: IExecuteFunctions, itemIndex: number, raw: unknown, field: keyof typeof SCALING_LIMITS): number {
	const { label, min, max } = SCALING_LIMITS[field];
	return checkNumber(ctx, raw, { label, min, max, integer: true, example: `a whole number from ${min} to ${max}`, outcome: NOTHING }, itemIndex);
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

/** Converts the node's fields to the service's body, validating each given one. */
export function scalingBody(ctx: IExecuteFunctions, itemIndex: number, fields: IDataObject): IDataObject {
	const body: IDataObject = {};
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
	if (fields.minInstances !== undefined) body.min_instances = checkCount(ctx, itemIndex, fields.minInstances, 'minInstances');
	if (fields.maxInstances !== undefined) body.max_instances = checkCount(ctx, itemIndex, fields.maxInstances, 'maxInstances');
	if (fields.queueSize !== undefined) body.queue_size = checkCount(ctx, itemIndex, fields.queueSize, 'queueSize');
	if (fields.keepWarmSeconds !== undefined) body.keep_warm_duration_in_seconds = checkCount(ctx, itemIndex, fields.keepWarmSeconds, 'keepWarmSeconds');
	if (fields.enabled !== undefined) {
		// Anything but true/false is refused: read loosely, "yes" would pause the deployment.
		if (fields.enabled !== true && fields.enabled !== false && fields.enabled !== 'true' && fields.enabled !== 'false') {
			throw new NodeOperationError(ctx.getNode(), `"Enabled" of item ${itemIndex} must be true or false, but is ${JSON.stringify(fields.enabled) ?? String(fields.enabled)}`, {
				itemIndex,
				description: `Switch it on or off, or make the expression produce true or false. ${NOTHING}`,
			});
		}
		body.is_enabled = fields.enabled === true || fields.enabled === 'true';
	}
	return body;
}
