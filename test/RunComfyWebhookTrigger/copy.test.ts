/**
 * The RunComfy Webhook Trigger's copy of its dedupe ledger in the workflow's static data: when a delivery saves
 * it (nodes/RunComfyWebhookTrigger/ledger.ts). Clock-free: every `now` is given. The "database" below behaves as
 * n8n's workflow row does: each request loads the copy when it arrives, and its write (when it changed the copy)
 * lands whenever the test says, so parallel requests and writes landing out of order are played exactly.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	SAVE_RETRY_MS,
	STORED_LIMIT,
	admit,
	copyParts,
	copyToSave,
	release,
	shouldSaveCopy,
	storedHoldsLedger,
} from '../../nodes/RunComfyWebhookTrigger/ledger';
import type { DueSave, Verdict } from '../../nodes/RunComfyWebhookTrigger/ledger';

const FINAL = 3;
let scopeCounter = 0;
/** A new trigger node in a new n8n process (the in-memory ledger and the saves issued are per scope). */
const newProcess = () => `copy-test-${++scopeCounter}:node`;

/** The workflow row: the node's copy as last written. */
interface Row {
	copy: IDataObject | undefined;
	writes: number;
}

interface Request {
	verdict: Verdict;
	due: DueSave | undefined;
	/** Its write-back (if it changed the copy) lands now; n8n then answers it. */
	land: () => void;
}

/** A delivery as n8n runs it: load the copy, decide (as handle.ts does), and hold the write until land(). */
function deliver(row: Row, scope: string, requestId: string, now: number, rank = FINAL): Request {
	const loaded = row.copy;
	const verdict = admit(scope, copyParts(loaded).deliveries, requestId, rank, now);
	const due = copyToSave(scope, loaded, now);
	return {
		verdict,
		due,
		land: () => {
			if (!due) return;
			row.copy = due.copy;
			row.writes++;
			due.settle();
		},
	};
}

const ids = (n: number, prefix = 'req') => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
const storedIds = (row: Row) => Object.keys((row.copy?.deliveries as IDataObject | undefined) ?? {}).sort();

describe('shouldSaveCopy: the decision', () => {
	const base = { complete: false, copySavedAt: undefined, issued: undefined, now: 10_000 };

	it('never saves a copy that holds everything', () => {
		expect(shouldSaveCopy({ ...base, complete: true })).toBe(false);
		expect(shouldSaveCopy({ ...base, complete: true, issued: { savedAt: 0, settled: true } })).toBe(false);
	});

	it('saves an incomplete copy when this process has no save in flight', () => {
		expect(shouldSaveCopy(base)).toBe(true);
		expect(shouldSaveCopy({ ...base, issued: { savedAt: 9_999, settled: true } })).toBe(true);
	});

	it('waits for a save in flight: until a loaded copy carries its stamp (or a newer one), or the retry interval passed', () => {
		const issued = { savedAt: 9_000, settled: false };
		expect(shouldSaveCopy({ ...base, issued, copySavedAt: 8_000, now: 9_000 + SAVE_RETRY_MS - 1 })).toBe(false);
		expect(shouldSaveCopy({ ...base, issued, copySavedAt: 9_000, now: 9_001 })).toBe(true);
		expect(shouldSaveCopy({ ...base, issued, copySavedAt: 9_500, now: 9_001 })).toBe(true);
		expect(shouldSaveCopy({ ...base, issued, copySavedAt: 8_000, now: 9_000 + SAVE_RETRY_MS })).toBe(true);
	});

	it('a copy without a stamp (saved by an earlier version) does not count as ours having landed', () => {
		const issued = { savedAt: 9_000, settled: false };
		expect(shouldSaveCopy({ ...base, issued, copySavedAt: undefined, now: 9_100 })).toBe(false);
		expect(shouldSaveCopy({ ...base, issued, copySavedAt: undefined, now: 9_000 + SAVE_RETRY_MS })).toBe(true);
	});

	it('a clock set back by more than the retry interval does not stop saving', () => {
		const issued = { savedAt: 9_000, settled: false };
		expect(shouldSaveCopy({ ...base, issued, copySavedAt: 1_000, now: 9_000 - SAVE_RETRY_MS })).toBe(true);
		expect(shouldSaveCopy({ ...base, issued, copySavedAt: 1_000, now: 8_999 })).toBe(false);
	});

	it('takes the retry interval as given', () => {
		const inputs = { ...base, issued: { savedAt: 9_000, settled: false }, copySavedAt: 0, now: 9_200 };
		expect(shouldSaveCopy(inputs, 100)).toBe(true);
		expect(shouldSaveCopy(inputs, 500)).toBe(false);
	});
});

