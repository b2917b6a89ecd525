'use strict';
/**
 * The file host (urls.files / urls.foreignFiles): small valid media files by extension, exact-size generated
 * files streamed without holding them in memory (with or without Content-Length), and training artifacts.
 *
 * Paths:
 *   GET|HEAD /files/outputs/<requestId>/<name>.<ext>   output of a run (404 once the request was deleted)
 *   GET|HEAD /files/gen/<bytes>/<name>                  exactly <bytes> bytes, with Content-Length
 *   GET|HEAD /files/chunked/<bytes>/<name>              exactly <bytes> bytes, chunked (no Content-Length)
 *   GET|HEAD /files/train/<jobId>/config.yaml           the job's config as submitted
 *   GET|HEAD /files/<anything>.<ext>                    a small valid file of that type
 */
const zlib = require('zlib');
const { Readable } = require('stream');
const { contentTypeFor } = require('./util');

// ---------- small valid files ----------
const CRC_TABLE = (() => {
	const t = new Uint32Array(256);
	for (let n = 0; n < 256; n++) {
		let c = n;
		for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
		t[n] = c >>> 0;
	}
	return t;
})();
function crc32(buf) {
	let c = 0xffffffff;
	for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
	return (c ^ 0xffffffff) >>> 0;
}

function hashColor(name) {
	let h = 2166136261;
	for (const ch of String(name)) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
	return [h & 0xff, (h >>> 8) & 0xff, (h >>> 16) & 0xff];
}

/** An 8x8 RGB PNG whose colour depends on the name. */
function png(name = '') {
	const [r, g, b] = hashColor(name);
	const w = 8;
	const h = 8;
	const raw = Buffer.alloc((w * 3 + 1) * h);
	for (let y = 0; y < h; y++) {
		const row = y * (w * 3 + 1);
		raw[row] = 0;
		for (let x = 0; x < w; x++) {
			const shade = (x + y) % 2 ? 1 : 0.8;
			raw[row + 1 + x * 3] = Math.round(r * shade);
			raw[row + 2 + x * 3] = Math.round(g * shade);
			raw[row + 3 + x * 3] = Math.round(b * shade);
		}
	}
	const chunk = (type, data) => {
		const len = Buffer.alloc(4);
		len.writeUInt32BE(data.length);
		const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
		const crc = Buffer.alloc(4);
		crc.writeUInt32BE(crc32(td));
		return Buffer.concat([len, td, crc]);
	};
	const ihdr = Buffer.alloc(13);
	ihdr.writeUInt32BE(w, 0);
	ihdr.writeUInt32BE(h, 4);
	ihdr[8] = 8; // bit depth
	ihdr[9] = 2; // RGB
	return Buffer.concat([
		Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
		chunk('IHDR', ihdr),
		chunk('IDAT', zlib.deflateSync(raw)),
		chunk('IEND', Buffer.alloc(0)),
	]);
}

/** A baseline 8x8 grey JPEG (one block, DC only). */
const JPEG = Buffer.concat([
	Buffer.from([0xff, 0xd8]),
	Buffer.from([0xff, 0xdb, 0x00, 0x43, 0x00]),
	Buffer.alloc(64, 1),
	Buffer.from([0xff, 0xc0, 0x00, 0x0b, 0x08, 0x00, 0x08, 0x00, 0x08, 0x01, 0x01, 0x11, 0x00]),
	Buffer.from([0xff, 0xc4, 0x00, 0x14, 0x00, 0x01, ...new Array(15).fill(0), 0x00]),
	Buffer.from([0xff, 0xc4, 0x00, 0x14, 0x10, 0x01, ...new Array(15).fill(0), 0x00]),
	Buffer.from([0xff, 0xda, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3f, 0x00]),
	Buffer.from([0x3f]),
	Buffer.from([0xff, 0xd9]),
]);

/** A 1x1 lossless WebP. */
const WEBP = Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64');

/** An MP4-looking file: ftyp + free + mdat boxes. */
const MP4_HEADER = Buffer.concat([
	Buffer.from([0, 0, 0, 0x20]),
	Buffer.from('ftypisom', 'ascii'),
	Buffer.from([0, 0, 2, 0]),
	Buffer.from('isomiso2avc1mp41', 'ascii'),
	Buffer.from([0, 0, 0, 8]),
	Buffer.from('free', 'ascii'),
]);
function mp4() {
	const payload = Buffer.alloc(1024);
	for (let i = 0; i < payload.length; i++) payload[i] = (i * 31) & 0xff;
	const mdat = Buffer.alloc(8);
	mdat.writeUInt32BE(8 + payload.length);
	mdat.write('mdat', 4, 'ascii');
	return Buffer.concat([MP4_HEADER, mdat, payload]);
}

/** A 0.25 s 440 Hz mono 16-bit 8 kHz WAV. */
function wav() {
	const rate = 8000;
	const samples = 2000;
	const data = Buffer.alloc(samples * 2);
	for (let i = 0; i < samples; i++) data.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 8000), i * 2);
	const h = Buffer.alloc(44);
	h.write('RIFF', 0, 'ascii');
	h.writeUInt32LE(36 + data.length, 4);
	h.write('WAVE', 8, 'ascii');
	h.write('fmt ', 12, 'ascii');
	h.writeUInt32LE(16, 16);
	h.writeUInt16LE(1, 20); // PCM
	h.writeUInt16LE(1, 22); // mono
	h.writeUInt32LE(rate, 24);
	h.writeUInt32LE(rate * 2, 28);
	h.writeUInt16LE(2, 32);
	h.writeUInt16LE(16, 34);
	h.write('data', 36, 'ascii');
	h.writeUInt32LE(data.length, 40);
	return Buffer.concat([h, data]);
}

