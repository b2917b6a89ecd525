'use strict';
/** The request log: one entry per request the sandbox received (control calls excluded). */
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
		this.entries.push(entry);
		if (this.entries.length > MAX_ENTRIES) this.entries.splice(0, this.entries.length - MAX_ENTRIES);
		return entry;
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