describe('storedHoldsLedger: is the copy complete', () => {
	it('compares stages: a copy with a request at an earlier stage lacks it, at the same or a later one holds it', () => {
		const scope = newProcess();
		expect(storedHoldsLedger(scope, undefined)).toBe(true); // nothing known yet
		admit(scope, undefined, 'a', 2, 0);
		expect(storedHoldsLedger(scope, undefined)).toBe(false);
		expect(storedHoldsLedger(scope, { a: [1, 0] })).toBe(false);
		expect(storedHoldsLedger(scope, { a: [2, 0] })).toBe(true);
		expect(storedHoldsLedger(scope, { a: [3, 0], other: [3, 0] })).toBe(true);
		expect(storedHoldsLedger(scope, { a: 'garbage' })).toBe(false);
	});

	it('only the newest STORED_LIMIT entries have to be in the copy', () => {
		const scope = newProcess();
		const all = ids(STORED_LIMIT + 5);
		all.forEach((id, i) => admit(scope, undefined, id, FINAL, i));
		const newest = Object.fromEntries(all.slice(5).map((id) => [id, [FINAL, 0]]));
		expect(storedHoldsLedger(scope, newest)).toBe(true);
		delete newest[all[5]];
		expect(storedHoldsLedger(scope, newest)).toBe(false);
	});
});

