import type { INodePropertyOptions, ResourceMapperField } from 'n8n-workflow';

import type { InputSchema, JsonSchemaProperty, JsonValue } from '../../../shared/types';
import { fileFormatOf, isFileArrayFormat, isLoraLike, isPlainObject, numberOrUndefined, numericLimits, valueTypeOf } from './types';

// ---------------------------------------------------------------------------------------------------------
// Fields for the resource mapper
// ---------------------------------------------------------------------------------------------------------

export const ACRONYMS: Record<string, string> = {
	url: 'URL',
	uri: 'URI',
	urls: 'URLs',
	uris: 'URIs',
	id: 'ID',
	fps: 'FPS',
	cfg: 'CFG',
	lora: 'LoRA',
	loras: 'LoRAs',
	api: 'API',
	json: 'JSON',
	hd: 'HD',
};

/** `guidance_scale` → `Guidance Scale`, `imageUrl` → `Image URL`. */
export function humanise(name: string): string {
	const words = name
		.replace(/([a-z0-9])([A-Z])/g, '$1 $2')
		.split(/[\s_\-.]+/)
		.filter(Boolean);
	if (words.length === 0) return name;
	return words.map((w) => ACRONYMS[w.toLowerCase()] ?? w.charAt(0).toUpperCase() + w.slice(1)).join(' ');
}

export const fmt = (n: number) => String(n);

export function rangeText(min?: number, max?: number, unit = ''): string | undefined {
	if (min !== undefined && max !== undefined) return min === max ? `${fmt(min)}${unit}` : `${fmt(min)}–${fmt(max)}${unit}`;
	if (min !== undefined) return `≥ ${fmt(min)}${unit}`;
	if (max !== undefined) return `≤ ${fmt(max)}${unit}`;
	return undefined;
}

export const FILE_KIND: Record<string, string> = { image: 'image', video: 'video', audio: 'audio' };

/**
 * The short hint appended to a field's label. n8n 2.41's `ResourceMapperField` has no description, so the
 * range, step, length and file format are stated in the label, e.g. `Guidance Scale (0–20)`,
 * `Image (public HTTPS URL)`, `Images (array of public HTTPS URLs, 1–4)`, `LoRA (file name or URL)`.
 */
export function fieldHint(name: string, prop: JsonSchemaProperty): string | undefined {
	const parts: string[] = [];
	const type = valueTypeOf(prop);
	const format = fileFormatOf(prop);
	if (format) {
		const kind = FILE_KIND[format.split('_')[0]] ?? 'file';
		if (isFileArrayFormat(format)) {
			parts.push(`${kind} URLs: JSON array of public HTTPS URLs`);
			const r = rangeText(numberOrUndefined(prop.minItems), numberOrUndefined(prop.maxItems));
			if (r) parts.push(`${r} items`);
		} else {
			parts.push(`public HTTPS ${kind} URL`);
		}
		return parts.join(', ');
	}
	if (isLoraLike(name, prop)) return 'LoRA file name or public URL';
	if (type === 'number' || type === 'integer') {
		const l = numericLimits(prop);
		const low = l.min ?? l.exclusiveMin;
		const high = l.max ?? l.exclusiveMax;
		let r = rangeText(low, high);
		if (r && (l.exclusiveMin !== undefined || l.exclusiveMax !== undefined)) {
			if (low !== undefined && high !== undefined) {
				r = `${l.exclusiveMin !== undefined ? '>' : ''}${fmt(low)}–${l.exclusiveMax !== undefined ? '<' : ''}${fmt(high)}`;
			} else if (l.exclusiveMin !== undefined) r = `> ${fmt(l.exclusiveMin)}`;
			else if (l.exclusiveMax !== undefined) r = `< ${fmt(l.exclusiveMax)}`;
		}
		if (r) parts.push(r);
		const step = numberOrUndefined(prop.multipleOf);
		if (step !== undefined) parts.push(`step ${fmt(step)}`);
		if (type === 'integer' && parts.length === 0) parts.push('whole number');
	} else if (type === 'string') {
		const r = rangeText(numberOrUndefined(prop.minLength), numberOrUndefined(prop.maxLength), ' chars');
		if (r && !Array.isArray(prop.enum)) parts.push(r);
	} else if (type === 'array') {
		parts.push('JSON array');
		const r = rangeText(numberOrUndefined(prop.minItems), numberOrUndefined(prop.maxItems));
		if (r) parts.push(`${r} items`);
	} else if (type === 'object') {
		parts.push('JSON object');
	}
	return parts.length ? parts.join(', ') : undefined;
}

