'use strict';
/**
 * Delivers webhook events: POST application/json; a reply is expected within `timeoutMs` (live: 10 s); a
 * non-2xx reply, a timeout or a network error is retried after `baseDelayMs` × 2^(attempt-1) (at most
 * `maxDelayMs`), up to `maxAttempts` attempts.
 *
 * The events of one request go out one after another (each with its retries), so the order only breaks when
 * the seeded chaos says so: `duplicateRate` sends a delivered event once more; `outOfOrderRate` holds an
 * event back until the request's next event was delivered (a final event has none: it waits for the next
 * delivery to the same URL, or `holdMs`).
 *
 * Safety: only loopback hosts (127.0.0.0/8, ::1, localhost) are contacted.
 * Any other target is refused before any connection or name lookup, and `localhost` must resolve to
 * loopback addresses only. Every attempt and every refusal is a log entry with `api: 'webhook'`.
 */
const http = require('http');
const https = require('https');
const net = require('net');
const dns = require('dns');
const { summarizeForLog } = require('./util');
const { seededStream } = require('./timing');

const WEBHOOK_DEFAULTS = {
	enabled: true,
	timeoutMs: 10_000,
	maxAttempts: 5,
	baseDelayMs: 1000,
	maxDelayMs: 60_000,
	duplicateRate: 0,
	outOfOrderRate: 0,
	holdMs: 2000,
};

function isLoopbackAddress(address) {
	const a = String(address).toLowerCase();
	if (net.isIPv4(a)) return a.split('.')[0] === '127';
	if (!net.isIPv6(a)) return false;
	if (a === '::1' || a === '0:0:0:0:0:0:0:1') return true;
	const mapped = /^(?:0:0:0:0:0|):ffff:(.+)$/.exec(a.replace(/^::/, ':'));
	if (!mapped) return false;
	// IPv4-mapped: ::ffff:127.0.0.1, which URL parsing writes as ::ffff:7f00:1
	const rest = mapped[1];
	if (net.isIPv4(rest)) return rest.split('.')[0] === '127';
	const groups = rest.split(':');
	return groups.length === 2 && parseInt(groups[0], 16) >> 8 === 0x7f;
}

function isLoopbackHost(hostname) {
	const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
	return h === 'localhost' || isLoopbackAddress(h);
}

/** Why an event must not be sent to `raw`, or null when it may. Decided on the text alone: no lookup. */
function refusalReason(raw) {
	let url;
	try {
		url = new URL(raw);
	} catch {
		return 'invalid URL';
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') return `scheme ${url.protocol} is not delivered`;
	if (isLoopbackHost(url.hostname)) return null;
	const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
	return `${host} is not a loopback host; the sandbox delivers only to 127.0.0.0/8, ::1 and localhost`;
}

/** The URL as logged: any `signature` query value replaced (n8n resume URLs carry one). */
function redactUrl(raw) {
	let url;
	try {
		url = new URL(raw);
	} catch {
		return { href: String(raw).slice(0, 200), path: '', query: {} };
	}
	for (const key of [...url.searchParams.keys()]) if (key.toLowerCase() === 'signature') url.searchParams.set(key, 'REDACTED');
	const query = {};
	for (const [k, v] of url.searchParams) query[k] = k in query ? [].concat(query[k], v) : v;
	return { href: url.href, path: url.pathname, query };
}

/** Name lookup for `localhost`: connects only when every address is loopback. */
function loopbackLookup(hostname, options, callback) {
	dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
		if (err) return callback(err);
		if (!addresses.length || !addresses.every((a) => isLoopbackAddress(a.address))) {
			return callback(Object.assign(new Error(`${hostname} does not resolve to loopback only`), { code: 'ENOTLOOPBACK' }));
		}
		if (options && options.all) return callback(null, addresses);
		return callback(null, addresses[0].address, addresses[0].family);
	});
}

class WebhookSender {
	constructor(sb) {
		this.sb = sb;
		this.chains = new Map();
		this.held = [];
		this.requests = new Set();
		this.waits = new Set();
		this.generation = 0;
		this.closed = false;
		this.reseed(sb.config ? sb.config.seed : undefined);
	}

	get cfg() {
		return { ...WEBHOOK_DEFAULTS, ...(this.sb.config.webhooks || {}) };
	}

	/**
	 * One stream per kind of decision: out-of-order rolls happen as events arise, duplicate rolls as deliveries
	 * succeed, and those two orders interleave by timing; each on its own stays repeatable.
	 */
	reseed(seed) {
		this.outOfOrderRandom = seededStream(seed, 'webhookOrder');
		this.duplicateRandom = seededStream(seed, 'webhookDuplicates');
	}

	/** One seeded draw per decision, taken even at rate 0. */
	roll(random, rate) {
		return random() < (Number(rate) || 0);
	}

	/** `ev`: { url, requestId, deploymentId, status, final, body }. */
	enqueue(ev) {
		const cfg = this.cfg;
		if (!cfg.enabled) return;
		ev.generation = this.generation;
		if (this.roll(this.outOfOrderRandom, cfg.outOfOrderRate)) this.hold(ev, cfg);
		else this.send(ev, {});
	}

