/**
 * Which deliveries a webhook trigger has already fired, so each request fires once per stage (queued, running,
 * finished) and never goes back (a late `in_progress` after `succeeded` is stale).
 *
 * Why memory first: n8n 2.41 gives webhook() no atomic store. `checkProcessedAndRecord` is not among
 * IWebhookFunctions' helpers (only execute/supply-data contexts have it, and it is a read-then-write on one
 * row anyway), and every webhook request loads the workflow's static data from the database before webhook()
 * runs and writes all of it back afterwards, so two parallel deliveries both see "not yet fired". The decision
 * is therefore taken in this process's memory, synchronously (no await between the check and the record): JS
 * runs one webhook() at a time up to its first await, so of any number of parallel deliveries of one request
 * and stage exactly one is admitted. The ledger is also copied into the workflow's static data (every request
 * of the last RETENTION_MS), so duplicates after a restart, or arriving at another n8n process, are still
 * recognised when the copy was saved before they came.
 *
 * The copy is one string of fixed-width records (a hash of the request id, the stage, the minute), kept
 * up to date as requests are recorded, so a delivery neither builds nor scans it: n8n loads and writes the row
 * whole on each request anyway, and a string is the cheapest thing for it to parse and write. A copy is read
 * record by record only when another process (or this one before a restart) saved it, once per saved copy.
 *
 * Why the copy is not saved on every fired delivery: n8n writes the whole workflow row (UPDATE) before it answers
 * each request that changed static data, and under a burst those writes queued RunComfy's answers past its 10 s.
 * So at most one save of ours is in flight per trigger node (see shouldSaveCopy): the next one is issued once the
 * last has completed, and a delivery whose loaded copy is not the newest this process made saves it whole, which
 * heals a copy an older write overwrote (parallel requests' writes can land out of order).
 */
import { createHash, randomBytes } from 'crypto';
import type { IDataObject } from 'n8n-workflow';

/** RunComfy retries a delivery for up to 24 h; twice that is kept. */
export const RETENTION_MS = 48 * 60 * 60 * 1000;
/**
 * Requests kept per trigger node, in memory and in the copy: a guard against unbounded growth only, twice a day's
 * burst of 100,000 requests kept for RETENTION_MS; below it, time alone decides what is forgotten.
 */
export const ENTRY_LIMIT = 200_000;

export type Verdict = 'new' | 'duplicate' | 'stale';

interface Entry {
	rank: number;
	at: number;
}

/** A record of the copy: the request id's hash (KEY_CHARS), its stage (one digit), the minute (base 36). */
export const KEY_CHARS = 12;
const TIME_CHARS = 5;
const MINUTE_MS = 60_000;
export const RECORD_CHARS = KEY_CHARS + 1 + TIME_CHARS;

/** The request id as the ledger keys it: 72 bits of its SHA-256 (the copy never holds the id itself). */
export const keyOf = (requestId: string): string => createHash('sha256').update(requestId).digest('base64url').slice(0, KEY_CHARS);

/** The time is rounded up, so a request is remembered a little longer, never shorter. */
const recordOf = (key: string, { rank, at }: Entry): string =>
	`${key}${rank}${Math.max(0, Math.ceil(at / MINUTE_MS))
		.toString(36)
		.padStart(TIME_CHARS, '0')}`;

/** The last copy this process put into static data for a trigger node. */
export interface IssuedSave {
	/** The stamp it carries (`savedAt`), unique and increasing per node in this process. */
	savedAt: number;
	/** Whether n8n has answered the request that carried it, which it does after the save (landed or failed). */
	settled: boolean;
}

/** One trigger node's ledger in this process. */
interface Ledger {
	/** Marks the copies saved from this ledger (`by`): such a copy holds nothing the ledger lacks. */
	tag: string;
	/** By request key, oldest first. */
	entries: Map<string, Entry>;
	/**
	 * The copy's records: one per admission or merge, appended; rebuilt from `entries` when a stage was given back
	 * or when forgotten and superseded records make up half of it.
	 */
	text: string;
	records: number;
	rebuild: boolean;
	/** Counts the changes a copy must carry (admissions, given-back stages, merged entries). */
	version: number;
	/** Stages given back (`release`), until a retry of that stage is admitted: a copy saved before must not bring them back. */
	released: Map<string, Entry>;
	/** The last copy merged from another process (`by` and `savedAt`), so it is read once. */
	merged: string | undefined;
	issued: (IssuedSave & { version: number }) | undefined;
}

