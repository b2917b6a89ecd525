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
 * and stage exactly one is admitted. The ledger is also copied into the workflow's static data (the newest
 * STORED_LIMIT entries, RETENTION_MS) and merged back on every delivery, so duplicates after a restart, or
 * arriving at another n8n process, are still recognised when the copy was saved before they came.
 *
 * Why the copy is not saved on every fired delivery: n8n writes the whole workflow row (UPDATE) before it answers
 * each request that changed static data, and under a burst those writes queued RunComfy's answers past its 10 s.
 * So at most one save of ours is in flight per trigger node (see shouldSaveCopy): the next one is issued once the
 * last has completed, and a delivery whose loaded copy lacks anything the ledger knows saves it whole, which
 * heals a copy an older write overwrote (parallel requests' writes can land out of order).
 */
import type { IDataObject } from 'n8n-workflow';

/** RunComfy retries a delivery for up to 24 h; twice that is kept. */
export const RETENTION_MS = 48 * 60 * 60 * 1000;
/** Entries kept in memory per trigger node. */
export const MEMORY_LIMIT = 20_000;
/**
 * Entries copied into static data per trigger node (saved with the workflow when the copy lacks some, see below):
 * a bound on the row's size only; below it, every request of the last RETENTION_MS survives a restart.
 */
export const STORED_LIMIT = 5_000;

export type Verdict = 'new' | 'duplicate' | 'stale';

interface Entry {
	rank: number;
	at: number;
}

/** One ledger per trigger node (workflow id + node id), newest entries last. */
const ledgers = new Map<string, Map<string, Entry>>();

function ledgerOf(scope: string): Map<string, Entry> {
	let ledger = ledgers.get(scope);
	if (!ledger) {
		ledger = new Map();
		ledgers.set(scope, ledger);
	}
	return ledger;
}

/**
 * Stages given back (`release`) per trigger node, until a retry of that stage is admitted: a copy saved by a
 * parallel delivery before the give-back still holds them, and must not bring them back.
 */
const releasedStages = new Map<string, Map<string, Entry>>();

const isReleased = (scope: string, requestId: string, rank: number): boolean => {
	const released = releasedStages.get(scope)?.get(requestId);
	return released !== undefined && released.rank >= rank;
};

/** Stored form: `{ [requestId]: [rank, at] }`. */
function merge(scope: string, ledger: Map<string, Entry>, stored: unknown, now: number): void {
	if (typeof stored !== 'object' || stored === null) return;
	for (const [requestId, value] of Object.entries(stored as IDataObject)) {
		if (!Array.isArray(value)) continue;
		const [rank, at] = value.map(Number);
		if (!Number.isFinite(rank) || !Number.isFinite(at) || now - at > RETENTION_MS) continue;
		if (isReleased(scope, requestId, rank)) continue;
		const known = ledger.get(requestId);
		if (!known || known.rank < rank) ledger.set(requestId, { rank, at });
	}
}

function prune(ledger: Map<string, Entry>, now: number): void {
	for (const [requestId, entry] of ledger) {
		if (ledger.size <= MEMORY_LIMIT && now - entry.at <= RETENTION_MS) break;
		ledger.delete(requestId);
	}
}

/** What admit() would say now, without recording anything (merges the stored copy like admit()). */
export function peek(scope: string, stored: unknown, requestId: string, rank: number, now: number): Verdict {
	const ledger = ledgerOf(scope);
	merge(scope, ledger, stored, now);
	const known = ledger.get(requestId);
	if (known && known.rank > rank) return 'stale';
	if (known && known.rank === rank) return 'duplicate';
	return 'new';
}

/**
 * Decides one delivery and records it when it is new. Synchronous on purpose (see above): nothing may be awaited
 * between reading and writing the ledger.
 */
export function admit(scope: string, stored: unknown, requestId: string, rank: number, now: number): Verdict {
	const ledger = ledgerOf(scope);
	merge(scope, ledger, stored, now);
	const known = ledger.get(requestId);
	if (known && known.rank > rank) return 'stale';
	if (known && known.rank === rank) return 'duplicate';
	releasedStages.get(scope)?.delete(requestId);
	// Re-inserted so the map stays ordered by the time of the last event.
	ledger.delete(requestId);
	ledger.set(requestId, { rank, at: now });
	prune(ledger, now);
	return 'new';
}

/** Gives a request back, e.g. when its delivery could not be turned into an execution, so a retry can fire. */
export function release(scope: string, requestId: string, rank: number): void {
	const ledger = ledgers.get(scope);
	const known = ledger?.get(requestId);
	if (!ledger || known?.rank !== rank) return;
	ledger.delete(requestId);
	let released = releasedStages.get(scope);
	if (!released) {
		released = new Map();
		releasedStages.set(scope, released);
	}
	released.set(requestId, known);
	// Bounded like the ledger: a stage nobody retries within RETENTION_MS is not coming back.
	for (const [id, entry] of released) {
		if (released.size <= MEMORY_LIMIT && known.at - entry.at <= RETENTION_MS) break;
		released.delete(id);
	}
}

/** The newest STORED_LIMIT entries, in the stored form. */
export function storedForm(scope: string): IDataObject {
	const entries = [...ledgerOf(scope)].slice(-STORED_LIMIT);
	const out: IDataObject = {};
	for (const [requestId, entry] of entries) out[requestId] = [entry.rank, entry.at];
	return out;
}

/** Whether a stored copy records every one of the newest STORED_LIMIT entries of the ledger, each at its stage. */
export function storedHoldsLedger(scope: string, stored: unknown): boolean {
	const ledger = ledgers.get(scope);
	// A copy that still holds a stage given back is saved again without it, so a restart does not bring it back.
	const released = releasedStages.get(scope);
	if (released?.size && typeof stored === 'object' && stored !== null) {
		for (const [requestId, entry] of released) {
			const value = (stored as IDataObject)[requestId];
			if (Array.isArray(value) && Number(value[0]) === entry.rank) return false;
		}
	}
	if (!ledger || ledger.size === 0) return true;
	if (typeof stored !== 'object' || stored === null) return false;
	let older = ledger.size - STORED_LIMIT;
	for (const [requestId, entry] of ledger) {
		if (older-- > 0) continue;
		const value = (stored as IDataObject)[requestId];
		if (!Array.isArray(value) || !(Number(value[0]) >= entry.rank)) return false;
	}
	return true;
}

// ------------------------------------------------------------------------------------------------------------
// Saving the copy

/** How long a save of ours that was not seen to complete is waited for: it can fail, or an older write overwrite it. */
export const SAVE_RETRY_MS = 1_500;

/** The last copy this process put into static data for a trigger node. */
export interface IssuedSave {
	/** The stamp it carries (`savedAt`), unique and increasing per node in this process. */
	savedAt: number;
	/** Whether n8n has answered the request that carried it, which it does after the save (landed or failed). */
	settled: boolean;
}

export interface SaveInputs {
	/** Whether the copy this request loaded holds everything the ledger knows (storedHoldsLedger). */
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

const issuedSaves = new Map<string, IssuedSave>();

export interface DueSave {
	/** What goes into the node's key in the workflow's global static data. */
	copy: IDataObject;
	/** To be called once n8n has answered the request that carries the copy (the save is then done). */
	settle: () => void;
}

/** The stored copy's parts; tolerant of anything (an old form without `savedAt`, no copy, garbage). */
export function copyParts(loaded: unknown): { deliveries: unknown; savedAt: number | undefined } {
	if (typeof loaded !== 'object' || loaded === null) return { deliveries: undefined, savedAt: undefined };
	const { deliveries, savedAt } = loaded as IDataObject;
	return { deliveries, savedAt: typeof savedAt === 'number' && Number.isFinite(savedAt) ? savedAt : undefined };
}

/**
 * The copy this request should put into static data (`loaded` is the node's copy as the request loaded it), or
 * undefined. Records the save as issued; synchronous like admit().
 */
export function copyToSave(scope: string, loaded: unknown, now: number): DueSave | undefined {
	const { deliveries, savedAt: copySavedAt } = copyParts(loaded);
	const issued = issuedSaves.get(scope);
	if (!shouldSaveCopy({ complete: storedHoldsLedger(scope, deliveries), copySavedAt, issued, now })) return undefined;
	const record: IssuedSave = { savedAt: Math.max(now, (issued?.savedAt ?? 0) + 1), settled: false };
	issuedSaves.set(scope, record);
	return {
		copy: { deliveries: storedForm(scope), savedAt: record.savedAt },
		settle: () => {
			record.settled = true;
		},
	};
}
