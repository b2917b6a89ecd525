/**
 * "Simplify", as n8n's own nodes have it, on the operations whose records carry more than 10 fields: the fields a
 * user needs, per resource, in this one place; on by default, so an AI agent (which gets the node's defaults) gets
 * the short form too. Off: the service's whole record.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { readBoolean } from './params';

/**
 * The fields a simplified record keeps, in this order, by resource: the id first, never more than 10. Fields that
 * only an "Include …" option asks for (a deployment's `workflow_nodes` and `readme`, a model's `input_schema` in a
 * list) come last and appear only when asked for.
 */
export const SIMPLE_FIELDS = {
	deployment: [
		'id',
		'name',
		'status',
		'is_enabled',
		'workflow_id',
		'workflow_version',
		'hardware',
		'updated_at',
		'workflow_nodes',
		'readme',
	],
	model: [
		'model_id',
		'display_name',
		'description',
		'categories',
		'kind',
		'base_price_usd',
		'price_unit',
		'model_url',
		'required_inputs',
		'input_schema',
	],
	trainingJob: ['job_id', 'name', 'status', 'service_status', 'progress', 'finished', 'error', 'finished_at', 'stop_reason', 'hint'],
	dataset: ['id', 'name', 'status', 'error', 'file_count', 'missing_captions', 'warnings', 'created_at', 'updated_at'],
} as const satisfies Record<string, readonly string[]>;

export type SimpleResource = keyof typeof SIMPLE_FIELDS;

/** The "Simplify" switch (n8n's name, wording and default). */
export const simplifyProperty: INodeProperties = {
	displayName: 'Simplify',
	name: 'simple',
	type: 'boolean',
	default: true,
	description: 'Whether to return a simplified version of the response instead of the raw data',
};

/**
 * "Simplify" of one item, read before any call: an expression that gives nothing (a missing column, an empty cell)
 * is refused, as every other switch of the package, rather than taken as on.
 */
export const readSimplify = (ctx: IExecuteFunctions, itemIndex: number): boolean => readBoolean(ctx, 'simple', itemIndex, true, 'Simplify');

/** The record's fields that `resource` keeps, in that order; fields the record does not have are left out. */
export function simplified(resource: SimpleResource, record: IDataObject): IDataObject {
	const out: IDataObject = {};
	for (const key of SIMPLE_FIELDS[resource]) {
		if (record[key] !== undefined) out[key] = record[key];
	}
	return out;
}

/** `record` as the item's Simplify says: simplified when on, whole when off. */
export const asChosen = (simple: boolean, resource: SimpleResource, record: IDataObject): IDataObject =>
	simple ? simplified(resource, record) : record;
