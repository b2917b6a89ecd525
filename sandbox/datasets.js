'use strict';
/**
 * Trainer datasets on urls.trainer (/prod/v1/trainers/datasets...) and the signed upload target on the
 * file host (PUT /upload/<datasetId>/<filename>?size=&expires=&signature=).
 *
 * Status is computed lazily: DRAFT (no upload yet) -> UPLOADING (an upload streams, or less than
 * datasetReadyMs since the last one finished) -> READY. A file whose name contains "fail" makes the
 * dataset FAILED (visible datasetReadyMs after that upload), and the file is not listed.
 */
const crypto = require('crypto');
const http = require('http');
const { apiError, validationError, iso, uuid, isPlainObject, contentTypeFor } = require('./util');
const { parseMultipart, boundaryOf } = require('./multipart');
const { readBody, parseJson } = require('./server');

const DIRECT_MAX = 150_000_000;
const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

function datasetNotFound(id) {
	return apiError(404, 40401, `DATASET_NOT_FOUND: dataset '${id}' not found`);
}

function getDataset(sb, id) {
	const d = sb.datasets.get(id);
	if (!d) throw datasetNotFound(id);
	return d;
}

function statusOf(sb, d, now = Date.now()) {
	const readyMs = Math.max(0, sb.config.datasetReadyMs ?? 0);
	if (d.failure && now >= d.failure.at + readyMs) return 'FAILED';
	if (d.inFlight > 0) return 'UPLOADING';
	if (d.lastUploadAt == null) return d.failure ? 'UPLOADING' : 'DRAFT';
	if (now < d.lastUploadAt + readyMs) return 'UPLOADING';
	return d.failure ? 'UPLOADING' : 'READY';
}

function view(sb, d, withFiles, now = Date.now()) {
	const status = statusOf(sb, d, now);
	const out = {
		id: d.id,
		name: d.name,
		status,
		created_at: iso(d.createdAt),
		updated_at: iso(d.updatedAt),
		error: status === 'FAILED' ? d.failure.message : null,
	};
	if (withFiles) out.files = [...d.files.values()].map((f) => ({ filename: f.filename, size_bytes: f.size_bytes }));
	return out;
}

function snapshot(sb, d, now) {
	const v = view(sb, d, true, now);
	return { id: v.id, name: v.name, status: v.status, files: v.files, error: v.error };
}

function checkFilename(name, loc) {
	if (typeof name !== 'string' || !name.trim()) return { loc, msg: 'filename is required', type: 'missing' };
	if (name.length > 255 || /[/\\]/.test(name) || name === '.' || name === '..' || /[\x00-\x1f]/.test(name)) {
		return { loc, msg: 'filename must be a plain file name (no path separators)', type: 'value_error' };
	}
	return null;
}

/** Records a completed upload (or the failure it triggers). */
function recordFile(sb, d, filename, size, contentType) {
	const now = Date.now();
	d.updatedAt = now;
	d.lastUploadAt = now;
	if (/fail/i.test(filename)) {
		if (!d.failure) d.failure = { at: now, message: `Processing of '${filename}' failed: unsupported or corrupt media file.` };
		return;
	}
	d.files.set(filename, { filename, size_bytes: size, content_type: contentType || contentTypeFor(filename), uploaded_at: now });
}

function fileResponse(d, filename, size, contentType) {
	return { id: d.id, dataset_id: d.id, filename, size_bytes: size, content_type: contentType, status: 'UPLOADED' };
}

// ---------- CRUD ----------
function create(sb, rq) {
	const body = rq.body === undefined ? {} : rq.body;
	if (!isPlainObject(body))
		throw validationError([{ loc: ['body'], msg: 'Input should be a valid dictionary', type: 'dict_type' }], undefined, 42201);
	let name = body.name;
	if (name === undefined || name === null || name === '') name = `dataset-${uuid().slice(0, 8)}`;
	if (typeof name !== 'string' || !NAME_RE.test(name)) {
		throw validationError(
			[
				{
					loc: ['body', 'name'],
					msg: 'name must be 1-128 characters: letters, digits, ".", "_" or "-", starting with a letter or digit',
					type: 'value_error',
				},
			],
			undefined,
			42201,
		);
	}
	for (const other of sb.datasets.values()) {
		if (other.name === name) throw apiError(409, 40901, `DATASET_NAME_CONFLICT: a dataset named '${name}' already exists`);
	}
	const now = Date.now();
	const d = { id: uuid(), name, createdAt: now, updatedAt: now, files: new Map(), inFlight: 0, lastUploadAt: null, failure: null };
	sb.datasets.set(d.id, d);
	return { body: view(sb, d, false) };
}

