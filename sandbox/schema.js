'use strict';
/**
 * Validates a Model API submit body against a catalog `input_schema` with ajv. The catalog's schema is not
 * strict JSON Schema (`"type": "float"`, `"default": null`, `validations`), so it is converted first:
 * float -> number, a null default makes the property nullable, unknown top-level keys are rejected.
 * File inputs (format *_uri / *_uris) must be public HTTPS URLs (data: URIs and http are refused).
 */
const Ajv = require('ajv');
const { isPlainObject } = require('./util');

const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });
const compiled = new WeakMap();

const FILE_FORMATS = new Set(['image_uri', 'video_uri', 'audio_uri', 'image_uris', 'video_uris', 'audio_uris']);

function convertProperty(prop) {
	if (!isPlainObject(prop)) return prop;
	const out = {};
	for (const [k, v] of Object.entries(prop)) {
		if (k === 'validations' || k === 'default' || k === 'title' || k === 'format') continue;
		out[k] = v;
	}
	const mapType = (t) => (t === 'float' || t === 'double' || t === 'decimal' ? 'number' : t);
	if (Array.isArray(out.type)) out.type = out.type.map(mapType);
	else if (out.type) out.type = mapType(out.type);
	if (isPlainObject(prop.properties)) {
		out.properties = {};
		for (const [k, v] of Object.entries(prop.properties)) out.properties[k] = convertProperty(v);
	}
	if (prop.items) out.items = convertProperty(prop.items);
	if (prop.default === null && out.type) {
		const types = Array.isArray(out.type) ? out.type : [out.type];
		if (!types.includes('null')) out.type = [...types, 'null'];
		if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
	}
	return out;
}

function toAjvSchema(inputSchema) {
	const properties = {};
	for (const [k, v] of Object.entries(inputSchema.properties || {})) properties[k] = convertProperty(v);
	return { type: 'object', properties, required: inputSchema.required || [], additionalProperties: false };
}

function validatorFor(inputSchema) {
	let fn = compiled.get(inputSchema);
	if (!fn) {
		fn = ajv.compile(toAjvSchema(inputSchema));
		compiled.set(inputSchema, fn);
	}
	return fn;
}

function ajvErrorToDetail(err) {
	const path = err.instancePath
		.split('/')
		.slice(1)
		.map((s) => (/^\d+$/.test(s) ? Number(s) : s.replace(/~1/g, '/').replace(/~0/g, '~')));
	switch (err.keyword) {
		case 'required':
			return { loc: ['body', ...path, err.params.missingProperty], msg: 'Field required', type: 'missing' };
		case 'additionalProperties':
			return {
				loc: ['body', ...path, err.params.additionalProperty],
				msg: `Extra inputs are not permitted: '${err.params.additionalProperty}' is not an input of this model`,
				type: 'extra_forbidden',
			};
		case 'type':
			return { loc: ['body', ...path], msg: `Input should be of type ${err.params.type}`, type: 'type_error' };
		case 'enum':
			return {
				loc: ['body', ...path],
				msg: `Input should be one of: ${err.params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`,
				type: 'enum',
			};
		default:
			return { loc: ['body', ...path], msg: `Input ${err.message}`, type: `value_error.${err.keyword}` };
	}
}

function checkFileUrl(value, loc) {
	if (typeof value !== 'string') return null;
	if (/^data:/i.test(value)) {
		return { loc, msg: 'Base64 data URIs are not accepted; pass a publicly accessible HTTPS URL', type: 'value_error.url' };
	}
	let url;
	try {
		url = new URL(value);
	} catch {
		return { loc, msg: 'Input should be a valid URL (a publicly accessible HTTPS URL)', type: 'value_error.url' };
	}
	if (url.protocol !== 'https:') {
		return { loc, msg: `URL scheme '${url.protocol.replace(':', '')}' is not accepted; use a public HTTPS URL`, type: 'value_error.url' };
	}
	return null;
}

/**
 * @returns {Array<{loc: Array<string|number>, msg: string, type: string}>} empty when valid
 */
function validateInputs(inputSchema, body) {
	if (!isPlainObject(body)) {
		return [{ loc: ['body'], msg: 'Input should be a valid dictionary (a flat JSON object of the model inputs)', type: 'dict_type' }];
	}
	const detail = [];
	const fn = validatorFor(inputSchema);
	if (!fn(body)) {
		const seen = new Set();
		for (const err of fn.errors || []) {
			const d = ajvErrorToDetail(err);
			const key = `${d.loc.join('.')}|${d.type}`;
			if (!seen.has(key)) {
				seen.add(key);
				detail.push(d);
			}
		}
	}
	for (const [name, prop] of Object.entries(inputSchema.properties || {})) {
		if (!FILE_FORMATS.has(prop.format) || body[name] == null) continue;
		if (Array.isArray(body[name])) {
			body[name].forEach((v, i) => {
				const d = checkFileUrl(v, ['body', name, i]);
				if (d) detail.push(d);
			});
		} else {
			const d = checkFileUrl(body[name], ['body', name]);
			if (d) detail.push(d);
		}
	}
	return detail;
}

module.exports = { validateInputs };
