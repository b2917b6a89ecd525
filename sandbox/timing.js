'use strict';
/**
 * How long runs take. A run's in_progress time is its mean × (1 + s), where s = spread × (u1 + u2 + u3) / 3
 * and u1..u3 are uniform on [-1, 1]: a bell-shaped (piecewise quadratic) law, symmetric, bounded by ±spread,
 * standard deviation spread / 3. Three uniforms rather than a normal law because the bound must be hard.
 *
 * The mean of a run: `modelDurations[model id | deployment id | deployment name]` (ms), else `runDurationMs`.
 *
 * Draws come from one seeded stream (`seed`), one draw per submitted run in submission order, whether or not
 * the spread is on, so the n-th run after a reset (or a new `seed`) always gets the n-th draw. With
 * `drawsPerTarget`, every model and deployment has its own copy of that stream: the n-th run of each gets the same
 * draw, so batches of different models submitted side by side run for the same times and compare fairly.
 */
const { mulberry32 } = require('./faults');

/** Above this the lower bound would reach 0 ms. */
const MAX_SPREAD = 0.9;
/** A run always spends some of its time in_progress. */
const MAX_QUEUE_SHARE = 0.95;

/** Separate streams: turning webhook chaos on must not change the run times. */
const STREAM_SALT = { runTimes: 0, webhookOrder: 0x9e3779b9, webhookDuplicates: 0x85ebca6b };

function seededStream(seed, stream) {
	return mulberry32((Number(seed) || 0) ^ STREAM_SALT[stream]);
}

function spreadOf(config) {
	const s = Number(config.spread);
	return Number.isFinite(s) && s > 0 ? Math.min(s, MAX_SPREAD) : 0;
}

/** Mean of three uniforms on [-1, 1]. */
function bellFraction(random) {
	return (random() * 2 - 1 + (random() * 2 - 1) + (random() * 2 - 1)) / 3;
}

/** The mean in_progress time of a run on `keys` (first key with a `modelDurations` entry wins). */
function meanRunMs(config, keys) {
	const overrides = config.modelDurations || {};
	for (const k of keys) if (k != null && overrides[k] != null) return Math.max(0, Number(overrides[k]) || 0);
	return Math.max(0, config.runDurationMs ?? 0);
}

/**
 * How a run's drawn time is spent: with a queue share (`queueShares[model id | deployment id | deployment name]`,
 * else `queueShare`, from 0 to 0.95) that share of it `in_queue` (with `queue_position`) and the rest
 * `in_progress`, as on the live service where a run often waits a good part of its time; without one, all of it
 * in_progress after the fixed `queueMs`. Returns the run's `durationMs` and, with a share, its `queueMs`.
 */
function queueSplit(config, keys, drawnMs) {
	const shares = config.queueShares || {};
	let share = config.queueShare;
	for (const k of keys)
		if (k != null && shares[k] != null) {
			share = shares[k];
			break;
		}
	const s = Number(share);
	if (share == null || !Number.isFinite(s) || s < 0) return { durationMs: drawnMs };
	const queueMs = Math.round(drawnMs * Math.min(s, MAX_QUEUE_SHARE));
	return { queueMs, durationMs: drawnMs - queueMs };
}

/** The stream the next run of `target` (a model or deployment id) draws from. */
function streamOf(sb, target) {
	if (!sb.config.drawsPerTarget) return sb.runTimeRandom;
	let stream = sb.runTimeStreams.get(target);
	if (!stream) {
		stream = seededStream(sb.config.seed, 'runTimes');
		sb.runTimeStreams.set(target, stream);
	}
	return stream;
}

/** Fresh run-time streams (after a reset or a new seed). */
function resetDraws(sb) {
	sb.runTimeRandom = seededStream(sb.config.seed, 'runTimes');
	sb.runTimeStreams = new Map();
}

/** One run of `target`: its in_progress time in whole ms, never outside mean × (1 ± spread). */
function drawRunMs(sb, target, mean) {
	const f = bellFraction(streamOf(sb, target));
	const spread = spreadOf(sb.config);
	if (!spread || mean <= 0) return Math.round(mean);
	const low = Math.ceil(mean * (1 - spread));
	const high = Math.floor(mean * (1 + spread));
	return Math.min(high, Math.max(low, Math.round(mean * (1 + spread * f))));
}

module.exports = { seededStream, meanRunMs, drawRunMs, queueSplit, resetDraws, bellFraction };
