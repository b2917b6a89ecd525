'use strict';
/**
 * A small lossless WebP (VP8L, RFC 9649) encoder for the sandbox's pictures (picture.js), in the simplest form
 * that stays small: the subtract-green transform, no colour cache, one group of prefix codes, and backward
 * references only to the pixel on the left and the one above. The pictures are flat fills, one gradient and
 * text, so those two copies cover almost every pixel. Deterministic: integers only, ties broken by symbol.
 */

const MAX_CODE_LENGTH = 15;
const MAX_CODE_LENGTH_CODE_LENGTH = 7;
/** The order code length code lengths are written in (RFC 9649, 3.7.2.1.2). */
const CODE_LENGTH_ORDER = [17, 18, 0, 1, 2, 3, 4, 5, 16, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];
const NUM_LENGTH_CODES = 24;
const NUM_DISTANCE_CODES = 40;
const MAX_COPY = 4096;
/** A copy shorter than this costs more bits than its literals, roughly. */
const MIN_COPY = 3;
// Distance codes of the 2-D neighbourhood table: 1 is the pixel above (0, 1), 2 the one on the left (1, 0).
const ABOVE = 1;
const LEFT = 2;
const SUBTRACT_GREEN = 2;

// ---------- bits ----------
/** VP8L packs bits least significant first. */
class BitWriter {
	constructor() {
		this.bytes = [];
		this.acc = 0;
		this.count = 0;
	}
	write(value, len) {
		for (let i = 0; i < len; i++) {
			this.acc |= ((value >>> i) & 1) << this.count;
			if (++this.count === 8) {
				this.bytes.push(this.acc);
				this.acc = 0;
				this.count = 0;
			}
		}
	}
	finish() {
		if (this.count > 0) this.bytes.push(this.acc);
		return Buffer.from(this.bytes);
	}
}

// ---------- prefix codes ----------
/**
 * Huffman code lengths of `counts`, none longer than `limit`: when the tree is too deep the counts are halved
 * (keeping every used symbol at least 1) and the tree rebuilt. Ties go to the lower symbol, so the result is
 * the same everywhere.
 */
function codeLengths(counts, limit) {
	const lengths = new Array(counts.length).fill(0);
	let weights = counts.slice();
	const used = counts.map((c, s) => (c > 0 ? s : -1)).filter((s) => s >= 0);
	if (used.length === 1) lengths[used[0]] = 1;
	if (used.length < 2) return lengths;
	for (;;) {
		// Nodes: leaves are symbols, inner nodes list the leaves below them; merge the two lightest.
		let nodes = used.map((s, order) => ({ weight: weights[s], order, leaves: [s] }));
		let next = used.length;
		const depth = new Array(counts.length).fill(0);
		while (nodes.length > 1) {
			nodes.sort((a, b) => a.weight - b.weight || a.order - b.order);
			const [a, b] = nodes;
			for (const s of a.leaves.concat(b.leaves)) depth[s]++;
			nodes = nodes.slice(2);
			nodes.push({ weight: a.weight + b.weight, order: next++, leaves: a.leaves.concat(b.leaves) });
		}
		if (Math.max(...depth) <= limit) {
			for (const s of used) lengths[s] = depth[s];
			return lengths;
		}
		weights = weights.map((w) => (w > 0 ? Math.max(1, w >> 1) : 0));
	}
}

/**
 * Canonical codes for `lengths` (as in deflate), bit-reversed for the LSB-first writer: symbol -> [bits, length].
 * A code with one symbol reads no bits at all (RFC 9649, 3.7.2.1.2), so its length is 0 here.
 */
