import type { IDataObject } from 'n8n-workflow';

import type { InputSchema, JsonSchemaProperty } from '../../../shared/types';
import type { SchemaProblem, SchemaValueType } from './types';
import { acceptsNull, fileFormatOf, isFileArrayFormat, isPlainObject, numberOrUndefined, numericLimits, valueTypeOf } from './types';
import { fmt, propertiesOf, requiredNames } from './fields';

// ---------------------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------------------

export const describe = (value: unknown): string => {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'an array';
	if (typeof value === 'string') {
		const shown = value.length > 60 ? `${value.slice(0, 57)}...` : value;
		return `the text "${shown}"`;
	}
	if (typeof value === 'object') return 'an object';
	return `${typeof value} ${String(value)}`;
};

export const TYPE_WORDS: Record<SchemaValueType, string> = {
	string: 'text (a string)',
	integer: 'a whole number (integer)',
	number: 'a number',
	boolean: 'true or false (a boolean)',
	array: 'an array (a list, e.g. ["a", "b"])',
	object: 'an object (e.g. {"key": "value"})',
};

export function typeMatches(value: unknown, type: SchemaValueType): boolean {
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

export function typeProblem(value: unknown, type: SchemaValueType): string {
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

export const sameValue = (a: unknown, b: unknown): boolean => {
	if (a === b) return true;
	if (typeof a === 'object' && typeof b === 'object' && a !== null && b !== null) {
		return JSON.stringify(a) === JSON.stringify(b);
	}
	return false;
};

export const MODEL_API_FILE_HELP =
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

export const normaliseKey = (k: string) => k.toLowerCase().replace(/[^a-z0-9]/g, '');

export function checkValidations(input: string, value: unknown, prop: JsonSchemaProperty, problems: SchemaProblem[]): void {
	const list = prop.validations;
	if (!Array.isArray(list)) return;
	for (const entry of list) {
		if (!isPlainObject(entry)) continue;
		const kind = String(entry.type ?? entry.name ?? entry.rule ?? entry.kind ?? '').toLowerCase();
		const limit = [entry.value, entry.max, entry.limit, entry.max_count, entry.max_items, entry.maxItems]
			.map(numberOrUndefined)
			.find((n) => n !== undefined);
		const minLimit = [entry.min, entry.min_count, entry.min_items, entry.minItems].map(numberOrUndefined).find((n) => n !== undefined);
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

export function checkValue(
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
	const allowUnknown = options.allowUnknown ?? (schema?.additionalProperties === true || isPlainObject(schema?.additionalProperties));
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