	send(ev, flags) {
		const id = ev.requestId;
		const chain = (this.chains.get(id) || Promise.resolve())
			.then(async () => {
				const delivered = await this.deliver(ev, flags);
				if (delivered && this.roll(this.duplicateRandom, this.cfg.duplicateRate)) await this.deliver(ev, { ...flags, duplicate: true });
				this.releaseHeldAfter(ev);
			})
			.catch((err) => console.error('[sandbox] webhook delivery failure', err));
		this.chains.set(id, chain);
		chain.then(() => {
			if (this.chains.get(id) === chain) this.chains.delete(id);
		});
	}

	hold(ev, cfg) {
		const held = { ev, timer: null };
		if (ev.final) {
			held.timer = setTimeout(() => this.release(held), Math.max(0, Number(cfg.holdMs) || 0));
			held.timer.unref();
		}
		this.held.push(held);
	}

	release(held) {
		const i = this.held.indexOf(held);
		if (i < 0) return;
		this.held.splice(i, 1);
		clearTimeout(held.timer);
		this.send(held.ev, { outOfOrder: true });
	}

	/** After `ev` went out: send what was held back to arrive after it. */
	releaseHeldAfter(ev) {
		for (const held of [...this.held]) {
			if (held.ev === ev) continue;
			if (held.ev.requestId === ev.requestId || (held.ev.final && held.ev.url === ev.url)) this.release(held);
		}
	}

	/** Delivers one event with its retries; true when a 2xx came back. */
	async deliver(ev, flags) {
		const cfg = this.cfg;
		const refused = refusalReason(ev.url);
		if (refused) {
			this.logAttempt(ev, flags, 1).refused = refused;
			return false;
		}
		const maxAttempts = Math.max(1, Math.floor(Number(cfg.maxAttempts) || 1));
		for (let attempt = 1; attempt <= maxAttempts; attempt++) {
			if (this.closed || ev.generation !== this.generation) return false;
			const entry = this.logAttempt(ev, flags, attempt);
			const outcome = await this.post(ev, cfg);
			entry.status = outcome.status || 0;
			if (outcome.error) entry.error = outcome.error;
			if (entry.status >= 200 && entry.status < 300) return true;
			if (attempt === maxAttempts) {
				entry.gaveUp = true;
				return false;
			}
			await this.wait(Math.min(Number(cfg.maxDelayMs) || 0, (Number(cfg.baseDelayMs) || 0) * 2 ** (attempt - 1)));
		}
		return false;
	}

	logAttempt(ev, flags, attempt) {
		const target = redactUrl(ev.url);
		return this.sb.log.record({
			api: 'webhook',
			method: 'POST',
			path: target.path,
			query: target.query,
			url: target.href,
			attempt,
			event: ev.status,
			requestId: ev.requestId,
			deploymentId: ev.deploymentId,
			duplicate: !!flags.duplicate,
			outOfOrder: !!flags.outOfOrder,
			body: summarizeForLog(ev.body),
			status: 0,
		});
	}

	/** One POST: `{ status }` once the reply has been read, or `{ error }` (timeout, network error). */
	post(ev, cfg) {
		return new Promise((resolve) => {
			const url = new URL(ev.url);
			const data = Buffer.from(JSON.stringify(ev.body));
			const literal = net.isIP(url.hostname.replace(/^\[|\]$/g, '')) !== 0;
			const needsLoopbackLookup = !literal && isLoopbackHost(url.hostname);
			let req;
			let settled = false;
			const finish = (outcome) => {
				if (settled) return;
				settled = true;
				clearTimeout(timer);
				this.requests.delete(req);
				resolve(outcome);
			};
			const timer = setTimeout(
				() => {
					finish({ error: 'timeout' });
					req.destroy();
				},
				Math.max(1, Number(cfg.timeoutMs) || 1),
			);
			timer.unref();
			req = (url.protocol === 'https:' ? https : http).request(
				url,
				{
					method: 'POST',
					agent: false,
					headers: { 'Content-Type': 'application/json', 'Content-Length': data.length, 'User-Agent': 'runcomfy-sandbox-webhooks' },
					...(needsLoopbackLookup ? { lookup: loopbackLookup } : {}),
				},
				(res) => {
					res.on('end', () => finish({ status: res.statusCode }));
					res.on('error', () => finish({ status: res.statusCode }));
					res.resume();
				},
			);
			req.on('error', (err) => finish({ error: err.code || err.message }));
			this.requests.add(req);
			req.end(data);
		});
	}

	wait(ms) {
		return new Promise((resolve) => {
			const w = { resolve, timer: null };
			w.timer = setTimeout(() => {
				this.waits.delete(w);
				resolve();
			}, ms);
			w.timer.unref();
			this.waits.add(w);
		});
	}

	/** Drops held and pending deliveries and aborts the ones in flight (reset). */
	clear() {
		this.generation++;
		for (const held of this.held) clearTimeout(held.timer);
		this.held = [];
		this.chains.clear();
		for (const req of this.requests) req.destroy();
		for (const w of this.waits) {
			clearTimeout(w.timer);
			w.resolve();
		}
		this.waits.clear();
		this.reseed(this.sb.config.seed);
	}

	close() {
		this.closed = true;
		this.clear();
	}
}

module.exports = { WebhookSender, WEBHOOK_DEFAULTS, redactUrl, refusalReason };
