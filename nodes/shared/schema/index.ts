/**
 * The one module that turns a model's `input_schema` into n8n resourceMapper fields, converts the values the
 * resource mapper hands back into the types the schema asks for, and checks a request body against the schema
 * before any paid call.
 *
 * Catalog schemas are "JSON-Schema-like", not strict JSON Schema: `"type": "float"`, `"default": null` on
 * integers, `required` sometimes absent (then the model entry's `required_inputs` applies, as Zapier does).
 * Everything here is lenient about shapes it does not know and never throws on a strange schema.
 */
import type { IDataObject, INodePropertyOptions, ResourceMapperField } from 'n8n-workflow';

import type { InputSchema, JsonSchemaProperty, JsonValue } from '../types';

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

const TYPE_ALIASES: Record<string, SchemaValueType> = {
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

const isPlainObject = (value: unknown): value is IDataObject =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

function typeNames(prop: JsonSchemaProperty): string[] {
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

const isFileArrayFormat = (format: string | undefined) => !!format && format.endsWith('_uris');

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
function acceptsNull(prop: JsonSchemaProperty): boolean {
	return prop.default === null || prop.nullable === true || typeNames(prop).includes('null');
}

/** A LoRA-style object input: `lora`, or any object whose only meaningful key is `path`. */
export function isLoraLike(name: string, prop: JsonSchemaProperty | undefined): boolean {
	if (!prop || valueTypeOf(prop) !== 'object') return false;
	if (/(^|_)loras?$/i.test(name)) return true;
	return isPlainObject(prop.properties) && 'path' in prop.properties;
}

const numberOrUndefined = (v: unknown): number | undefined =>
	typeof v === 'number' && Number.isFinite(v) ? v : undefined;

interface NumericLimits {
	min?: number;
	max?: number;
	exclusiveMin?: number;
	exclusiveMax?: number;
}

function numericLimits(prop: JsonSchemaProperty): NumericLimits {
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

// ---------------------------------------------------------------------------------------------------------
// Fields for the resource mapper
// ---------------------------------------------------------------------------------------------------------

const ACRONYMS: Record<string, string> = {
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
	return words
		.map((w) => ACRONYMS[w.toLowerCase()] ?? w.charAt(0).toUpperCase() + w.slice(1))
		.join(' ');
}

const fmt = (n: number) => String(n);

function rangeText(min?: number, max?: number, unit = ''): string | undefined {
	if (min !== undefined && max !== undefined) return min === max ? `${fmt(min)}${unit}` : `${fmt(min)}–${fmt(max)}${unit}`;
	if (min !== undefined) return `≥ ${fmt(min)}${unit}`;
	if (max !== undefined) return `≤ ${fmt(max)}${unit}`;
	return undefined;
}

const FILE_KIND: Record<string, string> = { image: 'image', video: 'video', audio: 'audio' };

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

function toDefaultValue(value: JsonValue | undefined): string | number | boolean | undefined {
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

function propertiesOf(schema: InputSchema | undefined): Record<string, JsonSchemaProperty> {
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

// ---------------------------------------------------------------------------------------------------------
// Resource mapper values → request body
// ---------------------------------------------------------------------------------------------------------

function parseJson(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return undefined;
	}
}

function toNumber(value: unknown): unknown {
	if (typeof value === 'string') {
		const t = value.trim();
		if (t !== '' && !Number.isNaN(Number(t))) return Number(t);
	}
	return value;
}

function toBoolean(value: unknown): unknown {
	if (typeof value === 'string') {
		const t = value.trim().toLowerCase();
		if (t === 'true') return true;
		if (t === 'false') return false;
	}
	return value;
}

function convertScalar(value: unknown, type: SchemaValueType | undefined, prop: JsonSchemaProperty | undefined): unknown {
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
const splitUrlList = (text: string): string[] =>
	text
		.split(/\s+|,(?=\s*https?:)/i)
		.map((s) => s.trim())
		.filter(Boolean);

function convertValue(name: string, value: unknown, prop: JsonSchemaProperty | undefined): unknown {
	const type = valueTypeOf(prop);
	if (type === 'array') {
		let list: unknown = value;
		if (typeof value === 'string') {
			const t = value.trim();
			const parsed = t.startsWith('[') ? parseJson(t) : undefined;
			if (Array.isArray(parsed)) list = parsed;
			else if (t.startsWith('[')) return value; // broken JSON: leave for validation to report
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

// ---------------------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------------------

const describe = (value: unknown): string => {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'an array';
	if (typeof value === 'string') {
		const shown = value.length > 60 ? `${value.slice(0, 57)}...` : value;
		return `the text "${shown}"`;
	}
	if (typeof value === 'object') return 'an object';
	return `${typeof value} ${String(value)}`;
};

const TYPE_WORDS: Record<SchemaValueType, string> = {
	string: 'text (a string)',
	integer: 'a whole number (integer)',
	number: 'a number',
	boolean: 'true or false (a boolean)',
	array: 'an array (a list, e.g. ["a", "b"])',
	object: 'an object (e.g. {"key": "value"})',
};

function typeMatches(value: unknown, type: SchemaValueType): boolean {
	switch (type) {
		case 'string':
			return typeof value === 'string';
		case 'integer':
			return typeof value === 'number' && Number.isInteger(value);
		case 'number':
			return typeof value === 'number' && Number.isFinite(value);
		case 'boolean':
			return typeof value === 'boolean';
		case 'array':
			return Array.isArray(value);
		case 'object':
			return isPlainObject(value);
	}
}

function typeProblem(value: unknown, type: SchemaValueType): string {
	if (type === 'integer' && typeof value === 'number' && Number.isFinite(value)) {
		return `must be a whole number (integer); ${fmt(value)} has a fractional part.`;
	}
	return `must be ${TYPE_WORDS[type]}, but got ${describe(value)}.`;
}

/** Float-safe multipleOf: 0.3 is a multiple of 0.1. */
export function isMultipleOf(value: number, step: number): boolean {
	if (!(step > 0)) return true;
	const q = value / step;
	return Math.abs(q - Math.round(q)) <= 1e-9 * Math.max(1, Math.abs(q));
}

const sameValue = (a: unknown, b: unknown): boolean => {
	if (a === b) return true;
	if (typeof a === 'object' && typeof b === 'object' && a !== null && b !== null) {
		return JSON.stringify(a) === JSON.stringify(b);
	}
	return false;
};

const MODEL_API_FILE_HELP =
	'upload the file somewhere public (for example a storage bucket or file host that gives a public HTTPS link) and pass that URL';

/** Why a file input value is not a public HTTPS URL, or undefined when it is one. */
export function fileUrlProblem(value: unknown, kind = 'file'): string | undefined {
	if (typeof value !== 'string') return `must be a public HTTPS URL of the ${kind}, but got ${describe(value)}.`;
	const v = value.trim();
	if (/^data:/i.test(v)) {
		return (
			`is a Base64 data URI. The Model API does not accept Base64 data for file inputs; ${MODEL_API_FILE_HELP}. ` +
			'(The RunComfy Deployment node accepts data URIs in its overrides.)'
		);
	}
	if (/^file:/i.test(v) || /^[a-z]:[\\/]/i.test(v) || v.startsWith('\\\\') || /^(\/|\.\.?[\\/]|~[\\/])/.test(v)) {
		return (
			`looks like a local file path ("${v.length > 60 ? `${v.slice(0, 57)}...` : v}"). The service downloads file inputs ` +
			`itself over the internet, so it cannot read files on this machine; ${MODEL_API_FILE_HELP}.`
		);
	}
	let url: URL;
	try {
		url = new URL(v);
	} catch {
		return `must be a public HTTPS URL of the ${kind} (starting with https://), but got ${describe(value)}.`;
	}
	if (url.protocol === 'http:') {
		return `must use https:// (the service only fetches file inputs over HTTPS); got an http:// URL. Use the HTTPS address of the ${kind}.`;
	}
	if (url.protocol !== 'https:') {
		return `must be a public HTTPS URL of the ${kind}, but got a ${url.protocol.replace(':', '')}: URL.`;
	}
	if (url.username || url.password) {
		return 'must be a public HTTPS URL without a user name or password in it (the service fetches it without credentials).';
	}
	return undefined;
}

const normaliseKey = (k: string) => k.toLowerCase().replace(/[^a-z0-9]/g, '');

function checkValidations(input: string, value: unknown, prop: JsonSchemaProperty, problems: SchemaProblem[]): void {
	const list = prop.validations;
	if (!Array.isArray(list)) return;
	for (const entry of list) {
		if (!isPlainObject(entry)) continue;
		const kind = String(entry.type ?? entry.name ?? entry.rule ?? entry.kind ?? '').toLowerCase();
		const limit = [entry.value, entry.max, entry.limit, entry.max_count, entry.max_items, entry.maxItems]
			.map(numberOrUndefined)
			.find((n) => n !== undefined);
		const minLimit = [entry.min, entry.min_count, entry.min_items, entry.minItems]
			.map(numberOrUndefined)
			.find((n) => n !== undefined);
		const message = typeof entry.message === 'string' ? ` ${entry.message}` : '';
		if (Array.isArray(value)) {
			const countRule = /count|items|images|files|num/.test(kind) || entry.max_count !== undefined || entry.max_items !== undefined;
			if (!countRule) continue;
			if (/min/.test(kind) && limit !== undefined && value.length < limit) {
				problems.push({ input, message: `needs at least ${fmt(limit)} item(s), but has ${value.length}.${message}` });
			} else if (!/min/.test(kind) && limit !== undefined && value.length > limit) {
				problems.push({ input, message: `accepts at most ${fmt(limit)} item(s), but has ${value.length}.${message}` });
			}
			if (minLimit !== undefined && value.length < minLimit) {
				problems.push({ input, message: `needs at least ${fmt(minLimit)} item(s), but has ${value.length}.${message}` });
			}
		} else if (typeof value === 'string' && /length|chars|characters/.test(kind) && limit !== undefined) {
			const len = [...value].length;
			if (/min/.test(kind) ? len < limit : len > limit) {
				problems.push({
					input,
					message: `${/min/.test(kind) ? 'needs at least' : 'accepts at most'} ${fmt(limit)} characters, but has ${len}.${message}`,
				});
			}
		}
		// size / duration / resolution limits apply to the fetched file; the service checks those.
	}
}

function checkValue(
	input: string,
	value: unknown,
	prop: JsonSchemaProperty,
	problems: SchemaProblem[],
	fileFormat: string | undefined,
): void {
	const type = valueTypeOf(prop);
	if (value === null) {
		if (!acceptsNull(prop)) {
			problems.push({ input, message: 'is null; leave it out to use the model default, or give a value.' });
		}
		return;
	}
	if (type && !typeMatches(value, type)) {
		problems.push({ input, message: typeProblem(value, type) });
		return;
	}
	if (Array.isArray(prop.enum) && prop.enum.length > 0 && !prop.enum.some((e) => sameValue(e, value))) {
		const allowed = prop.enum.map((e) => (typeof e === 'string' ? `"${e}"` : JSON.stringify(e))).join(', ');
		problems.push({ input, message: `must be one of ${allowed}, but got ${describe(value)}.` });
		return;
	}
	if (typeof value === 'number') {
		const l = numericLimits(prop);
		if (l.min !== undefined && value < l.min) problems.push({ input, message: `must be at least ${fmt(l.min)}, but got ${fmt(value)}.` });
		if (l.max !== undefined && value > l.max) problems.push({ input, message: `must be at most ${fmt(l.max)}, but got ${fmt(value)}.` });
		if (l.exclusiveMin !== undefined && value <= l.exclusiveMin) {
			problems.push({ input, message: `must be greater than ${fmt(l.exclusiveMin)}, but got ${fmt(value)}.` });
		}
		if (l.exclusiveMax !== undefined && value >= l.exclusiveMax) {
			problems.push({ input, message: `must be less than ${fmt(l.exclusiveMax)}, but got ${fmt(value)}.` });
		}
		const step = numberOrUndefined(prop.multipleOf);
		if (step !== undefined && !isMultipleOf(value, step)) {
			problems.push({ input, message: `must be a multiple of ${fmt(step)}, but got ${fmt(value)}.` });
		}
	}
	if (typeof value === 'string') {
		const len = [...value].length;
		const maxLength = numberOrUndefined(prop.maxLength);
		const minLength = numberOrUndefined(prop.minLength);
		if (maxLength !== undefined && len > maxLength) {
			problems.push({ input, message: `is too long: at most ${fmt(maxLength)} characters, but has ${len}.` });
		}
		if (minLength !== undefined && len < minLength) {
			problems.push({ input, message: `is too short: at least ${fmt(minLength)} characters, but has ${len}.` });
		}
		if (fileFormat && !isFileArrayFormat(fileFormat)) {
			const p = fileUrlProblem(value, fileFormat.split('_')[0]);
			if (p) problems.push({ input, message: p });
		}
	}
	if (Array.isArray(value)) {
		const minItems = numberOrUndefined(prop.minItems);
		const maxItems = numberOrUndefined(prop.maxItems);
		if (minItems !== undefined && value.length < minItems) {
			problems.push({ input, message: `needs at least ${fmt(minItems)} item(s), but has ${value.length}.` });
		}
		if (maxItems !== undefined && value.length > maxItems) {
			problems.push({ input, message: `accepts at most ${fmt(maxItems)} item(s), but has ${value.length}.` });
		}
		const items = isPlainObject(prop.items) ? (prop.items as JsonSchemaProperty) : undefined;
		const itemFileFormat = isFileArrayFormat(fileFormat) ? fileFormat!.replace(/s$/, '') : fileFormatOf(items);
		value.forEach((element, i) => {
			const at = `${input}[${i}]`;
			if (itemFileFormat) {
				const p = fileUrlProblem(element, itemFileFormat.split('_')[0]);
				if (p) problems.push({ input: at, message: p });
				return;
			}
			if (items) checkValue(at, element, items, problems, undefined);
		});
	}
	if (isPlainObject(value) && isPlainObject(prop.properties)) {
		const nested = prop as InputSchema;
		for (const p of validateBody(value, nested, undefined, { allowUnknown: prop.additionalProperties !== false })) {
			problems.push({ input: `${input}.${p.input}`, message: p.message });
		}
	}
	checkValidations(input, value, prop, problems);
}

export interface ValidateOptions {
	/** Accept keys the schema does not list (default: only when the schema says `additionalProperties: true`). */
	allowUnknown?: boolean;
}

/**
 * Every problem at once: body not an object, missing required inputs, wrong types (integer vs number vs
 * float, string, boolean, array, object), enum, minimum/maximum (and exclusive forms), minLength/maxLength,
 * minItems/maxItems, multipleOf (float-safe), file inputs that are not public HTTPS URLs (data URIs and local
 * paths explained), unknown keys (the service rejects them), and recognisable `validations` entries.
 */
export function validateBody(
	body: IDataObject,
	schema: InputSchema,
	requiredInputs?: string[],
	options: ValidateOptions = {},
): SchemaProblem[] {
	if (!isPlainObject(body)) {
		return [
			{
				input: 'inputs',
				message: `must be a JSON object like {"prompt": "..."}, but got ${describe(body)}.`,
			},
		];
	}
	const problems: SchemaProblem[] = [];
	const properties = propertiesOf(schema);
	const known = Object.keys(properties);
	const required = requiredNames(schema, requiredInputs);
	for (const name of required) {
		const v = body[name];
		if (v === undefined || v === null || v === '') {
			problems.push({ input: name, message: 'is required but has no value.' });
		}
	}
	const allowUnknown =
		options.allowUnknown ?? (schema?.additionalProperties === true || isPlainObject(schema?.additionalProperties));
	for (const [name, value] of Object.entries(body)) {
		const prop = Object.prototype.hasOwnProperty.call(properties, name) ? properties[name] : undefined;
		if (!prop || !isPlainObject(prop)) {
			if (allowUnknown || known.length === 0) continue;
			const close = known.find((k) => normaliseKey(k) === normaliseKey(name));
			problems.push({
				input: name,
				message:
					`is not an input of this model, and the service rejects unknown inputs.` +
					(close ? ` Did you mean "${close}"?` : ` Known inputs: ${known.join(', ')}.`),
			});
			continue;
		}
		if (value === undefined) continue;
		if ((value === null || value === '') && required.includes(name)) continue; // already reported as missing
		checkValue(name, value, prop, problems, fileFormatOf(prop));
	}
	return problems;
}

/** One line per problem, for an error description: `guidance_scale: must be at most 20, but got 25.` */
export function formatProblems(problems: SchemaProblem[]): string {
	return problems.map((p) => `${p.input}: ${p.message}`).join('\n');
}
