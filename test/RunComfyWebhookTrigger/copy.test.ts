/**
 * The RunComfy Webhook Trigger's copy of its dedupe ledger in the workflow's static data: when a delivery saves
 * it, what it keeps and for how long (nodes/RunComfyWebhookTrigger/ledger.ts). Clock-free: every `now` is given.
 * The "database" below behaves as n8n's workflow row does: each request loads the copy when it arrives (as JSON),
 * and its write (when it changed the copy) lands whenever the test says, so parallel requests and writes landing
 * out of order are played exactly.
 */
import type { IDataObject } from 'n8n-workflow';

import {
	RECORD_CHARS,
	RETENTION_MS,
	SAVE_RETRY_MS,
	admit,
	copyParts,
	copyToSave,
	ledgerSize,
	release,
	shouldSaveCopy,
} from '../../nodes/RunComfyWebhookTrigger/ledger';
import type { DueSave, Verdict } from '../../nodes/RunComfyWebhookTrigger/ledger';
import { storedStages } from './storedCopy';

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
	const loaded = row.copy === undefined ? undefined : (JSON.parse(JSON.stringify(row.copy)) as IDataObject);
	const verdict = admit(scope, loaded, requestId, rank, now);
	const due = copyToSave(scope, loaded, now);
	return {
		verdict,
		due,
		land: () => {
			if (!due) return;
			row.copy = JSON.parse(JSON.stringify(due.copy)) as IDataObject;
			row.writes++;
			due.settle();
		},
	};
}

const ids = (n: number, prefix = 'req') => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
/** Which of `candidates` the row's copy holds, sorted. */
const storedIds = (row: Row, candidates: string[]) => Object.keys(storedStages(row.copy, candidates)).sort();

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

