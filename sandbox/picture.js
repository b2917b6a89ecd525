'use strict';
/**
 * The pictures the sandbox serves for image outputs: a landscape (sky, sun, stars, ridges) whose colours and
 * shapes derive from a hash of the prompt and seed, with the prompt written along the bottom. Deterministic
 * (same prompt, seed and size: same bytes), and small (flat fills and one gradient, no noise). The same pixels
 * are encoded as PNG (Node's own zlib), JPEG (jpeg.js) or lossless WebP (webp.js), whichever the output's name
 * asks for, so a JPEG or WebP output shows the picture its PNG would.
 */
const zlib = require('zlib');
const font = require('./font');
const { encodeJpeg } = require('./jpeg');
const { encodeWebp } = require('./webp');
// mulberry32: the same prompt and seed draw the same scene.
const { mulberry32: generator } = require('./faults');

const MAX_SIDE = 1024;
const DEFAULT_SIDE = 512;

// ---------- PNG ----------
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

function chunk(type, data) {
	const len = Buffer.alloc(4);
	len.writeUInt32BE(data.length);
	const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
	const crc = Buffer.alloc(4);
	crc.writeUInt32BE(crc32(td));
	return Buffer.concat([len, td, crc]);
}

/**
 * An RGB PNG of `rgb` (3 bytes per pixel, rows top to bottom). Each row takes the filter (Sub or Up) with the
 * smaller residuals: flat fills and gradients then deflate to almost nothing.
 */
function encodePng(rgb, width, height) {
	const stride = width * 3;
	const raw = Buffer.alloc((stride + 1) * height);
	const sub = Buffer.alloc(stride);
	const up = Buffer.alloc(stride);
	for (let y = 0; y < height; y++) {
		const row = y * stride;
		let sumSub = 0;
		let sumUp = 0;
		for (let i = 0; i < stride; i++) {
			const v = rgb[row + i];
			const s = (v - (i >= 3 ? rgb[row + i - 3] : 0)) & 0xff;
			const u = (v - (y > 0 ? rgb[row + i - stride] : 0)) & 0xff;
			sub[i] = s;
			up[i] = u;
			sumSub += s < 128 ? s : 256 - s;
			sumUp += u < 128 ? u : 256 - u;
		}
		const out = y * (stride + 1);
		const useUp = sumUp < sumSub;
		raw[out] = useUp ? 2 : 1;
		(useUp ? up : sub).copy(raw, out + 1);
	}
	const ihdr = Buffer.alloc(13);
	ihdr.writeUInt32BE(width, 0);
	ihdr.writeUInt32BE(height, 4);
	ihdr[8] = 8; // bit depth
	ihdr[9] = 2; // RGB
	return Buffer.concat([
		Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
		chunk('IHDR', ihdr),
		chunk('IDAT', zlib.deflateSync(raw)),
		chunk('IEND', Buffer.alloc(0)),
	]);
}

// ---------- colours and randomness ----------
function fnv(text) {
	let h = 2166136261;
	for (const ch of String(text)) h = Math.imul(h ^ ch.codePointAt(0), 16777619) >>> 0;
	return h;
}

function hsl(h, s, l) {
	const hue = (((h % 360) + 360) % 360) / 60;
	const c = (1 - Math.abs(2 * l - 1)) * s;
	const x = c * (1 - Math.abs((hue % 2) - 1));
	const m = l - c / 2;
	const [r, g, b] = hue < 1 ? [c, x, 0] : hue < 2 ? [x, c, 0] : hue < 3 ? [0, c, x] : hue < 4 ? [0, x, c] : hue < 5 ? [x, 0, c] : [c, 0, x];
	return [(r + m) * 255, (g + m) * 255, (b + m) * 255];
}

const mix = (a, b, t) => [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];

