/** Checks of the hardware and scaling fields of Create / Update, before anything is sent. */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

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

export function checkCount(
	ctx: IExecuteFunctions,
	itemIndex: number,
	raw: unknown,
	label: string,
	minimum: number,
): number {
	const n = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
	if (typeof n !== 'number' || !Number.isInteger(n) || n < minimum) {
		throw new NodeOperationError(ctx.getNode(), `${label} must be a whole number of at least ${minimum}, got "${String(raw)}"`, {
			itemIndex,
			description: `Enter a whole number ≥ ${minimum} in "${label}". ${NOTHING}`,
		});
	}
	return n;
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
	if (fields.minInstances !== undefined) body.min_instances = checkCount(ctx, itemIndex, fields.minInstances, 'Min Instances', 0);
	if (fields.maxInstances !== undefined) body.max_instances = checkCount(ctx, itemIndex, fields.maxInstances, 'Max Instances', 1);
	if (fields.queueSize !== undefined) body.queue_size = checkCount(ctx, itemIndex, fields.queueSize, 'Queue Size', 0);
	if (fields.keepWarmSeconds !== undefined) {
		body.keep_warm_duration_in_seconds = checkCount(ctx, itemIndex, fields.keepWarmSeconds, 'Keep Warm (Seconds)', 0);
	}
	if (fields.enabled !== undefined) body.is_enabled = fields.enabled === true || fields.enabled === 'true';
	return body;
}