function canonical(lengths) {
	const used = lengths.filter((l) => l > 0).length;
	const perLength = new Array(MAX_CODE_LENGTH + 1).fill(0);
	for (const l of lengths) if (l) perLength[l]++;
	const nextCode = new Array(MAX_CODE_LENGTH + 2).fill(0);
	for (let len = 1, code = 0; len <= MAX_CODE_LENGTH; len++) {
		code = (code + perLength[len - 1]) << 1;
		nextCode[len] = code;
	}
	return lengths.map((len) => {
		if (!len || used === 1) return [0, 0];
		const code = nextCode[len]++;
		let reversed = 0;
		for (let i = 0; i < len; i++) reversed |= ((code >> i) & 1) << (len - 1 - i);
		return [reversed, len];
	});
}

/** Code lengths as code length symbols: 0..15 literally, 16 repeats the last length 3..6 times, 17/18 run zeros. */
function lengthTokens(lengths) {
	const tokens = [];
	for (let i = 0; i < lengths.length; ) {
		const len = lengths[i];
		let run = 1;
		while (i + run < lengths.length && lengths[i + run] === len) run++;
		i += run;
		if (len === 0) {
			for (; run >= 11; run -= Math.min(run, 138)) tokens.push([18, Math.min(run, 138) - 11, 7]);
			if (run >= 3) tokens.push([17, run - 3, 3]);
			else for (; run > 0; run--) tokens.push([0, 0, 0]);
			continue;
		}
		tokens.push([len, 0, 0]);
		for (run--; run >= 3; run -= Math.min(run, 6)) tokens.push([16, Math.min(run, 6) - 3, 2]);
		for (; run > 0; run--) tokens.push([len, 0, 0]);
	}
	return tokens;
}

/** Writes the prefix code for `counts`; returns its codes (symbol -> [bits, length]). */
function writeCode(w, counts) {
	const used = counts.map((c, s) => (c > 0 ? s : -1)).filter((s) => s >= 0);
	if (used.length <= 1 && (used[0] || 0) < 256) {
		// Simple code with one symbol (an unused alphabet is coded as symbol 0): no bits per pixel.
		const symbol = used[0] || 0;
		w.write(1, 1); // simple
		w.write(0, 1); // one symbol
		w.write(symbol > 1 ? 1 : 0, 1); // 8-bit symbol?
		w.write(symbol, symbol > 1 ? 8 : 1);
		return counts.map(() => [0, 0]);
	}
	const lengths = codeLengths(counts, MAX_CODE_LENGTH);
	const tokens = lengthTokens(lengths);
	const tokenCounts = new Array(CODE_LENGTH_ORDER.length).fill(0);
	for (const [symbol] of tokens) tokenCounts[symbol]++;
	const tokenLengths = codeLengths(tokenCounts, MAX_CODE_LENGTH_CODE_LENGTH);
	const tokenCodes = canonical(tokenLengths);
	let written = CODE_LENGTH_ORDER.length;
	while (written > 4 && tokenLengths[CODE_LENGTH_ORDER[written - 1]] === 0) written--;
	w.write(0, 1); // normal
	w.write(written - 4, 4);
	for (let i = 0; i < written; i++) w.write(tokenLengths[CODE_LENGTH_ORDER[i]], 3);
	w.write(0, 1); // lengths for the whole alphabet
	for (const [symbol, extra, extraBits] of tokens) {
		w.write(...tokenCodes[symbol]);
		w.write(extra, extraBits);
	}
	return canonical(lengths);
}

// ---------- pixels ----------
/** Prefix symbol and extra bits of a length or distance value (1-based; RFC 9649, 5.2.2). */
function prefixOf(value) {
	const n = value - 1;
	if (n < 4) return [n, 0, 0];
	const high = 31 - Math.clz32(n);
	const second = (n >> (high - 1)) & 1;
	const extraBits = high - 1;
	return [2 * high + second, n & ((1 << extraBits) - 1), extraBits];
}