/** A tiny LoRA-shaped safetensors file. */
function safetensors(name = '') {
	const header = {
		__metadata__: { format: 'pt', ss_network_module: 'networks.lora', ss_network_dim: '16', name: String(name) },
		'lora_unet_double_blocks_0_img_attn_proj.lora_down.weight': { dtype: 'F32', shape: [4, 4], data_offsets: [0, 64] },
	};
	let json = JSON.stringify(header);
	while (json.length % 8) json += ' ';
	const len = Buffer.alloc(8);
	len.writeBigUInt64LE(BigInt(Buffer.byteLength(json)));
	const data = Buffer.alloc(64);
	for (let i = 0; i < 16; i++) data.writeFloatLE(i / 16, i * 4);
	return Buffer.concat([len, Buffer.from(json), data]);
}

function smallFile(name) {
	const ext = String(name).toLowerCase().split('.').pop();
	switch (ext) {
		case 'png':
			return png(name);
		case 'jpg':
		case 'jpeg':
			return JPEG;
		case 'webp':
			return WEBP;
		case 'mp4':
		case 'mov':
		case 'webm':
			return mp4();
		case 'wav':
			return wav();
		case 'safetensors':
			return safetensors(name);
		case 'txt':
			return Buffer.from(`a photo of ${String(name).replace(/\.[^.]+$/, '')}\n`);
		case 'json':
			return Buffer.from(JSON.stringify({ name }));
		case 'yaml':
		case 'yml':
			return Buffer.from(`name: ${name}\n`);
		default: {
			const b = Buffer.alloc(1024);
			for (let i = 0; i < b.length; i++) b[i] = (i * 7) & 0xff;
			return b;
		}
	}
}

// ---------- exact-size streams ----------
const PATTERN = (() => {
	const b = Buffer.alloc(1024 * 1024);
	for (let i = 0; i < b.length; i++) b[i] = (i * 131 + 7) & 0xff;
	return b;
})();

/** A stream of exactly `size` bytes: the type's header first (for .mp4), then a fixed pattern. */
function sizedStream(size, name) {
	let sent = 0;
	const header = /\.mp4$/i.test(name) ? MP4_HEADER : null;
	return new Readable({
		highWaterMark: PATTERN.length,
		read() {
			if (sent >= size) {
				this.push(null);
				return;
			}
			let chunk;
			if (sent === 0 && header) chunk = header.subarray(0, Math.min(header.length, size));
			else chunk = PATTERN.subarray(0, Math.min(PATTERN.length, size - sent));
			sent += chunk.length;
			this.push(chunk);
		},
	});
}

const MAX_GENERATED = 64 * 1024 ** 3;

function notFound(res) {
	const body = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>';
	res.writeHead(404, { 'Content-Type': 'application/xml', 'Content-Length': Buffer.byteLength(body) });
	res.end(body);
	return 404;
}

/**
 * Serves GET/HEAD under /files/. Returns the HTTP status sent.
 * @param {object} sb the sandbox context (for run/job lookups)
 */
function serveFile(sb, req, res, segments) {
	const head = req.method === 'HEAD';
	const name = segments[segments.length - 1] || 'file.bin';
	const [kind] = segments;
	if ((kind === 'gen' || kind === 'chunked') && segments.length >= 3) {
		const size = Number(segments[1]);
		if (!Number.isSafeInteger(size) || size < 0 || size > MAX_GENERATED) return notFound(res);
		const headers = { 'Content-Type': contentTypeFor(name), 'Cache-Control': 'public, max-age=604800' };
		if (kind === 'gen') headers['Content-Length'] = String(size);
		res.writeHead(200, headers);
		if (head) {
			res.end();
			return 200;
		}
		const stream = sizedStream(size, name);
		stream.pipe(res);
		res.on('close', () => stream.destroy());
		return 200;
	}
	let body;
	if (kind === 'outputs' && segments.length >= 3) {
		const run = sb.runs.get(segments[1]);
		if (!run || run.deleted) return notFound(res);
		body = smallFile(name);
	} else if (kind === 'train' && segments.length >= 3) {
		const job = sb.jobs.get(segments[1]);
		if (!job) return notFound(res);
		if (name === 'config.yaml' || name === 'config.json') body = Buffer.from(job.configText);
		else body = smallFile(name);
	} else if (segments.length >= 1 && /\.[A-Za-z0-9]+$/.test(name)) {
		body = smallFile(name);
	} else {
		return notFound(res);
	}
	res.writeHead(200, {
		'Content-Type': contentTypeFor(name),
		'Content-Length': String(body.length),
		'Cache-Control': 'public, max-age=604800',
	});
	res.end(head ? undefined : body);
	return 200;
}

module.exports = { serveFile, smallFile, png, wav, mp4, safetensors, JPEG, WEBP, sizedStream, crc32 };