/** One ledger per trigger node (workflow id + node id). */
const ledgers = new Map<string, Ledger>();

function ledgerOf(scope: string): Ledger {
	let ledger = ledgers.get(scope);
	if (!ledger) {
		const tag = randomBytes(9).toString('base64url');
		ledger = {
			tag,
			entries: new Map(),
			text: '',
			records: 0,
			rebuild: false,
			version: 0,
			released: new Map(),
			merged: undefined,
			issued: undefined,
		};
		ledgers.set(scope, ledger);
	}
	return ledger;
}

/** Records an entry (newest last) and its record in the copy. */
function put(ledger: Ledger, key: string, entry: Entry): void {
	ledger.entries.delete(key);
	ledger.entries.set(key, entry);
	ledger.text += recordOf(key, entry);
	ledger.records++;
	ledger.version++;
}

function take(ledger: Ledger, key: string, rank: number, at: number, now: number): void {
	if (!Number.isFinite(rank) || !Number.isFinite(at) || now - at > RETENTION_MS) return;
	const released = ledger.released.get(key);
	if (released && released.rank >= rank) return;
	const known = ledger.entries.get(key);
	if (!known || known.rank < rank) put(ledger, key, { rank, at });
}

/** The stored copy's parts; tolerant of anything (an older form, no copy, garbage). */
export function copyParts(loaded: unknown): { deliveries: unknown; savedAt: number | undefined; by: string | undefined } {
	if (typeof loaded !== 'object' || loaded === null) return { deliveries: undefined, savedAt: undefined, by: undefined };
	const { deliveries, savedAt, by } = loaded as IDataObject;
	return {
		deliveries,
		savedAt: typeof savedAt === 'number' && Number.isFinite(savedAt) ? savedAt : undefined,
		by: typeof by === 'string' ? by : undefined,
	};
}

/**
 * Takes into the ledger what a copy saved elsewhere holds (another process, or this process before a restart).
 * Reads the records (or the older form `{ [requestId]: [rank, at] }`) once per saved copy; skips copies of its own.
 */
function merge(ledger: Ledger, loaded: unknown, now: number): void {
	const { deliveries, savedAt, by } = copyParts(loaded);
	if (by === ledger.tag) return;
	const stamp = `${by}:${savedAt}`;
	if (by !== undefined && stamp === ledger.merged) return;
	if (typeof deliveries === 'string' && deliveries.length % RECORD_CHARS === 0) {
		for (let i = 0; i < deliveries.length; i += RECORD_CHARS) {
			const rank = deliveries.charCodeAt(i + KEY_CHARS) - 48;
			const minute = parseInt(deliveries.slice(i + KEY_CHARS + 1, i + RECORD_CHARS), 36);
			if (rank >= 1 && rank <= 9) take(ledger, deliveries.slice(i, i + KEY_CHARS), rank, minute * MINUTE_MS, now);
		}
	} else if (typeof deliveries === 'object' && deliveries !== null) {
		for (const [requestId, value] of Object.entries(deliveries as IDataObject)) {
			if (!Array.isArray(value)) continue;
			const [rank, at] = value.map(Number);
			take(ledger, keyOf(requestId), rank, at, now);
		}
	}
	if (by !== undefined) ledger.merged = stamp;
}

/** Forgets, oldest first, what is older than RETENTION_MS or beyond ENTRY_LIMIT; amortised constant per call. */
function prune(ledger: Ledger, now: number): void {
	for (const [key, entry] of ledger.entries) {
		if (ledger.entries.size <= ENTRY_LIMIT && now - entry.at <= RETENTION_MS) break;
		ledger.entries.delete(key);
	}
	for (const [key, entry] of ledger.released) {
		if (ledger.released.size <= ENTRY_LIMIT && now - entry.at <= RETENTION_MS) break;
		ledger.released.delete(key);
	}
}

function verdictOf(ledger: Ledger, key: string, rank: number, now: number): Verdict {
	const entry = ledger.entries.get(key);
	const known = entry && now - entry.at <= RETENTION_MS ? entry : undefined;
	if (known && known.rank > rank) return 'stale';
	if (known && known.rank === rank) return 'duplicate';
	return 'new';
}

/** What admit() would say now, without recording anything (merges the loaded copy like admit()). */
export function peek(scope: string, loaded: unknown, requestId: string, rank: number, now: number): Verdict {
	const ledger = ledgerOf(scope);
	merge(ledger, loaded, now);
	return verdictOf(ledger, keyOf(requestId), rank, now);
}

