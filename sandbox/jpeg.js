'use strict';
/**
 * A small baseline JPEG encoder for the sandbox's pictures (picture.js): SOF0, 8-bit, YCbCr 4:4:4 (the caption's
 * thin white letters stay crisp without chroma subsampling), the example quantisation tables of ITU T.81
 * Annex K scaled to a fixed quality, and the Annex K Huffman tables (no optimisation pass, so one pass).
 * Deterministic across machines: the DCT runs on integers (a cosine table rounded once), so no float rounding
 * or Math.cos ulp can change a byte.
 */

/** IJG-style quality (1..100): high enough that the picture matches its PNG closely, flat fills cost little. */
const QUALITY = 90;

// ---------- tables ----------
/** Zigzag scan order: ZIGZAG[k] is the natural (row * 8 + column) index of the k-th coefficient. */
const ZIGZAG = (() => {
	const order = [];
	for (let s = 0; s < 15; s++) {
		// Odd diagonals run down-left (row increasing), even ones up-right.
		for (let i = 0; i <= s; i++) {
			const row = s % 2 ? i : s - i;
			const col = s - row;
			if (row < 8 && col < 8) order.push(row * 8 + col);
		}
	}
	return order;
})();

/** UNZIGZAG[natural index] is its position in the zigzag scan. */
const UNZIGZAG = ZIGZAG.reduce((t, natural, k) => ((t[natural] = k), t), new Array(64));

// Annex K.1, natural order.
const LUMA_Q = [
	16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62, 18, 22,
	37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
];
const CHROMA_Q = [
	17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99, 99, 99, 99,
].concat(new Array(32).fill(99));

/** A quantisation table scaled to QUALITY the way libjpeg does it, in natural order. */
function scaled(table) {
	const factor = QUALITY < 50 ? 5000 / QUALITY : 200 - 2 * QUALITY;
	return table.map((q) => Math.min(255, Math.max(1, Math.floor((q * factor + 50) / 100))));
}

/**
 * The symbol values of an Annex K.3 AC table: the listed head, then every remaining run/size symbol in
 * ascending order (which is how the standard tables continue), so only the irregular part is written out.
 */
function acValues(head) {
	const rest = [];
	for (let run = 0; run < 16; run++) for (let size = 1; size <= 10; size++) rest.push((run << 4) | size);
	const seen = new Set(head);
	return head.concat(rest.filter((v) => !seen.has(v)));
}

// Annex K.3: code counts per length (1..16) and the symbols in code order.
const HUFFMAN = {
	dcLuma: { bits: [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0], values: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] },
	dcChroma: { bits: [0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0], values: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] },
	acLuma: {
		bits: [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7d],
		values: acValues([
			0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07, 0x22, 0x71, 0x14, 0x32, 0x81, 0x91,
			0xa1, 0x08, 0x23, 0x42, 0xb1, 0xc1, 0x15, 0x52, 0xd1, 0xf0, 0x24, 0x33, 0x62, 0x72, 0x82, 0x09, 0x0a,
		]),
	},
	acChroma: {
		bits: [0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77],
		values: acValues([
			0x00, 0x01, 0x02, 0x03, 0x11, 0x04, 0x05, 0x21, 0x31, 0x06, 0x12, 0x41, 0x51, 0x07, 0x61, 0x71, 0x13, 0x22, 0x32, 0x81, 0x08, 0x14,
			0x42, 0x91, 0xa1, 0xb1, 0xc1, 0x09, 0x23, 0x33, 0x52, 0xf0, 0x15, 0x62, 0x72, 0xd1, 0x0a, 0x16, 0x24, 0x34, 0xe1, 0x25, 0xf1,
		]),
	},
};

/** Canonical codes of a table (Annex C): symbol -> [code, length]. */
function codesOf({ bits, values }) {
	const codes = new Map();
	let code = 0;
	let k = 0;
	for (let len = 1; len <= 16; len++) {
		for (let i = 0; i < bits[len - 1]; i++) codes.set(values[k++], [code++, len]);
		code <<= 1;
	}
	if (k !== values.length) throw new Error('jpeg: a Huffman table lists more symbols than codes');
	return codes;
}