export function toDefaultValue(value: JsonValue | undefined): string | number | boolean | undefined {
	if (value === null || value === undefined) return undefined;
	if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
	try {
		return JSON.stringify(value);
	} catch {
		return undefined;
	}
}

/** The required input names: `schema.required`, else the model entry's `required_inputs`. */
export function requiredNames(schema: InputSchema | undefined, requiredInputs?: string[]): string[] {
	if (schema && Array.isArray(schema.required)) return schema.required.filter((n) => typeof n === 'string');
	return Array.isArray(requiredInputs) ? requiredInputs.filter((n) => typeof n === 'string') : [];
}

export function propertiesOf(schema: InputSchema | undefined): Record<string, JsonSchemaProperty> {
	return schema && isPlainObject(schema.properties) ? (schema.properties as Record<string, JsonSchemaProperty>) : {};
}

/**
 * Fields for the resourceMapper. Type mapping: string → `string` (enum → `options`), integer/number/float →
 * `number`, boolean → `boolean`, array → `array` (file arrays too), object → `object`; file inputs
 * (`*_uri`) and LoRA-style objects → `string` (so the node's own validation can explain a data URI or a
 * local path, and a plain LoRA path can be typed). Required fields first, then `x-order`, then schema order.
 */
export function schemaToFields(schema: InputSchema, requiredInputs?: string[]): ResourceMapperField[] {
	const properties = propertiesOf(schema);
	const required = new Set(requiredNames(schema, requiredInputs));
	const entries = Object.entries(properties).filter(([, p]) => isPlainObject(p));
	const order = entries.map(([name, prop], index) => {
		const xOrder = numberOrUndefined(prop['x-order']);
		return { name, prop, index, xOrder, required: required.has(name) };
	});
	order.sort((a, b) => {
		if (a.required !== b.required) return a.required ? -1 : 1;
		const ax = a.xOrder ?? Number.POSITIVE_INFINITY;
		const bx = b.xOrder ?? Number.POSITIVE_INFINITY;
		if (ax !== bx) return ax < bx ? -1 : 1;
		return a.index - b.index;
	});

	return order.map(({ name, prop }) => {
		const type = valueTypeOf(prop);
		const title = typeof prop.title === 'string' && prop.title.trim() ? prop.title.trim() : humanise(name);
		const hint = fieldHint(name, prop);
		const field: ResourceMapperField = {
			id: name,
			displayName: hint ? `${title} (${hint})` : title,
			required: required.has(name),
			defaultMatch: false,
			canBeUsedToMatch: false,
			display: true,
			type: 'string',
		};
		const enumValues = Array.isArray(prop.enum)
			? prop.enum.filter((v): v is string | number | boolean => ['string', 'number', 'boolean'].includes(typeof v))
			: [];
		if (enumValues.length > 0) {
			field.type = 'options';
			field.options = enumValues.map((v): INodePropertyOptions => ({ name: String(v), value: v }));
		} else if (fileFormatOf(prop) && !isFileArrayFormat(fileFormatOf(prop))) {
			field.type = 'string';
		} else if (isLoraLike(name, prop)) {
			field.type = 'string';
		} else if (type === 'integer' || type === 'number') {
			field.type = 'number';
		} else if (type === 'boolean' || type === 'array' || type === 'object' || type === 'string') {
			field.type = type;
		}
		const def = toDefaultValue(prop.default);
		if (def !== undefined) field.defaultValue = def;
		return field;
	});
}