// ---------- the scene ----------
class Canvas {
	constructor(width, height) {
		this.width = width;
		this.height = height;
		this.px = new Uint8Array(width * height * 3);
	}
	/** Blends `colour` over pixel (x, y) with opacity `a` (0..1). */
	blend(x, y, colour, a) {
		if (x < 0 || y < 0 || x >= this.width || y >= this.height || a <= 0) return;
		const i = (y * this.width + x) * 3;
		const k = Math.min(1, a);
		for (let c = 0; c < 3; c++) this.px[i + c] = Math.round(this.px[i + c] + (colour[c] - this.px[i + c]) * k);
	}
	fillRow(y, x0, x1, colour) {
		const from = Math.max(0, x0);
		const to = Math.min(this.width, x1);
		if (to <= from) return;
		const start = (y * this.width + from) * 3;
		const end = (y * this.width + to) * 3;
		for (let c = 0; c < 3; c++) this.px[start + c] = Math.round(colour[c]);
		for (let filled = 3; start + filled < end; filled *= 2)
			this.px.copyWithin(start + filled, start, Math.min(start + filled, end - filled));
	}
}

function drawSky(cv, pal) {
	for (let y = 0; y < cv.height; y++) cv.fillRow(y, 0, cv.width, mix(pal.skyTop, pal.skyBottom, Math.pow(y / cv.height, 0.8)));
}

function drawStars(cv, pal, rand) {
	const count = Math.round((cv.width * cv.height) / 9000);
	for (let i = 0; i < count; i++) {
		const x = Math.floor(rand() * cv.width);
		const y = Math.floor(rand() * rand() * cv.height * 0.55);
		const a = (1 - y / (cv.height * 0.55)) * (0.35 + 0.5 * rand()) * pal.night;
		cv.blend(x, y, [255, 255, 240], a);
	}
}

/** A disc with flat halo rings (flat fills keep the file small where a smooth glow would not). */
function drawSun(cv, pal, sun) {
	const rings = [
		[2.6, 0.1],
		[1.9, 0.14],
		[1.4, 0.2],
		[1, 1],
	];
	for (const [scale, alpha] of rings) {
		const r = sun.r * scale;
		for (let y = Math.max(0, Math.floor(sun.y - r - 1)); y < Math.min(cv.height, Math.ceil(sun.y + r + 1)); y++) {
			const dy = y + 0.5 - sun.y;
			const half = Math.sqrt(Math.max(0, (r + 0.5) ** 2 - dy * dy));
			const solid = Math.max(0, r - 0.5) ** 2;
			for (let x = Math.max(0, Math.floor(sun.x - half)); x < Math.min(cv.width, Math.ceil(sun.x + half)); x++) {
				const d2 = (x + 0.5 - sun.x) ** 2 + dy * dy;
				const edge = d2 <= solid ? 1 : r + 0.5 - Math.sqrt(d2);
				if (edge > 0) cv.blend(x, y, pal.sun, alpha * Math.min(1, edge));
			}
		}
	}
}

/** Ridges far to near: each a sum of sines, filled below with a colour that darkens with nearness. */
function drawRidges(cv, pal, rand) {
	const layers = 4;
	const { width, height, px } = cv;
	for (let l = 0; l < layers; l++) {
		const waves = Array.from({ length: 3 }, (_, k) => ({
			f: (1 + k * 2.2 + rand() * 1.5) * (1.5 - l * 0.25),
			p: rand() * Math.PI * 2,
			a: 1 / (1 + k * 1.8),
		}));
		const base = height * (0.5 + l * 0.09);
		const amp = height * (0.12 - l * 0.02);
		const colour = mix(pal.far, pal.near, l / (layers - 1)).map(Math.round);
		for (let x = 0; x < width; x++) {
			let s = 0;
			for (const w of waves) s += w.a * Math.sin((x / width) * w.f * Math.PI * 2 + w.p);
			const top = base - amp * s;
			const row = Math.floor(top);
			cv.blend(x, row, colour, 1 - (top - row));
			for (let y = Math.max(0, row + 1); y < height; y++) {
				const i = (y * width + x) * 3;
				px[i] = colour[0];
				px[i + 1] = colour[1];
				px[i + 2] = colour[2];
			}
		}
	}
}

function drawText(cv, text, x0, y0, scale, colour) {
	let x = x0;
	for (const ch of text) {
		const bits = font.BITMAPS.get(ch) || font.BITMAPS.get('?');
		for (let gy = 0; gy < font.GLYPH_H; gy++) {
			for (let gx = 0; gx < font.GLYPH_W; gx++) {
				if (!bits[gy][gx]) continue;
				for (let dy = 0; dy < scale; dy++) cv.fillRow(y0 + gy * scale + dy, x + gx * scale, x + (gx + 1) * scale, colour);
			}
		}
		x += font.ADVANCE * scale;
	}
}