// ---------- DCT ----------
const COS_BITS = 12;
/** COS[u * 8 + x] = round(C(u) / 2 * cos((2x + 1) u pi / 16) * 2^COS_BITS): the 1-D DCT-II as integers. */
const COS = (() => {
	const t = new Array(64);
	for (let u = 0; u < 8; u++) {
		for (let x = 0; x < 8; x++) {
			const cu = u === 0 ? Math.SQRT1_2 : 1;
			t[u * 8 + x] = Math.round((cu / 2) * Math.cos(((2 * x + 1) * u * Math.PI) / 16) * (1 << COS_BITS));
		}
	}
	return t;
})();
const DCT_SCALE = 2 ** (2 * COS_BITS);

/**
 * The quantised coefficients of one 8x8 block (level-shifted samples, natural order) into `zz`, in zigzag order.
 * Rows then columns, all in exact integers (well below 2^53), rounded once at the end.
 */
const rows = new Float64Array(64);
function quantisedBlock(samples, divisors, zz) {
	// A flat block (most of a picture) has only its DC term: every other row of COS sums to exactly 0, so this
	// is the same result as the full transform below, without it.
	if (samples.every((v) => v === samples[0])) {
		zz.fill(0);
		const q = (samples[0] * 64 * COS[0] * COS[0]) / divisors[0];
		zz[0] = q < 0 ? -Math.round(-q) : Math.round(q);
		return zz;
	}
	for (let y = 0; y < 8; y++) {
		for (let u = 0; u < 8; u++) {
			let s = 0;
			for (let x = 0; x < 8; x++) s += samples[y * 8 + x] * COS[u * 8 + x];
			rows[y * 8 + u] = s;
		}
	}
	for (let v = 0; v < 8; v++) {
		for (let u = 0; u < 8; u++) {
			let s = 0;
			for (let y = 0; y < 8; y++) s += rows[y * 8 + u] * COS[v * 8 + y];
			const q = s / divisors[v * 8 + u];
			// Round half away from zero, as libjpeg's quantiser does.
			zz[UNZIGZAG[v * 8 + u]] = q < 0 ? -Math.round(-q) : Math.round(q);
		}
	}
	return zz;
}

// ---------- entropy coding ----------
class BitWriter {
	constructor() {
		this.bytes = [];
		this.acc = 0; // the pending bits (fewer than 8 between calls)
		this.count = 0;
	}
	/** Appends the low `len` (<= 16) bits of `code`, most significant first; a 0xFF byte gets a stuffed 0x00. */
	write(code, len) {
		this.acc = (this.acc << len) | code;
		this.count += len;
		while (this.count >= 8) {
			this.count -= 8;
			const byte = (this.acc >>> this.count) & 0xff;
			this.bytes.push(byte);
			if (byte === 0xff) this.bytes.push(0);
		}
		this.acc &= (1 << this.count) - 1;
	}
	/** Pads the last byte with 1 bits (F.1.2.3). */
	finish() {
		if (this.count > 0) this.write((1 << (8 - this.count)) - 1, 8 - this.count);
		return Buffer.from(this.bytes);
	}
}

/** Size category and magnitude bits of a coefficient (F.1.2.1). */
function category(value) {
	const abs = Math.abs(value);
	let size = 0;
	while (abs >> size) size++;
	return [size, value < 0 ? value + (1 << size) - 1 : value];
}

