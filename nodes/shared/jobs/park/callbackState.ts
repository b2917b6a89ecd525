/** What this process knows of each park while its callbacks come in: which jobs ended, and who checks or finishes. */
import { isTerminal } from '../../status';
import type { PollResult } from '../../wait';
import type { JobItem, JobKind, Tracked } from '../kind';

export interface ParkedState {
	/** Jobs known to have ended, with how that was learnt. */
	ended: Map<string, PollResult>;
	scanning: boolean;
	/** A final callback arrived while another one was checking: look again before settling on "still running". */
	lookAgain: boolean;
	finishing: boolean;
	touched: number;
}

const states = new Map<string, ParkedState>();
const FORGET_AFTER_MS = 24 * 60 * 60 * 1000;
const FORGET_FINISHED_AFTER_MS = 10 * 60 * 1000;

/**
 * The state of a park (created on first use; `parkId` undefined for executions parked by versions without park
 * ids).
 */
export function parkedState(executionId: string, parkId: string | undefined): ParkedState {
	const now = Date.now();
	for (const [key, st] of states) {
		if (now - st.touched > (st.finishing ? FORGET_FINISHED_AFTER_MS : FORGET_AFTER_MS)) states.delete(key);
	}
	const key = `${executionId}\u0000${parkId ?? ''}`;
	let st = states.get(key);
	if (!st) {
		st = { ended: new Map(), scanning: false, lookAgain: false, finishing: false, touched: now };
		states.set(key, st);
	}
	st.touched = now;
	return st;
}

export interface Scan {
	running: boolean;
	failed: boolean;
}

/** Checks the jobs not known to have ended, once each, in growing groups, stopping at a group with one still running. */
export async function checkOthers<P extends JobItem, O>(
	kind: JobKind<P, O>,
	tracked: Array<Tracked<P>>,
	callerIndex: number,
	st: ParkedState,
	concurrency: number,
): Promise<Scan> {
	const after = tracked.filter((t) => t.itemIndex > callerIndex);
	const before = tracked.filter((t) => t.itemIndex <= callerIndex);
	const seen = new Set<string>();
	const order: Array<Tracked<P>> = [];
	for (const t of [...after, ...before]) {
		if (seen.has(t.id) || st.ended.has(t.id)) continue;
		seen.add(t.id);
		order.push(t);
	}
	let failed = false;
	for (let start = 0, size = 1; start < order.length; start += size, size = Math.min(concurrency, size * 2)) {
		const group = order.slice(start, start + size).filter((t) => !st.ended.has(t.id));
		const polled = await Promise.all(
			group.map(async (t) => {
				try {
					return { t, r: await kind.poll(t) };
				} catch {
					return { t, r: undefined };
				}
			}),
		);
		let running = false;
		for (const { t, r } of polled) {
			if (!r) failed = true;
			else if (isTerminal(r.state)) st.ended.set(t.id, r);
			else running = true;
		}
		if (running) return { running: true, failed };
	}
	return { running: false, failed };
}