/**
 * Decides one delivery and records it when it is new (`loaded`: the node's copy as this request loaded it).
 * Synchronous on purpose (see above): nothing may be awaited between reading and writing the ledger.
 */
export function admit(scope: string, loaded: unknown, requestId: string, rank: number, now: number): Verdict {
	const ledger = ledgerOf(scope);
	merge(ledger, loaded, now);
	const key = keyOf(requestId);
	const verdict = verdictOf(ledger, key, rank, now);
	if (verdict !== 'new') return verdict;
	ledger.released.delete(key);
	put(ledger, key, { rank, at: now });
	prune(ledger, now);
	return 'new';
}

/** Gives a request back, e.g. when its delivery could not be turned into an execution, so a retry can fire. */
export function release(scope: string, requestId: string, rank: number): void {
	const ledger = ledgers.get(scope);
	const key = keyOf(requestId);
	const known = ledger?.entries.get(key);
	if (!ledger || known?.rank !== rank) return;
	ledger.entries.delete(key);
	ledger.released.set(key, known);
	ledger.rebuild = true;
	ledger.version++;
}

/** How many requests the ledger holds (tests and the benchmark). */
export const ledgerSize = (scope: string): number => ledgers.get(scope)?.entries.size ?? 0;

/** The copy's records, rebuilt first when they are mostly superseded or hold a stage given back. */
function recordsOf(ledger: Ledger): string {
	if (ledger.rebuild || ledger.records > 2 * ledger.entries.size + 1_000) {
		const parts: string[] = [];
		for (const [key, entry] of ledger.entries) parts.push(recordOf(key, entry));
		ledger.text = parts.join('');
		ledger.records = parts.length;
		ledger.rebuild = false;
	}
	return ledger.text;
}

// ------------------------------------------------------------------------------------------------------------
// Saving the copy

/** How long a save of ours that was not seen to complete is waited for: it can fail, or an older write overwrite it. */
export const SAVE_RETRY_MS = 1_500;

export interface SaveInputs {
	/** Whether the copy this request loaded holds everything the ledger knows. */
	complete: boolean;
	/** The loaded copy's stamp; undefined when it has none (saved before stamps existed, or no copy). */
	copySavedAt: number | undefined;
	/** This process's last save for the node, if any. */
	issued: IssuedSave | undefined;
	now: number;
}

/**
 * Whether this request puts the ledger's copy into static data: only when the loaded copy lacks something, and
 * only when no save of ours is in flight. One is no longer in flight once its request was answered, once a loaded
 * copy carries its stamp or a newer one (it landed, or another process saved after it), or SAVE_RETRY_MS after it
 * was issued (either way round, so a clock set back does not stop saving).
 */
export function shouldSaveCopy({ complete, copySavedAt, issued, now }: SaveInputs, retryMs = SAVE_RETRY_MS): boolean {
	if (complete) return false;
	if (!issued || issued.settled) return true;
	if (copySavedAt !== undefined && copySavedAt >= issued.savedAt) return true;
	return Math.abs(now - issued.savedAt) >= retryMs;
}

export interface DueSave {
	/** What goes into the node's key in the workflow's global static data. */
	copy: IDataObject;
	/** To be called once n8n has answered the request that carries the copy (the save is then done). */
	settle: () => void;
}

/**
 * The copy this request should put into static data (`loaded` is the node's copy as the request loaded it), or
 * undefined. A loaded copy holds everything when this process has learned nothing, or when it is this process's
 * newest save and nothing changed since. Records the save as issued; synchronous like admit().
 */
export function copyToSave(scope: string, loaded: unknown, now: number): DueSave | undefined {
	const ledger = ledgerOf(scope);
	const { savedAt: copySavedAt, by } = copyParts(loaded);
	const { issued } = ledger;
	const complete =
		ledger.version === 0 ||
		(by === ledger.tag && issued !== undefined && copySavedAt === issued.savedAt && issued.version === ledger.version);
	if (!shouldSaveCopy({ complete, copySavedAt, issued, now })) return undefined;
	const record = { savedAt: Math.max(now, (issued?.savedAt ?? 0) + 1), settled: false, version: ledger.version };
	ledger.issued = record;
	return {
		copy: { deliveries: recordsOf(ledger), savedAt: record.savedAt, by: ledger.tag },
		settle: () => {
			record.settled = true;
		},
	};
}