function encodeBlock(writer, zz, previousDc, dcCodes, acCodes) {
	const [dcSize, dcBits] = category(zz[0] - previousDc);
	const [dcCode, dcLen] = dcCodes.get(dcSize);
	writer.write(dcCode, dcLen);
	if (dcSize) writer.write(dcBits, dcSize);
	let run = 0;
	for (let k = 1; k < 64; k++) {
		if (zz[k] === 0) {
			run++;
			continue;
		}
		for (; run > 15; run -= 16) writer.write(...acCodes.get(0xf0));
		const [size, bits] = category(zz[k]);
		writer.write(...acCodes.get((run << 4) | size));
		writer.write(bits, size);
		run = 0;
	}
	if (run > 0) writer.write(...acCodes.get(0x00)); // end of block
	return zz[0];
}

// ---------- file ----------
function segment(marker, body) {
	const head = Buffer.from([0xff, marker, 0, 0]);
	head.writeUInt16BE(body.length + 2, 2);
	return Buffer.concat([head, body]);
}

function dqt(id, table) {
	return Buffer.from([id, ...ZIGZAG.map((i) => table[i])]);
}

function dht(cls, id, { bits, values }) {
	return Buffer.from([(cls << 4) | id, ...bits, ...values]);
}

/**
 * A baseline JPEG of `rgb` (3 bytes per pixel, rows top to bottom). Edge blocks repeat the last column and row.
 */
function encodeJpeg(rgb, width, height) {
	const quant = [scaled(LUMA_Q), scaled(CHROMA_Q)];
	// Each coefficient is divided by its quantiser and by the DCT's fixed-point scale at once.
	const divisors = quant.map((q) => q.map((v) => v * DCT_SCALE));
	const dc = [codesOf(HUFFMAN.dcLuma), codesOf(HUFFMAN.dcChroma)];
	const ac = [codesOf(HUFFMAN.acLuma), codesOf(HUFFMAN.acChroma)];
	const writer = new BitWriter();
	const previous = [0, 0, 0];
	const planes = [new Int16Array(64), new Int16Array(64), new Int16Array(64)];
	const zz = new Int32Array(64);
	for (let by = 0; by < height; by += 8) {
		for (let bx = 0; bx < width; bx += 8) {
			for (let y = 0; y < 8; y++) {
				const row = Math.min(height - 1, by + y) * width;
				for (let x = 0; x < 8; x++) {
					const i = (row + Math.min(width - 1, bx + x)) * 3;
					const r = rgb[i];
					const g = rgb[i + 1];
					const b = rgb[i + 2];
					// JFIF's YCbCr, level-shifted by -128 for the DCT.
					planes[0][y * 8 + x] = Math.round(0.299 * r + 0.587 * g + 0.114 * b) - 128;
					planes[1][y * 8 + x] = Math.round(-0.168736 * r - 0.331264 * g + 0.5 * b);
					planes[2][y * 8 + x] = Math.round(0.5 * r - 0.418688 * g - 0.081312 * b);
				}
			}
			for (let c = 0; c < 3; c++) {
				const t = c === 0 ? 0 : 1;
				previous[c] = encodeBlock(writer, quantisedBlock(planes[c], divisors[t], zz), previous[c], dc[t], ac[t]);
			}
		}
	}
	const jfif = Buffer.from([0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]);
	const sof = Buffer.from([8, height >> 8, height & 0xff, width >> 8, width & 0xff, 3, 1, 0x11, 0, 2, 0x11, 1, 3, 0x11, 1]);
	const sos = Buffer.from([3, 1, 0x00, 2, 0x11, 3, 0x11, 0, 63, 0]);
	return Buffer.concat([
		Buffer.from([0xff, 0xd8]),
		segment(0xe0, jfif),
		segment(0xdb, Buffer.concat([dqt(0, quant[0]), dqt(1, quant[1])])),
		segment(0xc0, sof),
		segment(
			0xc4,
			Buffer.concat([dht(0, 0, HUFFMAN.dcLuma), dht(1, 0, HUFFMAN.acLuma), dht(0, 1, HUFFMAN.dcChroma), dht(1, 1, HUFFMAN.acChroma)]),
		),
		segment(0xda, sos),
		writer.finish(),
		Buffer.from([0xff, 0xd9]),
	]);
}

module.exports = { encodeJpeg };
