'use strict';
/**
 * The file host (urls.files / urls.foreignFiles): a run's PNG, JPEG and WebP outputs as pictures of its prompt
 * (picture.js),
 * small valid media files by extension, exact-size generated
 * files streamed without holding them in memory (with or without Content-Length), and training artifacts.
 *
 * Paths:
 *   GET|HEAD /files/outputs/<requestId>/<name>.<ext>   output of a run (404 once the request was deleted)
 *   GET|HEAD /files/gen/<bytes>/<name>                  exactly <bytes> bytes, with Content-Length
 *   GET|HEAD /files/chunked/<bytes>/<name>              exactly <bytes> bytes, chunked (no Content-Length)
 *   GET|HEAD /files/train/<jobId>/config.yaml           the job's config as submitted
 *   GET|HEAD /files/<anything>.<ext>                    a small valid file of that type
 */
const { Readable } = require('stream');
const { contentTypeFor } = require('./util');
const { renderPicture, pictureFormat, encodePng } = require('./picture');

// ---------- small valid files ----------
function hashColor(name) {
	let h = 2166136261;
	for (const ch of String(name)) h = Math.imul(h ^ ch.charCodeAt(0), 16777619) >>> 0;
	return [h & 0xff, (h >>> 8) & 0xff, (h >>> 16) & 0xff];
}

/** An 8x8 RGB PNG whose colour depends on the name (for files that are not a run's pictures). */
function png(name = '') {
	const [r, g, b] = hashColor(name);
	const rgb = Buffer.alloc(8 * 8 * 3);
	for (let p = 0; p < 64; p++) {
		const shade = ((p % 8) + Math.floor(p / 8)) % 2 ? 1 : 0.8;
		rgb[p * 3] = Math.round(r * shade);
		rgb[p * 3 + 1] = Math.round(g * shade);
		rgb[p * 3 + 2] = Math.round(b * shade);
	}
	return encodePng(rgb, 8, 8);
}

/** A baseline 8x8 grey JPEG (one block, DC only), for JPEG files that are not a run's pictures. */
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

/** A 1x1 lossless WebP, for WebP files that are not a run's pictures. */
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

/** Rendered pictures by spec: a download is often a HEAD then a GET, or repeated, and rendering is not free. */
const pictureCache = new Map();
const PICTURE_CACHE_SIZE = 16;

/**
 * The file of a run's output: for a PNG, JPEG or WebP of a run that knows its picture (prompt, seed, size), that
 * picture in that format, told apart from the other images of its batch by the number in its name; else a small
 * file of its type.
 */
function outputFile(run, name) {
	const number = /(\d+)_?\.[a-z]+$/i.exec(name);
	const format = pictureFormat(name);
	if (!run.picture || !number || !format) return smallFile(name);
	// Model outputs count from 0 (output_0.png), ComfyUI's from 1 (ComfyUI_00001_.png).
	const image = Math.max(0, Number(number[1]) - (run.kind === 'deployment' ? 1 : 0));
	const spec = { ...run.picture, image };
	const key = JSON.stringify([spec, format]);
	let body = pictureCache.get(key);
	if (!body) {
		body = renderPicture(spec, format);
		pictureCache.set(key, body);
		if (pictureCache.size > PICTURE_CACHE_SIZE) pictureCache.delete(pictureCache.keys().next().value);
	}
	return body;
}

function notFound(res) {
	const body =
		'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>';
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
		body = outputFile(run, name);
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

module.exports = { serveFile };