function list(sb) {
	const items = [...sb.datasets.values()].map((d) => view(sb, d, false));
	return { body: sb.config.quirks.wrappedDatasetList === false ? items : { datasets: items } };
}

function remove(sb, rq) {
	const d = getDataset(sb, rq.params.id);
	sb.datasets.delete(d.id);
	return { body: { id: d.id, deleted: true } };
}

// ---------- direct upload (multipart, JSON text, JSON source_url) ----------
async function upload(sb, rq) {
	const { req } = rq;
	const d = sb.datasets.get(rq.params.id);
	if (!d) {
		req.resume();
		throw datasetNotFound(rq.params.id);
	}
	const ctype = String(req.headers['content-type'] || '').toLowerCase();
	if (ctype.startsWith('multipart/form-data')) return uploadMultipart(sb, rq, d);
	const body = parseJson(await readBody(req, DIRECT_MAX + 1_000_000));
	if (body !== undefined) sb.log.setBody(rq.entry, body);
	if (!isPlainObject(body)) {
		throw validationError(
			[
				{
					loc: ['body'],
					msg: 'Send multipart/form-data with one part named "file", or JSON {filename, text} or {source_url, filename?}',
					type: 'value_error',
				},
			],
			undefined,
			42201,
		);
	}
	if (body.source_url !== undefined) return uploadFromUrl(sb, d, body);
	const detail = [];
	const fd = checkFilename(body.filename, ['body', 'filename']);
	if (fd) detail.push(fd);
	if (typeof body.text !== 'string') detail.push({ loc: ['body', 'text'], msg: 'text must be a string', type: 'string_type' });
	if (detail.length) throw validationError(detail, undefined, 42201);
	const size = Buffer.byteLength(body.text, 'utf8');
	if (size > DIRECT_MAX) throw apiError(413, 41301, `File larger than ${DIRECT_MAX} bytes: use get-upload-endpoint`);
	recordFile(sb, d, body.filename, size, 'text/plain');
	return { body: fileResponse(d, body.filename, size, 'text/plain') };
}

async function uploadMultipart(sb, rq, d) {
	const { req } = rq;
	const boundary = boundaryOf(req.headers['content-type']);
	if (!boundary) {
		req.resume();
		throw validationError([{ loc: ['body'], msg: 'multipart/form-data without a boundary', type: 'value_error' }], undefined, 42201);
	}
	const files = [];
	const fields = {};
	d.inFlight++;
	try {
		await parseMultipart(req, boundary, {
			onPart(info) {
				if (info.name === 'file') {
					const f = { filename: info.filename, contentType: info.contentType, size: 0 };
					files.push(f);
					return {
						data(chunk) {
							f.size += chunk.length;
						},
						end() {},
					};
				}
				const chunks = [];
				let size = 0;
				return {
					data(chunk) {
						size += chunk.length;
						if (size <= 4096) chunks.push(chunk);
					},
					end() {
						if (info.name) fields[info.name] = Buffer.concat(chunks).toString('utf8');
					},
				};
			},
		});
	} catch (e) {
		throw validationError([{ loc: ['body'], msg: `Malformed multipart body: ${e.message}`, type: 'value_error' }], undefined, 42201);
	} finally {
		d.inFlight--;
	}
	const summary = files.length ? { file: { filename: files[0].filename, size: files[0].size, contentType: files[0].contentType } } : {};
	for (const [k, v] of Object.entries(fields)) summary[k] = v;
	sb.log.setBody(rq.entry, summary);
	if (files.length !== 1) {
		throw validationError(
			[
				{
					loc: ['body', 'file'],
					msg: files.length ? 'Exactly one part named "file" is allowed' : 'Field required: one part named "file"',
					type: 'missing',
				},
			],
			undefined,
			42201,
		);
	}
	const f = files[0];
	const filename = fields.filename || f.filename;
	const fd = checkFilename(filename, ['body', 'file', 'filename']);
	if (fd) throw validationError([fd], undefined, 42201);
	if (f.size > DIRECT_MAX) {
		throw apiError(
			413,
			41301,
			`File '${filename}' is ${f.size} bytes; direct uploads are limited to ${DIRECT_MAX} bytes. Use get-upload-endpoint for larger files.`,
		);
	}
	const contentType = f.contentType || contentTypeFor(filename);
	recordFile(sb, d, filename, f.size, contentType);
	return { body: fileResponse(d, filename, f.size, contentType) };
}

