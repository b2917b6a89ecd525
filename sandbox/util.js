'use strict';
/** Small shared helpers: ids, timestamps, API errors, JSON responses. */
const crypto = require('crypto');

const uuid = () => crypto.randomUUID();

/** Timestamp in the live form `2025-07-01T12:34:56.123000+00:00`. */
const iso = (ms) => (ms == null ? null : new Date(ms).toISOString().replace('Z', '000+00:00'));

/** An error answered as JSON: `{ error_code, error_message, detail? , ...extra }`. */
class ApiError extends Error {
	constructor(status, code, message, extra) {
		super(message);
		this.status = status;
		this.body = { error_code: code, error_message: message, ...(extra || {}) };
		this.headers = {};
	}
}

const apiError = (status, code, message, extra) => new ApiError(status, code, message, extra);

/** 422 with a FastAPI-like `detail` array. `detail` items: `{ loc, msg, type }`. */
const validationError = (detail, message, code = 422001) =>
	new ApiError(422, code, message || detail.map((d) => `${d.loc.join('.')}: ${d.msg}`).join('; '), { detail });

const notFound = (what, code = 404001, extra) => new ApiError(404, code, `${what} not found`, extra);

function sendJson(res, status, body, headers) {
	const text = body === undefined ? '' : JSON.stringify(body);
	res.writeHead(status, {
		'Content-Type': 'application/json',
		'Content-Length': Buffer.byteLength(text),
		...(headers || {}),
	});
	res.end(text);
}

const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Deep-ish copy for logging: long strings (data URIs) are shortened so the log stays small. */
function summarizeForLog(value, depth = 0) {
	if (typeof value === 'string') {
		return value.length > 512 ? `${value.slice(0, 64)}...(${value.length} chars)` : value;
	}
	if (value === null || typeof value !== 'object' || depth > 12) return value;
	if (Array.isArray(value)) return value.map((v) => summarizeForLog(v, depth + 1));
	const out = {};
	for (const [k, v] of Object.entries(value)) out[k] = summarizeForLog(v, depth + 1);
	return out;
}

const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Content type from a file name's extension. */
function contentTypeFor(name) {
	const ext = String(name).toLowerCase().split('.').pop();
	return (
		{
			png: 'image/png',
			jpg: 'image/jpeg',
			jpeg: 'image/jpeg',
			webp: 'image/webp',
			gif: 'image/gif',
			bmp: 'image/bmp',
			tif: 'image/tiff',
			tiff: 'image/tiff',
			mp4: 'video/mp4',
			mov: 'video/quicktime',
			webm: 'video/webm',
			mkv: 'video/x-matroska',
			avi: 'video/x-msvideo',
			wav: 'audio/wav',
			mp3: 'audio/mpeg',
			txt: 'text/plain; charset=utf-8',
			json: 'application/json',
			yaml: 'application/x-yaml',
			yml: 'application/x-yaml',
			safetensors: 'application/octet-stream',
		}[ext] || 'application/octet-stream'
	);
}

module.exports = {
	uuid,
	iso,
	ApiError,
	apiError,
	validationError,
	notFound,
	sendJson,
	isPlainObject,
	summarizeForLog,
	delay,
	contentTypeFor,
};
