/**
 * CONTRACT STUB (transport work implements): the one place where the service's status words become RunState.
 */
import type { IDataObject } from 'n8n-workflow';

import type { RunState } from './types';

/** `completed`/`succeeded` → succeeded; `failed`; `cancelled`/`canceled`/`CANCELED` → cancelled;
 * `cancellation_requested` → cancelling; `in_queue`/`IN_QUEUE` → queued; `in_progress`/`RUNNING` → running;
 * trainer `STOPPED` → stopped_finished or stopped_incomplete via `classifyStoppedJob`. */
export function normaliseStatus(_raw: unknown): RunState {
	throw new Error('not implemented yet');
}

/** Trainer STOPPED is finished only when progress reached total_steps (or total is 0/absent) and the
 * result carries no error; otherwise it is incomplete and can be resumed (as the CLI decides). */
export function classifyStoppedJob(_status: IDataObject, _result?: IDataObject): 'stopped_finished' | 'stopped_incomplete' {
	throw new Error('not implemented yet');
}

export const isTerminal = (state: RunState): boolean =>
	['succeeded', 'failed', 'cancelled', 'stopped_finished', 'stopped_incomplete'].includes(state);
