'use strict';
/**
 * HTTP plumbing: one server per API family (model, serverless, trainer, files), route matching (model ids
 * keep their slashes), bearer auth, fault injection, the request log, JSON bodies and the control API
 * (/__sandbox/*, on every port, no auth, not logged).
 */
const http = require('http');
const { ApiError, apiError, sendJson, delay, isPlainObject } = require('./util');

const JSON_LIMIT = 64 * 1024 * 1024;

/** Compiles '/v1/models/*id' or '/v1/requests/:id/status' into a matcher over decoded segments. */
function compile(pattern) {
	const parts = pattern.split('/').slice(1);
	return (segs) => {
		const params = {};
		for (let i = 0; i < parts.length; i++) {
			const p = parts[i];
			if (p.startsWith('*')) {
				if (segs.length <= i) return null;
				const rest = segs.slice(i);
				if (rest.some((s) => s === '')) return null;
				params[p.slice(1)] = rest.join('/');
				return params;
			}
			if (i >= segs.length) return null;
			if (p.startsWith(':')) {
				if (!segs[i]) return null;
				params[p.slice(1)] = segs[i];
			} else if (p !== segs[i]) return null;
		}
		return segs.length === parts.length ? params : null;
	};
}

function parseQuery(searchParams) {
	const q = {};
	for (const [k, v] of searchParams) {
		if (k in q) q[k] = Array.isArray(q[k]) ? [...q[k], v] : [q[k], v];
		else q[k] = v;
	}
	return q;
}

function readBody(req, limit = JSON_LIMIT) {
	return new Promise((resolve, reject) => {
		const chunks = [];
		let size = 0;
		let tooLarge = false;
		req.on('data', (c) => {
			size += c.length;
			if (size > limit) tooLarge = true;
			else chunks.push(c);
		});
		req.on('end', () => {
			if (tooLarge) reject(apiError(413, 413001, `Request body larger than ${limit} bytes`));
			else resolve(Buffer.concat(chunks));
		});
		req.on('error', reject);
	});
}

function parseJson(buf) {
	const text = buf.toString('utf8');
	if (!text.trim()) return undefined;
	try {
		return JSON.parse(text);
	} catch (e) {
		throw apiError(422, 422001, 'Request body is not valid JSON', {
			detail: [{ loc: ['body'], msg: `JSON decode error: ${e.message}`, type: 'json_invalid' }],
		});
	}
}

function segmentsOf(pathname) {
	const raw = pathname.split('/').slice(1);
	if (raw.length > 1 && raw[raw.length - 1] === '') raw.pop();
	return raw.map((s) => decodeURIComponent(s));
}

class Router {
	constructor(routes) {
		this.routes = routes.map((r) => ({ ...r, match: compile(r.path) }));
	}

	/** @returns {{route, params} | {methodNotAllowed: true} | null} */
	find(api, method, segs) {
		let pathMatched = false;
		const m = method === 'HEAD' ? 'GET' : method;
		for (const r of this.routes) {
			if (r.api !== api) continue;
			const params = r.match(segs);
			if (!params) continue;
			if (r.method === m || r.method === '*') return { route: r, params };
			pathMatched = true;
		}
		return pathMatched ? { methodNotAllowed: true } : null;
	}
}

/** Sends a JSON answer and records its status in the log entry. */
function reply(sb, rq, status, body, headers) {
	rq.entry.status = status;
	sendJson(rq.res, status, body, headers);
}

function sendError(sb, rq, err) {
	let status = err.status;
	if (status >= 400 && sb.config.quirks.errorsAsHttp200 && rq.api !== 'files' && rq.api !== 'foreign') status = 200;
	reply(sb, rq, status, err.body, err.headers);
}

async function applyFault(sb, rq, fault) {
	rq.entry.fault = fault;
	if (fault === 'drop') {
		rq.entry.status = 0;
		rq.req.socket.destroy();
		return true;
	}
	if (fault === '5xx') {
		reply(sb, rq, 500, { error_code: 500001, error_message: 'Internal Server Error' });
		return true;
	}
	if (fault === '429') {
		const secs = sb.faults.retryAfterSeconds;
		reply(sb, rq, 429, { error_code: 429001, error_message: 'Too Many Requests' }, { 'Retry-After': String(secs) });
		return true;
	}
	await delay(sb.faults.slowMs);
	return false;
}

