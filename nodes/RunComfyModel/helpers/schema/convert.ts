import type { IDataObject } from 'n8n-workflow';

import type { InputSchema, JsonSchemaProperty, JsonValue } from '../../../shared/types';
import type { SchemaValueType } from './types';
import { fileFormatOf, isFileArrayFormat, isLoraLike, isPlainObject, valueTypeOf } from './types';
import { propertiesOf } from './fields';

// ---------------------------------------------------------------------------------------------------------
// Resource mapper values → request body
// ---------------------------------------------------------------------------------------------------------

export function parseJson(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return undefined;
	}
}

export function toNumber(value: unknown): unknown {
	if (typeof value === 'string') {
		const t = value.trim();
		if (t !== '' && !Number.isNaN(Number(t))) return Number(t);
	}
	return value;
}

export function toBoolean(value: unknown): unknown {
	if (typeof value === 'string') {
		const t = value.trim().toLowerCase();
		if (t === 'true') return true;
		if (t === 'false') return false;
	}
	return value;
}

export function convertScalar(value: unknown, type: SchemaValueType | undefined, prop: JsonSchemaProperty | undefined): unknown {
	const enumValues = prop && Array.isArray(prop.enum) ? prop.enum : [];
	if (type === 'integer' || type === 'number') return toNumber(value);
	if (type === 'boolean') return toBoolean(value);
	if (type === 'string') {
		if (typeof value === 'number' || typeof value === 'boolean') return String(value);
		return fileFormatOf(prop) && typeof value === 'string' ? value.trim() : value;
	}
	if (!type && typeof value === 'string' && enumValues.some((v) => typeof v === 'number')) {
		const n = toNumber(value);
		if (enumValues.includes(n as JsonValue)) return n;
	}
	return value;
}

/** URLs separated by whitespace/new lines, or by commas that precede another URL. */
export const splitUrlList = (text: string): string[] =>
	text
		.split(/\s+|,(?=\s*https?:)/i)
		.map((s) => s.trim())
		.filter(Boolean);

export function convertValue(name: string, value: unknown, prop: JsonSchemaProperty | undefined): unknown {
	const type = valueTypeOf(prop);
	if (type === 'array') {
		let list: unknown = value;
		if (typeof value === 'string') {
			const t = value.trim();
			const parsed = t.startsWith('[') ? parseJson(t) : undefined;
			if (Array.isArray(parsed)) list = parsed;
			else if (t.startsWith('['))
				return value; // broken JSON: leave for validation to report
			else if (isFileArrayFormat(fileFormatOf(prop))) list = splitUrlList(t);
			else list = [t];
		} else if (!Array.isArray(value) && value !== null && typeof value !== 'object') {
			list = [value];
		}
		if (!Array.isArray(list)) return list;
		const items = prop && isPlainObject(prop.items) ? (prop.items as JsonSchemaProperty) : undefined;
		const itemType = valueTypeOf(items);
		const fileItems = isFileArrayFormat(fileFormatOf(prop));
		return list.map((v) => {
			if (fileItems && typeof v === 'string') return v.trim();
			return itemType ? convertScalar(v, itemType, items) : v;
		});
	}
	if (type === 'object') {
		if (typeof value === 'string') {
			const t = value.trim();
			const parsed = t.startsWith('{') ? parseJson(t) : undefined;
			if (isPlainObject(parsed)) return parsed;
			if (!t.startsWith('{') && isLoraLike(name, prop)) return { path: t };
		}
		return value;
	}
	return convertScalar(value, type, prop);
}

/**
 * Converts resourceMapper values into the types the schema asks for: numbers from strings (`float` is a
 * number), booleans from `'true'`/`'false'`, arrays and objects from JSON text, a file array from one URL
 * or URLs separated by new lines, a LoRA object from a plain path (`{path}`). Drops `undefined`, `null` and
 * `''` so the service applies its defaults. Values it cannot convert are left as they are, for
 * `validateBody` to report. Keys not in the schema are passed through (and reported by `validateBody`).
 */
export function mapperValueToBody(value: IDataObject, schema: InputSchema): IDataObject {
	const properties = propertiesOf(schema);
	const body: IDataObject = {};
	if (!isPlainObject(value)) return body;
	for (const [name, raw] of Object.entries(value)) {
		if (raw === undefined || raw === null || raw === '') continue;
		const prop = Object.prototype.hasOwnProperty.call(properties, name) ? properties[name] : undefined;
		body[name] = convertValue(name, raw, prop) as IDataObject[string];
	}
	return body;
}
