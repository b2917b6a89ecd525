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
 */
import type { IDataObject } from 'n8n-workflow';

/** RunComfy retries a delivery for up to 24 h; twice that is kept. */
export const RETENTION_MS = 48 * 60 * 60 * 1000;
/** Entries kept in memory per trigger node. */
export const MEMORY_LIMIT = 20_000;
/** Entries copied into static data per trigger node (saved with the workflow on every fired delivery). */
export const STORED_LIMIT = 1_000;

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

/** Stored form: `{ [requestId]: [rank, at] }`. */
function merge(ledger: Map<string, Entry>, stored: unknown, now: number): void {
	if (typeof stored !== 'object' || stored === null) return;
	for (const [requestId, value] of Object.entries(stored as IDataObject)) {
		if (!Array.isArray(value)) continue;
		const [rank, at] = value.map(Number);
		if (!Number.isFinite(rank) || !Number.isFinite(at) || now - at > RETENTION_MS) continue;
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

/**
 * Decides one delivery and records it when it is new. Synchronous on purpose (see above): nothing may be awaited
 * between reading and writing the ledger.
 */
export function admit(scope: string, stored: unknown, requestId: string, rank: number, now: number): Verdict {
	const ledger = ledgerOf(scope);
	merge(ledger, stored, now);
	const known = ledger.get(requestId);
	if (known && known.rank > rank) return 'stale';
	if (known && known.rank === rank) return 'duplicate';
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
	if (ledger && known?.rank === rank) ledger.delete(requestId);
}

/** The newest STORED_LIMIT entries, in the stored form. */
export function storedForm(scope: string): IDataObject {
	const entries = [...ledgerOf(scope)].slice(-STORED_LIMIT);
	const out: IDataObject = {};
	for (const [requestId, entry] of entries) out[requestId] = [entry.rank, entry.at];
	return out;
}

/** The stage a request has reached in this process's ledger (0 when unknown). */
export function rankOf(scope: string, requestId: string): number {
	return ledgers.get(scope)?.get(requestId)?.rank ?? 0;
}

/** Whether a stored copy records the request at this stage (or further). */
export function storedHas(stored: unknown, requestId: string, rank: number): boolean {
	if (typeof stored !== 'object' || stored === null) return false;
	const entry = (stored as IDataObject)[requestId];
	return Array.isArray(entry) && Number(entry[0]) >= rank;
}