async function dispatch(sb, family, req, res) {
	let url;
	try {
		url = new URL(req.url, 'http://sandbox.invalid');
	} catch {
		res.writeHead(400).end();
		return;
	}
	if (url.pathname.startsWith('/__sandbox/') || url.pathname === '/__sandbox') {
		return control(sb, req, res, url);
	}
	let api = family;
	if (family === 'files') {
		const hostHeader = String(req.headers.host || '');
		const hostname = hostHeader.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
		if (hostname !== sb.host) api = 'foreign';
	}
	const entry = sb.log.start({
		api,
		method: req.method,
		path: url.pathname,
		query: parseQuery(url.searchParams),
		authorization: req.headers.authorization,
	});
	const rq = { req, res, api, entry, query: entry.query, url, params: {}, body: undefined };
	res.on('error', () => {});
	try {
		let segs;
		try {
			segs = segmentsOf(url.pathname);
		} catch {
			throw apiError(400, 400001, 'InvalidResourceIdentifier: malformed percent-encoding in the path');
		}
		const found = sb.router.find(family, req.method, segs);
		const fault = sb.faults.roll(api, url.pathname, req.method);
		const route = found && found.route;
		const deferFault = fault && route && route.paid && sb.faults.timing === 'after' && fault !== '429';
		if (fault && !deferFault) {
			const ended = await applyFault(sb, rq, fault);
			if (ended) {
				req.resume();
				return;
			}
		}
		if (api !== 'files' && api !== 'foreign') {
			const auth = String(req.headers.authorization || '');
			const m = /^Bearer\s+(.+)$/i.exec(auth);
			if (!m || m[1].trim() !== sb.token) {
				req.resume();
				throw apiError(401, 401001, 'Unauthorized');
			}
		}
		if (!found) {
			req.resume();
			throw apiError(404, 404001, `Not Found: no endpoint ${req.method} ${url.pathname} on this host`);
		}
		if (found.methodNotAllowed) {
			req.resume();
			throw apiError(405, 405001, `Method ${req.method} not allowed on ${url.pathname}`);
		}
		rq.params = found.params;
		if (!route.raw) {
			if (req.method !== 'GET' && req.method !== 'HEAD') {
				rq.body = parseJson(await readBody(req));
				if (rq.body !== undefined) sb.log.setBody(entry, rq.body);
			} else req.resume();
		}
		const out = await route.handler(sb, rq);
		if (out && out.createdId) entry.createdId = out.createdId;
		const acceptedCode = sb.faults.faults.acceptedErrorCode;
		const marks = acceptedCode !== undefined && acceptedCode !== null && (route.paid || route.creates);
		if (marks && out && isPlainObject(out.body) && (out.status || 200) < 300) out.body = { ...out.body, error_code: acceptedCode };
		if (deferFault) {
			const ended = await applyFault(sb, rq, fault);
			if (ended) return;
		}
		if (out && out.handled) {
			if (out.status) entry.status = out.status;
			return;
		}
		if (out && out.raw !== undefined) {
			entry.status = out.status || 200;
			const buf = Buffer.from(out.raw);
			res.writeHead(entry.status, { 'Content-Type': out.contentType || 'text/plain; charset=utf-8', 'Content-Length': buf.length });
			res.end(buf);
			return;
		}
		reply(sb, rq, (out && out.status) || 200, out ? out.body : undefined, out && out.headers);
	} catch (err) {
		if (res.headersSent || res.destroyed) return;
		if (err instanceof ApiError) return sendError(sb, rq, err);
		console.error('[sandbox] internal error', err);
		reply(sb, rq, 500, { error_code: 500001, error_message: `Internal sandbox error: ${err.message}` });
	}
}

async function control(sb, req, res, url) {
	const path = url.pathname.replace(/\/+$/, '');
	try {
		let body;
		if (req.method === 'POST' || req.method === 'PUT') body = parseJson(await readBody(req));
		else req.resume();
		if (path === '/__sandbox/log' && req.method === 'GET') {
			return sendJson(res, 200, sb.api.log(Number(url.searchParams.get('since')) || 0));
		}
		if (path === '/__sandbox/log' && req.method === 'DELETE') {
			sb.api.clearLog();
			return sendJson(res, 200, { ok: true });
		}
		if (path === '/__sandbox/config' && req.method === 'POST') {
			if (body !== undefined && !isPlainObject(body)) throw apiError(422, 422001, 'config must be an object');
			sb.api.configure(body || {});
			return sendJson(res, 200, { ok: true, config: sb.publicConfig() });
		}
		if (path === '/__sandbox/config' && req.method === 'GET') return sendJson(res, 200, sb.publicConfig());
		if (path === '/__sandbox/reset' && req.method === 'POST') {
			sb.api.reset(isPlainObject(body) ? body : undefined);
			return sendJson(res, 200, { ok: true });
		}
		if (path === '/__sandbox/state' && req.method === 'GET') return sendJson(res, 200, sb.api.state());
		if (path === '/__sandbox/info' && req.method === 'GET') {
			return sendJson(res, 200, { urls: sb.urls, token: sb.token, stable: sb.stable });
		}
		throw apiError(404, 404001, `Unknown control endpoint ${req.method} ${path}`);
	} catch (err) {
		if (err instanceof ApiError) return sendJson(res, err.status, err.body);
		return sendJson(res, 500, { error_code: 500001, error_message: err.message });
	}
}

/** Listens on `port` (0 = free port). Resolves with the bound port. */
function listen(server, host, port) {
	return new Promise((resolve, reject) => {
		server.once('error', reject);
		server.listen(port, host, () => {
			server.off('error', reject);
			resolve(server.address().port);
		});
	});
}

function createServer(sb, family) {
	const server = http.createServer((req, res) => {
		dispatch(sb, family, req, res).catch((err) => {
			console.error('[sandbox] dispatch failure', err);
			try {
				res.destroy();
			} catch {
				/* ignore */
			}
		});
	});
	server.keepAliveTimeout = 5000;
	return server;
}

module.exports = { Router, createServer, listen, readBody, parseJson };
