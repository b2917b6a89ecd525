'use strict';
/**
 * Streaming multipart/form-data parser: never holds a part's body in memory (the caller gets chunks).
 * parseMultipart(req, boundary, { onPart(headers) -> { data(chunk), end() } }) resolves when the body ends.
 */

function parseHeaders(text) {
	const headers = {};
	for (const line of text.split('\r\n')) {
		const i = line.indexOf(':');
		if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
	}
	const disp = headers['content-disposition'] || '';
	const param = (name) => {
		const m =
			new RegExp(`(?:^|;)\\s*${name}="((?:[^"\\\\]|\\\\.)*)"`, 'i').exec(disp) || new RegExp(`(?:^|;)\\s*${name}=([^;]+)`, 'i').exec(disp);
		return m ? m[1].replace(/\\(.)/g, '$1').trim() : undefined;
	};
	let filename = param('filename');
	const star = /filename\*=(?:UTF-8'')?([^;]+)/i.exec(disp);
	if (star) {
		try {
			filename = decodeURIComponent(star[1].trim());
		} catch {
			/* keep plain filename */
		}
	}
	return { name: param('name'), filename, contentType: headers['content-type'], headers };
}

function boundaryOf(contentType) {
	const m = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType || '');
	return m ? (m[1] || m[2]).trim() : null;
}

function parseMultipart(req, boundary, handlers) {
	return new Promise((resolve, reject) => {
		const delim = Buffer.from(`\r\n--${boundary}`);
		const keep = delim.length + 4;
		let buf = Buffer.from('\r\n');
		let state = 'preamble';
		let part = null;
		let headerBytes = 0;
		let failed = false;

		const fail = (err) => {
			if (failed) return;
			failed = true;
			req.resume();
			reject(err);
		};

		const step = () => {
			for (;;) {
				if (state === 'preamble') {
					const i = buf.indexOf(delim);
					if (i < 0) {
						if (buf.length > keep) buf = buf.subarray(buf.length - keep);
						return;
					}
					buf = buf.subarray(i + delim.length);
					state = 'after';
				} else if (state === 'after') {
					if (buf.length < 2) return;
					if (buf[0] === 0x2d && buf[1] === 0x2d) {
						state = 'done';
						return;
					}
					// transport padding then CRLF
					const nl = buf.indexOf('\r\n');
					if (nl < 0) {
						if (buf.length > 256) return fail(new Error('malformed multipart body'));
						return;
					}
					buf = buf.subarray(nl + 2);
					state = 'headers';
					headerBytes = 0;
				} else if (state === 'headers') {
					const i = buf.indexOf('\r\n\r\n');
					if (i < 0) {
						headerBytes = buf.length;
						if (headerBytes > 16384) return fail(new Error('multipart part headers too large'));
						return;
					}
					const info = parseHeaders(buf.subarray(0, i).toString('utf8'));
					buf = buf.subarray(i + 4);
					part = handlers.onPart(info) || { data() {}, end() {} };
					state = 'body';
				} else if (state === 'body') {
					const i = buf.indexOf(delim);
					if (i < 0) {
						if (buf.length > keep) {
							part.data(buf.subarray(0, buf.length - keep));
							buf = buf.subarray(buf.length - keep);
						}
						return;
					}
					if (i > 0) part.data(buf.subarray(0, i));
					part.end();
					part = null;
					buf = buf.subarray(i + delim.length);
					state = 'after';
				} else {
					buf = Buffer.alloc(0);
					return;
				}
			}
		};

		req.on('data', (chunk) => {
			if (failed) return;
			// Fast path inside a part body: no delimiter in (tail + chunk) -> emit without copying the chunk.
			if (state === 'body' && buf.length <= keep && chunk.length > 2 * keep) {
				const edge = Buffer.concat([buf, chunk.subarray(0, keep)]);
				if (edge.indexOf(delim) < 0 && chunk.indexOf(delim) < 0) {
					try {
						if (buf.length) part.data(buf);
						part.data(chunk.subarray(0, chunk.length - keep));
					} catch (e) {
						return fail(e);
					}
					buf = chunk.subarray(chunk.length - keep);
					return;
				}
			}
			buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
			try {
				step();
			} catch (e) {
				fail(e);
			}
		});
		req.on('end', () => {
			if (failed) return;
			if (state !== 'done') return fail(new Error('multipart body ended before the closing boundary'));
			resolve();
		});
		req.on('error', fail);
		req.on('aborted', () => fail(new Error('client aborted the upload')));
	});
}

module.exports = { parseMultipart, boundaryOf };