describe('copyToSave: saving the copy under load', () => {
	it('a burst of parallel deliveries saves once per database round trip, not once per delivery', () => {
		const scope = newProcess();
		const row: Row = { copy: undefined, writes: 0 };
		const waves = [ids(100, 'w1'), ids(60, 'w2'), ids(40, 'w3')];
		const all = waves.flat();
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
		expect(storedIds(row, all)).not.toEqual([...all].sort());
		// ... until the next delivery, a duplicate here, completes it.
		const late = deliver(row, scope, waves[0][0], (now += 1));
		expect(late.verdict).toBe('duplicate');
		late.land();
		expect(storedIds(row, all)).toEqual([...all].sort());
		// A complete copy is not saved again.
		expect(deliver(row, scope, waves[1][3], (now += 1)).due).toBeUndefined();

		// After a restart (a new process, the row as saved) every request is recognised.
		const restarted = newProcess();
		expect(all.map((id) => deliver(row, restarted, id, (now += 1)).verdict)).toEqual(all.map(() => 'duplicate'));
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
		expect(storedIds(row, ['a', 'b', 'c'])).toEqual(['a']);

		// A retried delivery of 'b' (nothing new in the ledger) finds the copy incomplete and saves it whole. A
		// count-based throttle (save every k-th fired delivery) would not save here, and a restart would fire b and
		// c again.
		const retried = deliver(row, scope, 'b', 1_000 + SAVE_RETRY_MS + 10);
		expect(retried.verdict).toBe('duplicate');
		expect(retried.due).toBeDefined();
		retried.land();
		expect(storedIds(row, ['a', 'b', 'c'])).toEqual(['a', 'b', 'c']);
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
		expect(storedIds(row, ['a', 'b'])).toEqual(['b']);
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
		expect(storedStages(again.due?.copy, ['a'])).toEqual({ a: [FINAL, 60_000] });
		// Each save's stamp is newer than the last one, even within one millisecond.
		expect(Number(again.due?.copy.savedAt)).toBeGreaterThan(Number(lost.due?.copy.savedAt));
	});

	it('a save whose request was answered no longer counts as in flight, even when an older write overwrote it', () => {
		const scope = newProcess();
		const row: Row = { copy: { deliveries: '', savedAt: 5 }, writes: 0 };
		const older = { ...row };
		const save = deliver(row, scope, 'a', 1_000);
		save.land();
		row.copy = older.copy; // e.g. another request's older write-back
		const next = deliver(row, scope, 'b', 2_001);
		expect(storedStages(next.due?.copy, ['a', 'b'])).toEqual({ a: [FINAL, 60_000], b: [FINAL, 60_000] });
	});

	it('a copy saved by another process is merged; if it may lack what this process knows, it is saved with both', () => {
		const mine = newProcess();
		const other = newProcess();
		const row: Row = { copy: undefined, writes: 0 };
		deliver(row, other, 'theirs', 1_000).land();
		const theirs = row.copy;
		deliver(row, mine, 'mine', 1_000).land();
		// The other process saved later (a newer stamp) from a copy without 'mine'.
		row.copy = { ...theirs, savedAt: 2_000 };
		const next = deliver(row, mine, 'theirs', 1_600);
		expect(next.verdict).toBe('duplicate');
		expect(storedStages(next.due?.copy, ['mine', 'theirs'])).toEqual({ mine: [FINAL, 60_000], theirs: [FINAL, 60_000] });
		next.land();
		// The other process, on its next delivery, learns 'mine'.
		expect(deliver(row, other, 'mine', 1_700).verdict).toBe('duplicate');
	});

	it('reads the forms saved by earlier versions (request ids, with and without a stamp) and upgrades them when it saves', () => {
		const scope = newProcess();
		const row: Row = { copy: { deliveries: { old: [FINAL, 900] } }, writes: 0 };
		expect(copyParts(row.copy)).toEqual({ deliveries: { old: [FINAL, 900] }, savedAt: undefined, by: undefined });
		const dup = deliver(row, scope, 'old', 1_000);
		expect(dup.verdict).toBe('duplicate');
		dup.land();
		const fresh = deliver(row, scope, 'new', 1_001);
		expect(storedStages(fresh.due?.copy, ['old', 'new'])).toEqual({ old: [FINAL, 60_000], new: [FINAL, 60_000] });
		expect(typeof fresh.due?.copy.deliveries).toBe('string');
		const stamped = newProcess();
		expect(deliver({ copy: { deliveries: { old: [FINAL, 900] }, savedAt: 950 }, writes: 0 }, stamped, 'old', 1_000).verdict).toBe(
			'duplicate',
		);
		expect(copyParts({ deliveries: '', savedAt: 'soon' }).savedAt).toBeUndefined();
		expect(copyParts('garbage')).toEqual({ deliveries: undefined, savedAt: undefined, by: undefined });
	});

	it('ignores a copy it cannot read, and starts from what it knows', () => {
		const scope = newProcess();
		for (const deliveries of ['not records', 42, null, ['a'], { a: 'x' }]) {
			expect(deliver({ copy: { deliveries, savedAt: 1, by: 'x' }, writes: 0 }, scope, 'a', 1_000).verdict).not.toBe('stale');
		}
		expect(ledgerSize(scope)).toBe(1);
	});

	it('multi-stage requests: a later stage makes the copy incomplete; a late earlier stage does not', () => {
		const scope = newProcess();
		const row: Row = { copy: undefined, writes: 0 };
		deliver(row, scope, 'a', 1_000, 1).land();
		expect(storedStages(row.copy, ['a'])).toEqual({ a: [1, 60_000] });
		const running = deliver(row, scope, 'a', 1_001, 2);
		expect(running.verdict).toBe('new');
		expect(storedStages(running.due?.copy, ['a'])).toEqual({ a: [2, 60_000] });
		running.land();
		const stale = deliver(row, scope, 'a', 1_002, 1);
		expect(stale).toMatchObject({ verdict: 'stale', due: undefined });
		// A copy at an earlier stage than the ledger (an older write landed last) is completed by a stale delivery.
		row.copy = { deliveries: { a: [1, 60_000] }, savedAt: 999_999 };
		const staleAgain = deliver(row, scope, 'a', 1_003, 1);
		expect(staleAgain.verdict).toBe('stale');
		expect(storedStages(staleAgain.due?.copy, ['a'])).toEqual({ a: [2, 60_000] });
	});
});

