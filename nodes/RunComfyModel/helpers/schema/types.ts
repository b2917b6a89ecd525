import type { IDataObject } from 'n8n-workflow';

import type { JsonSchemaProperty } from '../../../shared/types';

export const FILE_FORMATS = ['image_uri', 'video_uri', 'audio_uri', 'image_uris', 'video_uris', 'audio_uris'];

/** The value types the schema module distinguishes. */
export type SchemaValueType = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object';

export interface SchemaProblem {
	input: string;
	message: string;
}

// ---------------------------------------------------------------------------------------------------------
// Reading a property
// ---------------------------------------------------------------------------------------------------------

export const TYPE_ALIASES: Record<string, SchemaValueType> = {
	string: 'string',
	str: 'string',
	text: 'string',
	integer: 'integer',
	int: 'integer',
	number: 'number',
	float: 'number',
	double: 'number',
	boolean: 'boolean',
	bool: 'boolean',
	array: 'array',
	list: 'array',
	object: 'object',
	dict: 'object',
};

export const isPlainObject = (value: unknown): value is IDataObject => typeof value === 'object' && value !== null && !Array.isArray(value);

export function typeNames(prop: JsonSchemaProperty): string[] {
	const names: string[] = [];
	const add = (t: unknown) => {
		if (typeof t === 'string') names.push(t.toLowerCase());
		else if (Array.isArray(t)) t.forEach(add);
	};
	add(prop.type);
	for (const key of ['anyOf', 'oneOf']) {
		const variants = prop[key];
		if (Array.isArray(variants)) {
			for (const v of variants) if (isPlainObject(v)) add(v.type);
		}
	}
	return names;
}

/** The file format of a property (`image_uri`, `image_uris`, ...), looking at `items` for arrays. */
export function fileFormatOf(prop: JsonSchemaProperty | undefined): string | undefined {
	if (!prop) return undefined;
	const format = typeof prop.format === 'string' ? prop.format.toLowerCase() : undefined;
	if (format && FILE_FORMATS.includes(format)) return format;
	const items = isPlainObject(prop.items) ? (prop.items as JsonSchemaProperty) : undefined;
	const itemFormat = typeof items?.format === 'string' ? items.format.toLowerCase() : undefined;
	if (itemFormat && FILE_FORMATS.includes(itemFormat)) return itemFormat.endsWith('s') ? itemFormat : `${itemFormat}s`;
	return undefined;
}

export const isFileArrayFormat = (format: string | undefined) => !!format && format.endsWith('_uris');

/** The value type a property asks for; `undefined` when the schema does not say (anything goes). */
export function valueTypeOf(prop: JsonSchemaProperty | undefined): SchemaValueType | undefined {
	if (!prop) return undefined;
	for (const name of typeNames(prop)) {
		const mapped = TYPE_ALIASES[name];
		if (mapped) return mapped;
	}
	const format = fileFormatOf(prop);
	if (format) return isFileArrayFormat(format) ? 'array' : 'string';
	if (Array.isArray(prop.enum)) {
		const first = prop.enum.find((v) => v !== null && v !== undefined);
		if (typeof first === 'number') return prop.enum.every((v) => v === null || Number.isInteger(v)) ? 'integer' : 'number';
		if (typeof first === 'boolean') return 'boolean';
		if (typeof first === 'string') return 'string';
	}
	if (isPlainObject(prop.items)) return 'array';
	if (isPlainObject(prop.properties)) return 'object';
	return undefined;
}

/** Null is acceptable when the schema says so (`type: [..., 'null']`, an anyOf null branch, or `default: null`). */
export function acceptsNull(prop: JsonSchemaProperty): boolean {
	return prop.default === null || prop.nullable === true || typeNames(prop).includes('null');
}

/** A LoRA-style object input: `lora`, or any object whose only meaningful key is `path`. */
export function isLoraLike(name: string, prop: JsonSchemaProperty | undefined): boolean {
	if (!prop || valueTypeOf(prop) !== 'object') return false;
	if (/(^|_)loras?$/i.test(name)) return true;
	return isPlainObject(prop.properties) && 'path' in prop.properties;
}

export const numberOrUndefined = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

export interface NumericLimits {
	min?: number;
	max?: number;
	exclusiveMin?: number;
	exclusiveMax?: number;
}

export function numericLimits(prop: JsonSchemaProperty): NumericLimits {
	const limits: NumericLimits = {};
	const minimum = numberOrUndefined(prop.minimum);
	const maximum = numberOrUndefined(prop.maximum);
	// draft 4: exclusiveMinimum is a boolean modifier of minimum; draft 6+: a number of its own
	if (prop.exclusiveMinimum === true && minimum !== undefined) limits.exclusiveMin = minimum;
	else if (minimum !== undefined) limits.min = minimum;
	if (prop.exclusiveMaximum === true && maximum !== undefined) limits.exclusiveMax = maximum;
	else if (maximum !== undefined) limits.max = maximum;
	const exMin = numberOrUndefined(prop.exclusiveMinimum);
	const exMax = numberOrUndefined(prop.exclusiveMaximum);
	if (exMin !== undefined) limits.exclusiveMin = exMin;
	if (exMax !== undefined) limits.exclusiveMax = exMax;
	return limits;
}