/** The prompt in up to three lines on a darkened band along the bottom; a small label at the top left. */
function drawCaption(cv, prompt, label) {
	const scale = Math.max(1, Math.round(Math.min(cv.width, cv.height) / 300));
	const pad = 4 * scale;
	const cols = Math.max(1, Math.floor((cv.width - 2 * pad) / (font.ADVANCE * scale)));
	const lines = font.wrap(font.printable(prompt), cols, 3);
	const band = lines.length * font.LINE * scale + 2 * pad - 2 * scale;
	if (lines.length) {
		for (let i = (cv.height - band) * cv.width * 3; i < cv.px.length; i++) cv.px[i] >>= 1;
		lines.forEach((line, i) => drawText(cv, line, pad, cv.height - band + pad + i * font.LINE * scale, scale, [255, 255, 255]));
	}
	const small = Math.max(1, Math.round(scale / 2));
	drawText(cv, font.printable(label), 3 * small, 3 * small, small, [255, 255, 255]);
}

/**
 * The picture for `prompt`, `seed` (null: none given) and `width` x `height` (within MAX_SIDE), as RGB pixels;
 * `image` tells apart the images of one batch.
 */
function drawPicture({ prompt = '', seed = null, width = DEFAULT_SIDE, height = DEFAULT_SIDE, image = 0 }) {
	const rand = generator(fnv(`${prompt}\u0000${seed}\u0000${image}`));
	// Hues that read as a sky: blue, violet, pink, sunset orange, teal by day; blues and violets by night.
	const night = rand() < 0.4 ? 1 : 0;
	const hues = night ? [210, 230, 250, 270, 290, 320] : [205, 225, 265, 300, 335, 15, 30, 185];
	const hue = hues[Math.floor(rand() * hues.length)] + (rand() - 0.5) * 20;
	const pal = {
		night,
		skyTop: night ? hsl(hue, 0.55, 0.12) : hsl(hue, 0.6, 0.55),
		skyBottom: night ? hsl(hue + 40, 0.45, 0.36) : hsl(hue + 35, 0.85, 0.82),
		sun: night ? [250, 246, 225] : hsl(hue + 45, 1, 0.94),
		far: night ? hsl(hue + 20, 0.3, 0.42) : hsl(hue + 10, 0.3, 0.66),
		near: night ? hsl(hue, 0.35, 0.08) : hsl(hue - 30, 0.4, 0.15),
	};
	const cv = new Canvas(width, height);
	drawSky(cv, pal);
	if (night) drawStars(cv, pal, rand);
	const side = Math.min(width, height);
	drawSun(cv, pal, { x: width * (0.15 + rand() * 0.7), y: height * (0.18 + rand() * 0.22), r: side * (0.05 + rand() * 0.04) });
	drawRidges(cv, pal, rand);
	const label = ['RunComfy sandbox', seed === null ? '' : `seed ${seed}`, image ? `image ${image + 1}` : ''];
	drawCaption(cv, prompt, label.filter(Boolean).join(' - '));
	return cv;
}

/** Encoders by format, each `(rgb, width, height) => Buffer`. */
const ENCODERS = { png: encodePng, jpeg: encodeJpeg, webp: encodeWebp };

/** The picture format a file name asks for ('png', 'jpeg' or 'webp'), or undefined for any other name. */
function pictureFormat(name) {
	const ext = /\.([a-z]+)$/i.exec(String(name));
	const format = ext ? ext[1].toLowerCase().replace(/^jpg$/, 'jpeg') : '';
	return Object.hasOwn(ENCODERS, format) ? format : undefined;
}

/** The same picture as the bytes of `format` (see ENCODERS; PNG by default). */
function renderPicture(spec, format = 'png') {
	const encode = ENCODERS[format];
	if (!encode) throw new Error(`No picture encoder for ${format}`);
	const cv = drawPicture(spec);
	return encode(cv.px, cv.width, cv.height);
}

module.exports = { renderPicture, pictureFormat, encodePng, MAX_SIDE, DEFAULT_SIDE };