describe('what the copy keeps: every request of the last RETENTION_MS, forgotten by time', () => {
	const HOUR = 60 * 60 * 1000;
	const T0 = Date.UTC(2026, 0, 1);

	it('50,000 requests within 24 h are all recognised after a restart', () => {
		const scope = newProcess();
		const row: Row = { copy: undefined, writes: 0 };
		const all = ids(50_000, 'burst');
		// Admitted over 24 h; the row as a delivery's save left it (one save after the burst completes it).
		const fresh = all.filter((id, i) => admit(scope, undefined, id, FINAL, T0 + Math.floor((i * 24 * HOUR) / all.length)) === 'new');
		expect(fresh).toHaveLength(50_000);
		deliver(row, scope, all[0], T0 + 24 * HOUR).land();
		expect(ledgerSize(scope)).toBe(50_000);
		expect(Object.keys(storedStages(row.copy, all))).toHaveLength(50_000);
		// A restart: a fresh ledger from the row, every request a duplicate.
		const restarted = newProcess();
		const now = T0 + 24 * HOUR + 1_000;
		expect(all.filter((id) => admit(restarted, row.copy, id, FINAL, now) !== 'duplicate')).toEqual([]);
		expect(ledgerSize(restarted)).toBe(50_000);
	});

	it('a request is forgotten RETENTION_MS after it fired, in memory and in the copy a restart reads', () => {
		const scope = newProcess();
		const row: Row = { copy: undefined, writes: 0 };
		deliver(row, scope, 'old', T0).land();
		deliver(row, scope, 'recent', T0 + RETENTION_MS - HOUR).land();
		// Within the window: both remembered, in this process and after a restart.
		expect(deliver(row, scope, 'old', T0 + RETENTION_MS).verdict).toBe('duplicate');
		expect(deliver(row, newProcess(), 'old', T0 + RETENTION_MS).verdict).toBe('duplicate');
		// Past it, 'old' is forgotten (a restart does not bring it back); 'recent' is still known.
		const later = T0 + RETENTION_MS + 2_000;
		expect(deliver(row, newProcess(), 'old', later).verdict).toBe('new');
		expect(deliver(row, newProcess(), 'recent', later).verdict).toBe('duplicate');
		expect(deliver(row, scope, 'old', later).verdict).toBe('new');
	});

	it('the copy does not grow with time: records of forgotten requests are dropped as requests come', () => {
		const scope = newProcess();
		const row: Row = { copy: undefined, writes: 0 };
		// 20,000 requests over four windows, the row saved as they come.
		const all = ids(20_000, 'steady');
		const at = (i: number) => T0 + Math.floor((i * 4 * RETENTION_MS) / all.length);
		all.forEach((id, i) => (i % 500 === 499 ? deliver(row, scope, id, at(i)).land() : admit(scope, undefined, id, FINAL, at(i))));
		const live = ledgerSize(scope);
		expect(live).toBeGreaterThan(4_900);
		expect(live).toBeLessThanOrEqual(5_001);
		const records = String(row.copy?.deliveries).length / RECORD_CHARS;
		expect(records).toBeGreaterThanOrEqual(live);
		expect(records).toBeLessThanOrEqual(2 * live + 1_000);
		// What a restart reads back is the window only.
		const restarted = newProcess();
		admit(restarted, row.copy, 'probe', FINAL, at(all.length - 1));
		expect(ledgerSize(restarted)).toBeGreaterThanOrEqual(live + 1);
		expect(ledgerSize(restarted)).toBeLessThanOrEqual(live + 3);
	});
});
