/**
 * A compact copy of what the store learned (./learning), to keep where n8n keeps a node's state between executions
 * and processes (workflow static data) and to merge back into a fresh process.
 *
 * What it holds: per timing key, only a hash of the key (so no model id, deployment id or input value is stored)
 * and the last PERSISTED_SAMPLES samples per source, in whole 10 ms; at most PERSISTED_KEYS keys, the most
 * recently saved first. No request ids, inputs or URLs. A few KB at most.
 *
 * Merging on read (`restoreRunTimes`): a key this process has learned anything about keeps what it learned (it saw
 * the same runs, or later ones); a key it knows nothing about gets the saved samples.
 *
 * Whether and where it is written is the caller's choice: n8n writes a workflow's static data back WHOLE when a
 * non-manual execution ends, so a regular node that changes it also writes back every other node's static data
 * as it was when the execution started (docs/waiting.md).
 */
import type { DurationSample } from './distribution';
import type { DurationSource, DurationStore } from './learning';

/** Keys kept in a saved copy. */
export const PERSISTED_KEYS = 50;
/** Samples kept per key and source in a saved copy. */
export const PERSISTED_SAMPLES = 12;
/** The saved copy's format. */
const VERSION = 1;
const STEP_MS = 10;
const SOURCES: Array<[DurationSource, string]> = [
	['total', 't'],
	['run', 'r'],
	['queueStep', 'q'],
];

/** The saved copy: `k` maps a key's hash to its samples as flat [lo, hi, lo, hi, …] lists in STEP_MS, per source. */
export interface SavedRunTimes {
	v: number;
	k: Record<string, { t?: number[]; r?: number[]; q?: number[]; s?: 1 }>;
}

/** A 53-bit FNV-1a style hash of a timing key, in base 36: the copy never holds the key itself. */
export function keyHash(key: string): string {
	let h1 = 0x811c9dc5;
	let h2 = 0x01000193;
	for (let i = 0; i < key.length; i++) {
		const c = key.charCodeAt(i);
		h1 = Math.imul(h1 ^ c, 0x01000193) >>> 0;
		h2 = Math.imul(h2 ^ c, 0x5bd1e995) >>> 0;
	}
	return ((h2 & 0x1fffff) * 2 ** 32 + h1).toString(36);
}

const isSaved = (value: unknown): value is SavedRunTimes =>
	typeof value === 'object' &&
	value !== null &&
	(value as SavedRunTimes).v === VERSION &&
	typeof (value as SavedRunTimes).k === 'object' &&
	(value as SavedRunTimes).k !== null;

const flat = (samples: readonly DurationSample[]): number[] =>
	samples.slice(-PERSISTED_SAMPLES).flatMap((s) => [Math.floor(s.lo / STEP_MS), Math.ceil(s.hi / STEP_MS)]);

/** A saved entry carried over, cut to the bound and to numbers; undefined when nothing of it is usable. */
function keptEntry(entry: unknown): SavedRunTimes['k'][string] | undefined {
	if (typeof entry !== 'object' || entry === null) return undefined;
	const kept: SavedRunTimes['k'][string] = {};
	for (const [, short] of SOURCES) {
		const list = (entry as Record<string, unknown>)[short];
		if (!Array.isArray(list)) continue;
		const numbers = list.slice(-2 * PERSISTED_SAMPLES).filter((n): n is number => typeof n === 'number' && Number.isFinite(n));
		if (numbers.length >= 2) kept[short as 't' | 'r' | 'q'] = numbers.slice(numbers.length % 2);
	}
	if ((entry as { s?: unknown }).s === 1) kept.s = 1;
	return kept.t || kept.r || kept.q ? kept : undefined;
}

/**
 * The saved copy `previous` with what `store` knows of `keys` put first (most recently saved), cut to
 * PERSISTED_KEYS keys. Keys the store knows nothing of keep their saved samples.
 */
export function saveRunTimes(store: DurationStore, keys: Iterable<string>, previous: unknown): SavedRunTimes {
	const next: SavedRunTimes['k'] = {};
	for (const key of new Set(keys)) {
		if (!store.has(key)) continue;
		const entry: SavedRunTimes['k'][string] = {};
		for (const [source, short] of SOURCES) {
			const list = flat(store.samples(key, source));
			if (list.length) entry[short as 't' | 'r' | 'q'] = list;
		}
		if (!store.pollsAtLowerEnd(key, 'total')) entry.s = 1;
		next[keyHash(key)] = entry;
	}
	if (isSaved(previous)) {
		for (const [hash, entry] of Object.entries(previous.k)) {
			if (Object.keys(next).length >= PERSISTED_KEYS) break;
			const kept = hash in next ? undefined : keptEntry(entry);
			if (kept) next[hash] = kept;
		}
	}
	const kept = Object.entries(next).slice(0, PERSISTED_KEYS);
	return { v: VERSION, k: Object.fromEntries(kept) };
}

/** Puts the saved samples of `keys` into `store`, for the keys it has learned nothing about. Ignores anything malformed. */
export function restoreRunTimes(store: DurationStore, keys: Iterable<string>, saved: unknown): number {
	if (!isSaved(saved)) return 0;
	let restored = 0;
	for (const key of new Set(keys)) {
		if (store.has(key)) continue;
		const entry = saved.k[keyHash(key)];
		if (typeof entry !== 'object' || entry === null) continue;
		for (const [source, short] of SOURCES) {
			const list = entry[short as 't' | 'r' | 'q'];
			if (!Array.isArray(list)) continue;
			for (let i = 0; i + 1 < list.length && i < 2 * PERSISTED_SAMPLES; i += 2) {
				const lo = Number(list[i]) * STEP_MS;
				const hi = Number(list[i + 1]) * STEP_MS;
				store.record(key, source, { lo, hi });
			}
		}
		if (entry.s === 1 && store.has(key)) store.markTimestamped(key);
		if (store.has(key)) restored++;
	}
	return restored;
}