function fetchSize(url) {
	return new Promise((resolve, reject) => {
		const req = http.get(url, (res) => {
			if (res.statusCode !== 200) {
				res.resume();
				return reject(new Error(`source_url answered HTTP ${res.statusCode}`));
			}
			let size = 0;
			res.on('data', (c) => {
				size += c.length;
				if (size > DIRECT_MAX) {
					res.destroy();
					reject(Object.assign(new Error('too large'), { tooLarge: true }));
				}
			});
			res.on('end', () => resolve({ size, contentType: res.headers['content-type'] }));
			res.on('error', reject);
		});
		req.on('error', reject);
	});
}

async function uploadFromUrl(sb, d, body) {
	const loc = ['body', 'source_url'];
	let url;
	try {
		url = new URL(String(body.source_url));
	} catch {
		url = null;
	}
	if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
		throw validationError(
			[{ loc, msg: 'source_url must be a public http(s) URL; local paths are rejected', type: 'value_error.url' }],
			undefined,
			42201,
		);
	}
	const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
	if (!loopback || url.protocol !== 'http:') {
		throw validationError(
			[{ loc, msg: 'The sandbox only fetches URLs on its own loopback file host', type: 'value_error.url' }],
			undefined,
			42201,
		);
	}
	const filename = body.filename || decodeURIComponent(url.pathname.split('/').pop() || '') || 'upload.bin';
	const fd = checkFilename(filename, ['body', 'filename']);
	if (fd) throw validationError([fd], undefined, 42201);
	let got;
	d.inFlight++;
	try {
		got = await fetchSize(url.toString());
	} catch (e) {
		if (e.tooLarge) throw apiError(413, 41301, `source_url is larger than ${DIRECT_MAX} bytes`);
		throw validationError([{ loc, msg: `Could not fetch source_url: ${e.message}`, type: 'value_error.url' }], undefined, 42201);
	} finally {
		d.inFlight--;
	}
	const ct = got.contentType || contentTypeFor(filename);
	recordFile(sb, d, filename, got.size, ct);
	return { body: fileResponse(d, filename, got.size, ct) };
}

// ---------- signed uploads ----------
function sign(sb, datasetId, filename, size, expires, contentType) {
	return crypto.createHmac('sha256', sb.secret).update(`${datasetId}\n${filename}\n${size}\n${expires}\n${contentType}`).digest('hex');
}

function getUploadEndpoint(sb, rq) {
	const d = getDataset(sb, rq.params.id);
	const body = rq.body;
	const map = isPlainObject(body) ? body.filenameToByteSize : undefined;
	if (!isPlainObject(map) || Object.keys(map).length === 0) {
		throw validationError(
			[
				{
					loc: ['body', 'filenameToByteSize'],
					msg: 'filenameToByteSize must be a non-empty object {filename: byteSize}',
					type: 'value_error',
				},
			],
			undefined,
			42201,
		);
	}
	const detail = [];
	for (const [name, size] of Object.entries(map)) {
		const fd = checkFilename(name, ['body', 'filenameToByteSize', name]);
		if (fd) detail.push(fd);
		if (typeof size !== 'number' || !Number.isSafeInteger(size) || size <= 0) {
			detail.push({ loc: ['body', 'filenameToByteSize', name], msg: 'byte size must be a positive integer', type: 'int_type' });
		}
	}
	if (detail.length) throw validationError(detail, undefined, 42201);
	const expires = Date.now() + Math.max(0, sb.config.signedUrlTtlMs ?? 900000);
	const uploads = {};
	for (const [name, size] of Object.entries(map)) {
		const ct = contentTypeFor(name).replace('; charset=utf-8', '');
		const sig = sign(sb, d.id, name, size, expires, ct);
		uploads[name] = {
			upload_url: `${sb.urls.files}/upload/${d.id}/${encodeURIComponent(name)}?size=${size}&expires=${expires}&signature=${sig}`,
			method: 'PUT',
			headers: { 'Content-Type': ct },
		};
	}
	return { body: { uploads } };
}

