'use strict';
/**
 * Run state machine shared by model runs and deployment requests. Nothing runs on timers: the state is
 * computed from timestamps. A schedule per pool (all model runs share one pool, each deployment has its
 * own) places runs on `workers` slots in submission order; it depends only on events (submit, cancel,
 * delete, config), so it is cached until one of them bumps `sb.scheduleVersion`.
 */
const { uuid } = require('./util');

function createRun(sb, fields) {
	const now = Date.now();
	const run = {
		id: uuid(),
		createdAt: now,
		queueMs: Math.max(0, sb.config.queueMs ?? 0),
		durationMs: Math.max(0, sb.config.runDurationMs ?? 0),
		cancelAt: null,
		cancelRequestedAt: null,
		pollsSinceCancelRequest: 0,
		deleted: false,
		chargedMicro: 0,
		failure: null,
		...fields,
	};
	sb.runs.set(run.id, run);
	sb.scheduleVersion++;
	return run;
}

function schedule(sb, pool) {
	const cache = sb.scheduleCache;
	if (cache.version !== sb.scheduleVersion) {
		cache.version = sb.scheduleVersion;
		cache.pools = new Map();
	}
	let s = cache.pools.get(pool);
	if (s) return s;
	s = new Map();
	const workers = sb.config.workers > 0 ? Math.floor(sb.config.workers) : Infinity;
	const free = workers === Infinity ? null : new Array(workers).fill(-Infinity);
	for (const run of sb.runs.values()) {
		if (run.pool !== pool) continue;
		const ready = run.createdAt + run.queueMs;
		let idx = -1;
		let start = ready;
		if (free) {
			idx = 0;
			for (let i = 1; i < free.length; i++) if (free[i] < free[idx]) idx = i;
			start = Math.max(ready, free[idx]);
		}
		const c = run.cancelAt;
		if (c != null && c < start) {
			s.set(run.id, { start: null, end: c, cancelled: true });
			continue;
		}
		let end = start + run.durationMs;
		let cancelled = false;
		if (c != null && c < end) {
			end = c;
			cancelled = true;
		}
		if (free) free[idx] = end;
		s.set(run.id, { start, end, cancelled });
	}
	cache.pools.set(pool, s);
	return s;
}

/**
 * @returns {{ status: 'in_queue'|'in_progress'|'completed'|'cancelled', startedAt: number|null, finishedAt: number|null }}
 */
function runState(sb, run, now = Date.now()) {
	const e = schedule(sb, run.pool).get(run.id);
	if (e.cancelled && e.end <= now) return { status: 'cancelled', startedAt: e.start, finishedAt: e.end };
	if (e.start == null || now < e.start) return { status: 'in_queue', startedAt: null, finishedAt: null };
	if (now < e.end) return { status: 'in_progress', startedAt: e.start, finishedAt: null };
	return { status: 'completed', startedAt: e.start, finishedAt: e.end };
}

/** 1-based position among the runs of the same pool still waiting. */
function queuePosition(sb, run, now = Date.now()) {
	let pos = 1;
	for (const other of sb.runs.values()) {
		if (other === run) break;
		if (other.pool === run.pool && runState(sb, other, now).status === 'in_queue') pos++;
	}
	return pos;
}

function setCancel(sb, run, at) {
	run.cancelAt = run.cancelAt == null ? at : Math.min(run.cancelAt, at);
	sb.scheduleVersion++;
}

/** Status spelling under the quirks. */
function spellCancelled(sb) {
	return sb.config.quirks.americanCanceled ? 'canceled' : 'cancelled';
}

module.exports = { createRun, runState, queuePosition, setCancel, spellCancelled };
