'use strict';
/** The request log: one entry per request the sandbox received (control calls excluded) and per webhook delivery attempt. */
const { summarizeForLog } = require('./util');

const MAX_ENTRIES = 200000;

class RequestLog {
	constructor() {
		this.entries = [];
		this.seq = 0;
	}

	/** Starts an entry; the caller fills in `status`, `body`, `fault`, `createdId` as they become known. */
	start({ api, method, path, query, authorization }) {
		const entry = { seq: ++this.seq, time: Date.now(), api, method, path, query, status: 0 };
		if (authorization !== undefined) entry.authorization = authorization;
		this.push(entry);
		return entry;
	}

	/** Adds a complete entry the sandbox made itself (webhook deliveries); the caller may still update it. */
	record(fields) {
		const entry = { seq: ++this.seq, time: Date.now(), ...fields };
		this.push(entry);
		return entry;
	}

	push(entry) {
		this.entries.push(entry);
		if (this.entries.length > MAX_ENTRIES) this.entries.splice(0, this.entries.length - MAX_ENTRIES);
	}

	setBody(entry, body) {
		entry.body = summarizeForLog(body);
	}

	list(sinceSeq) {
		const src = sinceSeq ? this.entries.filter((e) => e.seq > sinceSeq) : this.entries;
		return src.map((e) => ({ ...e, query: { ...e.query } }));
	}

	clear() {
		this.entries = [];
	}
}

module.exports = { RequestLog };