function storageError(rq, status, code, message) {
	const { req, res } = rq;
	const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`;
	req.resume();
	res.writeHead(status, { 'Content-Type': 'application/xml', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
	res.end(body);
	return { handled: true, status };
}

function signedPut(sb, rq) {
	const { req, res, query } = rq;
	const datasetId = rq.params.id;
	const filename = rq.params.filename;
	const size = Number(query.size);
	const expires = Number(query.expires);
	const contentType = String(req.headers['content-type'] || '');
	const expected = sign(sb, datasetId, filename, query.size, query.expires, contentType);
	const given = String(query.signature || '');
	if (given.length !== expected.length || !crypto.timingSafeEqual(Buffer.from(given), Buffer.from(expected))) {
		return storageError(
			rq,
			403,
			'SignatureDoesNotMatch',
			'The request signature we calculated does not match the signature you provided (dataset, file name, size, expiry and Content-Type are signed).',
		);
	}
	if (!(Date.now() <= expires)) return storageError(rq, 403, 'AccessDenied', 'Request has expired');
	const lengthHeader = req.headers['content-length'];
	if (lengthHeader === undefined) return storageError(rq, 411, 'MissingContentLength', 'You must provide the Content-Length HTTP header.');
	if (Number(lengthHeader) !== size) {
		return storageError(rq, 403, 'SignatureDoesNotMatch', `Content-Length ${lengthHeader} does not match the signed size ${size}.`);
	}
	const d = sb.datasets.get(datasetId);
	if (!d) return storageError(rq, 404, 'NoSuchUpload', 'The dataset of this upload no longer exists.');
	sb.log.setBody(rq.entry, { file: { filename, size, contentType } });
	d.inFlight++;
	let received = 0;
	let settled = false;
	return new Promise((resolve) => {
		const finish = (ok) => {
			if (settled) return;
			settled = true;
			d.inFlight--;
			if (!ok) {
				resolve({ handled: true, status: 0 });
				return;
			}
			recordFile(sb, d, filename, received, contentType);
			res.writeHead(200, {
				ETag: `"${crypto.createHash('md5').update(`${datasetId}/${filename}/${received}`).digest('hex')}"`,
				'Content-Length': 0,
			});
			res.end();
			resolve({ handled: true, status: 200 });
		};
		req.on('data', (c) => {
			received += c.length;
		});
		req.on('end', () => finish(received === size));
		req.on('aborted', () => finish(false));
		req.on('error', () => finish(false));
	});
}

const routes = [
	{ method: 'POST', path: '/prod/v1/trainers/datasets', api: 'trainer', creates: true, handler: create },
	{ method: 'GET', path: '/prod/v1/trainers/datasets', api: 'trainer', handler: list },
	{
		method: 'GET',
		path: '/prod/v1/trainers/datasets/:id/status',
		api: 'trainer',
		handler: (sb, rq) => ({ body: view(sb, getDataset(sb, rq.params.id), true) }),
	},
	{
		method: 'GET',
		path: '/prod/v1/trainers/datasets/:id',
		api: 'trainer',
		handler: (sb, rq) => ({ body: view(sb, getDataset(sb, rq.params.id), true) }),
	},
	{ method: 'DELETE', path: '/prod/v1/trainers/datasets/:id', api: 'trainer', handler: remove },
	{ method: 'POST', path: '/prod/v1/trainers/datasets/:id/upload', api: 'trainer', raw: true, creates: true, handler: upload },
	{ method: 'POST', path: '/prod/v1/trainers/datasets/:id/get-upload-endpoint', api: 'trainer', handler: getUploadEndpoint },
	{ method: 'PUT', path: '/upload/:id/:filename', api: 'files', raw: true, handler: signedPut },
];

module.exports = { routes, snapshot, statusOf };