/** Greedy LZ77 over ARGB pixels with the two copies: [kind, ...] tokens, literal or copy. */
function tokenize(argb, width) {
	const tokens = [];
	const total = argb.length;
	for (let p = 0; p < total; ) {
		let best = 0;
		let code = 0;
		for (const [distance, distanceCode] of [
			[1, LEFT],
			[width, ABOVE],
		]) {
			if (p < distance) continue;
			let len = 0;
			const limit = Math.min(MAX_COPY, total - p);
			while (len < limit && argb[p + len] === argb[p + len - distance]) len++;
			if (len > best) [best, code] = [len, distanceCode];
		}
		if (best >= MIN_COPY) {
			tokens.push({ length: best, distanceCode: code });
			p += best;
		} else {
			tokens.push({ pixel: argb[p] });
			p++;
		}
	}
	return tokens;
}

/**
 * A lossless WebP of `rgb` (3 bytes per pixel, rows top to bottom), opaque.
 */
function encodeWebp(rgb, width, height) {
	if (width > 16384 || height > 16384) throw new Error('webp: a side is larger than 16384');
	// Subtract green: red and blue as differences from green, which flat greys and gradients make small.
	const argb = new Uint32Array(width * height);
	for (let p = 0; p < argb.length; p++) {
		const g = rgb[p * 3 + 1];
		argb[p] = (0xff000000 | (((rgb[p * 3] - g) & 0xff) << 16) | (g << 8) | ((rgb[p * 3 + 2] - g) & 0xff)) >>> 0;
	}
	const tokens = tokenize(argb, width);
	const green = new Array(256 + NUM_LENGTH_CODES).fill(0);
	const [red, blue, alpha] = [0, 0, 0].map(() => new Array(256).fill(0));
	const distance = new Array(NUM_DISTANCE_CODES).fill(0);
	for (const t of tokens) {
		if (t.pixel !== undefined) {
			green[(t.pixel >>> 8) & 0xff]++;
			red[(t.pixel >>> 16) & 0xff]++;
			blue[t.pixel & 0xff]++;
			alpha[t.pixel >>> 24]++;
		} else {
			green[256 + prefixOf(t.length)[0]]++;
			distance[prefixOf(t.distanceCode)[0]]++;
		}
	}
	const w = new BitWriter();
	w.write(0x2f, 8); // VP8L signature
	w.write(width - 1, 14);
	w.write(height - 1, 14);
	w.write(0, 1); // alpha unused
	w.write(0, 3); // version
	w.write(1, 1); // a transform:
	w.write(SUBTRACT_GREEN, 2);
	w.write(0, 1); // no more transforms
	w.write(0, 1); // no colour cache
	w.write(0, 1); // no meta prefix codes: one group for the whole picture
	const codes = [green, red, blue, alpha, distance].map((counts) => writeCode(w, counts));
	const [gCodes, rCodes, bCodes, aCodes, dCodes] = codes;
	for (const t of tokens) {
		if (t.pixel !== undefined) {
			w.write(...gCodes[(t.pixel >>> 8) & 0xff]);
			w.write(...rCodes[(t.pixel >>> 16) & 0xff]);
			w.write(...bCodes[t.pixel & 0xff]);
			w.write(...aCodes[t.pixel >>> 24]);
		} else {
			const [lengthSymbol, lengthExtra, lengthBits] = prefixOf(t.length);
			w.write(...gCodes[256 + lengthSymbol]);
			w.write(lengthExtra, lengthBits);
			const [distanceSymbol, distanceExtra, distanceBits] = prefixOf(t.distanceCode);
			w.write(...dCodes[distanceSymbol]);
			w.write(distanceExtra, distanceBits);
		}
	}
	const data = w.finish();
	const padded = data.length + (data.length & 1);
	const header = Buffer.alloc(20);
	header.write('RIFF', 0, 'ascii');
	header.writeUInt32LE(12 + padded, 4);
	header.write('WEBPVP8L', 8, 'ascii');
	header.writeUInt32LE(data.length, 16);
	return Buffer.concat([header, data, Buffer.alloc(padded - data.length)]);
}

module.exports = { encodeWebp };
