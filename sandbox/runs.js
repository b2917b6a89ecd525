'use strict';
/**
 * Run state machine shared by model runs and deployment requests. Nothing runs on timers: the state is
 * computed from timestamps. A run is ready `queueMs` after its submission, then waits (in_queue, FIFO) for a
 * free slot in each limit it falls under, then runs (in_progress) for its drawn duration:
 *   - `capacity` / `capacities[id or name]`: concurrent runs per model and per deployment;
 *   - `workers` (older knob): concurrent runs of all models together, and per deployment.
 * The schedule places runs in submission order on those slots. It depends only on events (submit, cancel,
 * delete, config), so it is cached until one of them calls `touch`.
 */
const { uuid } = require('./util');

/** Records an event that changes the schedule; wakes the webhook watcher. */
function touch(sb) {
	sb.scheduleVersion++;
	if (sb.webhooks) sb.webhooks.wake();
}

/**
 * @param fields kind, target, pool keys, body, failure, chargedMicro, meanMs, durationMs, capacityKeys...
 */
function createRun(sb, fields) {
	const now = Date.now();
	const run = {
		id: uuid(),
		createdAt: now,
		queueMs: Math.max(0, sb.config.queueMs ?? 0),
		cancelAt: null,
		cancelRequestedAt: null,
		pollsSinceCancelRequest: 0,
		deleted: false,
		chargedMicro: 0,
		failure: null,
		...fields,
	};
	sb.runs.set(run.id, run);
	touch(sb);
	return run;
}

function positiveInt(v) {
	const n = Math.floor(Number(v));
	return Number.isFinite(n) && n > 0 ? n : 0;
}

/** The slot groups a run must hold a slot in: `[{ key, size }]` (none = starts as soon as it is ready). */
function limitGroups(sb, run) {
	const groups = [];
	const capacities = sb.config.capacities || {};
	const fromRecord = (run.capacityKeys || [run.target]).map((k) => positiveInt(capacities[k])).find((n) => n > 0);
	const capacity = fromRecord || positiveInt(sb.config.capacity);
	if (capacity) groups.push({ key: `capacity:${run.kind}:${run.target}`, size: capacity });
	const workers = positiveInt(sb.config.workers);
	if (workers) groups.push({ key: run.kind === 'model' ? 'workers:model' : `workers:${run.target}`, size: workers });
	return groups;
}

/** The queue a run's `queue_position` counts in: its tightest limit, else its model or deployment. */
function queueKey(sb, run) {
	const groups = limitGroups(sb, run);
	return groups.length ? groups[0].key : `${run.kind}:${run.target}`;
}

/** run id -> { start, end, cancelled } for every run (start null when cancelled before it started). */
function schedule(sb) {
	const cache = sb.scheduleCache;
	if (cache.version === sb.scheduleVersion) return cache.entries;
	const slots = new Map();
	const entries = new Map();
	for (const run of sb.runs.values()) {
		let start = run.createdAt + run.queueMs;
		const picks = [];
		for (const g of limitGroups(sb, run)) {
			let free = slots.get(g.key);
			if (!free) slots.set(g.key, (free = new Array(g.size).fill(-Infinity)));
			let idx = 0;
			for (let i = 1; i < free.length; i++) if (free[i] < free[idx]) idx = i;
			picks.push([free, idx]);
			start = Math.max(start, free[idx]);
		}
		const c = run.cancelAt;
		if (c != null && c < start) {
			entries.set(run.id, { start: null, end: c, cancelled: true });
			continue;
		}
		let end = start + run.durationMs;
		let cancelled = false;
		if (c != null && c < end) {
			end = c;
			cancelled = true;
		}
		for (const [free, idx] of picks) free[idx] = end;
		entries.set(run.id, { start, end, cancelled });
	}
	cache.version = sb.scheduleVersion;
	cache.entries = entries;
	return entries;
}

/** Planned start and end of a run under the current schedule (they move when runs ahead are cancelled). */
function scheduleEntry(sb, run) {
	return schedule(sb).get(run.id);
}

/**
 * @returns {{ status: 'in_queue'|'in_progress'|'completed'|'cancelled', startedAt: number|null, finishedAt: number|null }}
 */
function runState(sb, run, now = Date.now()) {
	const e = scheduleEntry(sb, run);
	if (e.cancelled && e.end <= now)
		return { status: 'cancelled', startedAt: e.start != null && e.start <= now ? e.start : null, finishedAt: e.end };
	if (e.start == null || now < e.start) return { status: 'in_queue', startedAt: null, finishedAt: null };
	if (now < e.end) return { status: 'in_progress', startedAt: e.start, finishedAt: null };
	return { status: 'completed', startedAt: e.start, finishedAt: e.end };
}

/** 1-based position among the runs of the same queue still waiting; counts down as runs ahead start. */
function queuePosition(sb, run, now = Date.now()) {
	const key = queueKey(sb, run);
	let pos = 1;
	for (const other of sb.runs.values()) {
		if (other === run) break;
		if (other.kind === run.kind && queueKey(sb, other) === key && runState(sb, other, now).status === 'in_queue') pos++;
	}
	return pos;
}

function setCancel(sb, run, at) {
	run.cancelAt = run.cancelAt == null ? at : Math.min(run.cancelAt, at);
	touch(sb);
}

/** Status spelling under the quirks. */
function spellCancelled(sb) {
	return sb.config.quirks.americanCanceled ? 'canceled' : 'cancelled';
}

module.exports = { createRun, runState, scheduleEntry, queuePosition, setCancel, spellCancelled, touch };