describe('copyToSave: saving the copy under load', () => {
	it('a burst of parallel deliveries saves once per database round trip, not once per delivery', () => {
		const scope = newProcess();
		const row: Row = { copy: undefined, writes: 0 };
		const waves = [ids(100, 'w1'), ids(60, 'w2'), ids(40, 'w3')];
		let now = 1_000;
		for (const wave of waves) {
			// All of a wave arrive before any of its writes lands (they loaded the same copy).
			const requests = wave.map((id) => deliver(row, scope, id, (now += 1)));
			expect(requests.every((r) => r.verdict === 'new')).toBe(true);
			expect(requests.filter((r) => r.due)).toHaveLength(1);
			for (const r of requests) r.land();
		}
		// Each wave's one save was taken by its first delivery, so the copy lacks the rest of the last wave ...
		expect(row.writes).toBe(waves.length);
		expect(storedIds(row)).not.toEqual(waves.flat().sort());
		// ... until the next delivery, a duplicate here, completes it.
		const late = deliver(row, scope, waves[0][0], (now += 1));
		expect(late.verdict).toBe('duplicate');
		late.land();
		expect(storedIds(row)).toEqual(waves.flat().sort());
		// A complete copy is not saved again.
		expect(deliver(row, scope, waves[1][3], (now += 1)).due).toBeUndefined();

		// After a restart (a new process, the row as saved) every request is recognised.
		const restarted = newProcess();
		expect(waves.flat().map((id) => deliver(row, restarted, id, (now += 1)).verdict)).toEqual(waves.flat().map(() => 'duplicate'));
	});

	it('an older write landing after a newer one is healed by the next delivery, a duplicate too', () => {
		const scope = newProcess();
		const row: Row = { copy: undefined, writes: 0 };
		const first = deliver(row, scope, 'a', 1_000);
		expect(first.due).toBeDefined();
		// 'b' and 'c' come while the first save is in flight and not seen landed: no second save yet ...
		expect(deliver(row, scope, 'b', 1_100).due).toBeUndefined();
		// ... until the retry interval: then a second one, holding a, b and c, is issued.
		const second = deliver(row, scope, 'c', 1_000 + SAVE_RETRY_MS);
		expect(second.due).toBeDefined();
		second.land();
		first.land(); // the older write lands last: the row holds only 'a'
		expect(storedIds(row)).toEqual(['a']);

		// A retried delivery of 'b' (nothing new in the ledger) finds the copy incomplete and saves it whole. A
		// count-based throttle (save every k-th fired delivery) would not save here, and a restart would fire b and
		// c again.
		const retried = deliver(row, scope, 'b', 1_000 + SAVE_RETRY_MS + 10);
		expect(retried.verdict).toBe('duplicate');
		expect(retried.due).toBeDefined();
		retried.land();
		expect(storedIds(row)).toEqual(['a', 'b', 'c']);
		const restarted = newProcess();
		expect(['a', 'b', 'c'].map((id) => deliver(row, restarted, id, 5_000).verdict)).toEqual(['duplicate', 'duplicate', 'duplicate']);
	});

	it('a stage given back (its workflow could not start) is not brought back by a copy a parallel delivery saved', () => {
		const scope = newProcess();
		const row: Row = { copy: undefined, writes: 0 };
		// 'a' is admitted, a parallel delivery's save holding 'a' lands, then starting a's workflow fails.
		const a = deliver(row, scope, 'a', 1_000);
		a.land();
		release(scope, 'a', FINAL);
		// The next delivery loads that copy: 'a' stays given back, and the copy is saved again without it.
		const b = deliver(row, scope, 'b', 1_000 + SAVE_RETRY_MS);
		expect(b.due).toBeDefined();
		b.land();
		expect(storedIds(row)).toEqual(['b']);
		// RunComfy's retry of 'a' fires.
		expect(deliver(row, scope, 'a', 3_000 + SAVE_RETRY_MS).verdict).toBe('new');
	});

	it('a save that never lands (it failed, and n8n never answered) is retried after the retry interval', () => {
		const scope = newProcess();
		const row: Row = { copy: undefined, writes: 0 };
		const lost = deliver(row, scope, 'a', 1_000);
		expect(lost.due).toBeDefined(); // never lands, never settles
		expect(deliver(row, scope, 'a', 1_000 + SAVE_RETRY_MS - 1).due).toBeUndefined();
		const again = deliver(row, scope, 'a', 1_000 + SAVE_RETRY_MS);
		expect(again.due?.copy).toMatchObject({ deliveries: { a: [FINAL, 1_000] } });
		// Each save's stamp is newer than the last one, even within one millisecond.
		expect(Number(again.due?.copy.savedAt)).toBeGreaterThan(Number(lost.due?.copy.savedAt));
	});

	it('a save whose request was answered no longer counts as in flight, even when an older write overwrote it', () => {
		const scope = newProcess();
		const row: Row = { copy: { deliveries: {}, savedAt: 5 }, writes: 0 };
		const older = { ...row };
		const save = deliver(row, scope, 'a', 1_000);
		save.land();
		row.copy = older.copy; // e.g. another request's older write-back
		const next = deliver(row, scope, 'b', 1_001);
		expect(next.due?.copy.deliveries).toEqual({ a: [FINAL, 1_000], b: [FINAL, 1_001] });
	});

	it('a copy saved by another process is merged; if it lacks what this process knows, it is saved with both', () => {
		const mine = newProcess();
		const other = newProcess();
		const row: Row = { copy: undefined, writes: 0 };
		deliver(row, mine, 'mine', 1_000).land();
		// The other process saved later (a newer stamp) from a copy without 'mine'.
		row.copy = { deliveries: { theirs: [FINAL, 1_500] }, savedAt: 2_000 };
		const next = deliver(row, mine, 'theirs', 1_600);
		expect(next.verdict).toBe('duplicate');
		expect(next.due?.copy.deliveries).toEqual({ mine: [FINAL, 1_000], theirs: [FINAL, 1_500] });
		next.land();
		// The other process, on its next delivery, learns 'mine' and finds the copy complete.
		const there = deliver(row, other, 'mine', 1_700);
		expect(there).toMatchObject({ verdict: 'duplicate', due: undefined });
	});

	it('reads the old form without a stamp and upgrades it when it saves', () => {
		const scope = newProcess();
		const row: Row = { copy: { deliveries: { old: [FINAL, 900] } }, writes: 0 };
		expect(copyParts(row.copy)).toEqual({ deliveries: { old: [FINAL, 900] }, savedAt: undefined });
		const dup = deliver(row, scope, 'old', 1_000);
		expect(dup).toMatchObject({ verdict: 'duplicate', due: undefined }); // the old copy holds everything
		const fresh = deliver(row, scope, 'new', 1_001);
		expect(fresh.due?.copy).toEqual({ deliveries: { old: [FINAL, 900], new: [FINAL, 1_001] }, savedAt: 1_001 });
		expect(copyParts({ deliveries: {}, savedAt: 'soon' }).savedAt).toBeUndefined();
		expect(copyParts('garbage')).toEqual({ deliveries: undefined, savedAt: undefined });
	});

	it('multi-stage requests: a later stage makes the copy incomplete; a late earlier stage does not', () => {
		const scope = newProcess();
		const row: Row = { copy: undefined, writes: 0 };
		deliver(row, scope, 'a', 1_000, 1).land();
		expect(row.copy?.deliveries).toEqual({ a: [1, 1_000] });
		const running = deliver(row, scope, 'a', 1_001, 2);
		expect(running.verdict).toBe('new');
		expect(running.due?.copy.deliveries).toEqual({ a: [2, 1_001] });
		running.land();
		const stale = deliver(row, scope, 'a', 1_002, 1);
		expect(stale).toMatchObject({ verdict: 'stale', due: undefined });
		// A copy at an earlier stage than the ledger (an older write landed last) is completed by a stale delivery.
		row.copy = { deliveries: { a: [1, 1_000] }, savedAt: 999_999 };
		const staleAgain = deliver(row, scope, 'a', 1_003, 1);
		expect(staleAgain.verdict).toBe('stale');
		expect(staleAgain.due?.copy.deliveries).toEqual({ a: [2, 1_001] });
	});
});
