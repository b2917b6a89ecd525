/**
 * The webhook of a parked batch (./park.ts). n8n calls it for every POST to the execution's resume URL (it has
 * already checked the URL's signature) while the execution waits. It never throws: a throw would answer 500 and
 * resume the workflow with an empty item.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { isTerminal, normaliseStatus } from '../../status';
import type { RunState } from '../../types';
import { finishParked } from '../flow';
import type { JobItem, JobKind, Tracked } from '../kind';
import { checkOthers, parkedState } from './callbackState';
import type { Scan } from './callbackState';
import { asExecuteContext, resumeContext, resumedBatch } from './finish';
import { parkedJobOf } from './park';
import type { ParkedJob } from './park';

/** The service wants an answer within 10 s; past this, the callback is answered before the checks end. */
const ANSWER_WITHIN_MS = 5_000;

const NO_RESPONSE: IWebhookResponseData = { noWebhookResponse: true };

interface Callback {
	index: number;
	job: ParkedJob;
	state: RunState;
	body: IDataObject;
}

/** Answers one callback; `makeKind` builds the node's job kind on a given context. */
export async function answerCallback<P extends JobItem, O>(
	ctx: IWebhookFunctions,
	makeKind: (ctx: IExecuteFunctions) => JobKind<P, O>,
): Promise<IWebhookResponseData> {
	const res = ctx.getResponseObject();
	let answered = false;
	const answer = (code: number, body: IDataObject) => {
		if (answered || res.headersSent) return;
		answered = true;
		res.status(code).json({ received: true, ...body });
	};
	const node = ctx.getNode().name;
	const executionId = String(ctx.getExecutionId?.() ?? '');
	try {
		const entries = parkedItems(ctx);
		const call = readCallback(ctx, entries);
		if ('ignored' in call) {
			ctx.logger.warn(`RunComfy: ignored a callback of node "${node}": ${call.detail}`, { node, executionId });
			answer(200, { ignored: call.ignored });
			return NO_RESPONSE;
		}
		if (!isTerminal(call.state)) {
			answer(200, {});
			return NO_RESPONSE;
		}
		const st = parkedState(executionId, call.job.park);
		// Only its status is kept: the result itself is fetched from the API when the batch is finished.
		st.ended.set(call.job.id, { state: call.state, record: { status: call.body.status ?? call.body.outcome } });
		if (st.finishing || st.scanning) {
			st.lookAgain = true;
			answer(200, {});
			return NO_RESPONSE;
		}
		const view = asExecuteContext(resumeContext(ctx, entries));
		const kind = makeKind(view);
		const parked = entries
			.map((item) => ({ item, job: parkedJobOf(item) }))
			.filter((j): j is { item: INodeExecutionData; job: ParkedJob } => j.job !== undefined);
		const tracked = parked.map(({ item, job }) => restore(kind, item, job));
		const concurrency = Math.max(1, Math.min(100, Number(call.job.concurrency) || 10));

		const timer = new AbortController();
		void sleep(ANSWER_WITHIN_MS, timer.signal).then(
			() => answer(200, {}),
			() => {},
		);
		let scan: Scan;
		st.scanning = true;
		try {
			do {
				st.lookAgain = false;
				scan = await checkOthers(kind, tracked, call.index, st, concurrency);
			} while (scan.running && st.lookAgain);
		} finally {
			st.scanning = false;
			timer.abort();
		}
		if (scan.running) {
			answer(200, {});
			return NO_RESPONSE;
		}
		if (scan.failed) {
			ctx.logger.warn(`RunComfy: a status check failed while node "${node}" was called back; asking RunComfy to call again`, {
				node,
				executionId,
			});
			answer(503, { retry: true });
			return NO_RESPONSE;
		}
		// Every job has ended: this callback finishes the batch.
		answer(200, {});
		st.finishing = true;
		let finished = false;
		try {
			const items = await finishParked(
				entries,
				resumedBatch(view, kind, entries, parked, tracked, call.job, st.ended, concurrency),
				call.job,
			);
			if (!items) {
				// A result said its job has not ended after all: forget what was learnt and wait for its callback.
				st.ended.clear();
				return NO_RESPONSE;
			}
			finished = true;
			ctx.logger.info(`RunComfy: resuming the parked execution (node "${node}", ${tracked.length} ${kind.noun.many})`, {
				node,
				executionId,
			});
			return { noWebhookResponse: true, workflowData: [items] };
		} finally {
			if (!finished) st.finishing = false;
		}
	} catch (error) {
		ctx.logger.error(`RunComfy: a callback of node "${node}" could not be handled: ${(error as Error)?.message ?? String(error)}`, {
			node,
			executionId,
		});
		answer(200, {});
		return NO_RESPONSE;
	}
}

/** The stack items the execution parked with (the node's input items as the webhook sees them). */
function parkedItems(ctx: IWebhookFunctions): INodeExecutionData[] {
	const all = ctx.evaluateExpression('{{ $input.all() }}', 0) as unknown;
	return Array.isArray(all) ? (all as INodeExecutionData[]) : [];
}

const firstString = (v: unknown): string | undefined => {
	const x = Array.isArray(v) ? v[0] : v;
	return typeof x === 'string' && x.trim() !== '' ? x.trim() : undefined;
};

/**
 * Which parked job a callback names, and how it says the job is; or why it is ignored (`ignored`: the answer's
 * short reason, `detail`: the log's, with ids).
 */
function readCallback(ctx: IWebhookFunctions, entries: INodeExecutionData[]): Callback | { ignored: string; detail: string } {
	const query = (ctx.getQueryData() ?? {}) as IDataObject;
	const raw = ctx.getBodyData() as unknown;
	const body = (typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? raw : {}) as IDataObject;
	const park = firstString(query.park);
	const current = entries.map(parkedJobOf).find((j) => j !== undefined)?.park;
	if (park !== current) {
		return {
			ignored: 'other park',
			detail: `the callback is for park ${park ?? '(none)'}, the execution is parked as park ${current ?? '(none)'}`,
		};
	}
	const itemText = firstString(query.item);
	const index = itemText !== undefined && /^\d+$/.test(itemText) ? Number(itemText) : NaN;
	if (!Number.isInteger(index)) return { ignored: 'no item', detail: 'the callback URL names no item' };
	const job = parkedJobOf(entries[index]);
	if (!job) return { ignored: 'unknown item', detail: `item ${index} has no parked request in this execution` };
	const id = firstString(body.request_id) ?? firstString(body.id);
	if (id !== job.id)
		return { ignored: 'unknown request', detail: `the body names request ${id ?? '(none)'}, not ${job.id} of item ${index}` };
	const state = normaliseStatus(body.status ?? body.outcome);
	return { index, job, state, body };
}

function restore<P extends JobItem, O>(kind: JobKind<P, O>, item: INodeExecutionData, job: ParkedJob): Tracked<P> {
	const p = (kind.park as NonNullable<JobKind<P, O>['park']>).restore(job.ids, job.item);
	const keys = Array.isArray(job.accepted) ? job.accepted : [];
	const accepted = Object.fromEntries(keys.filter((k) => k in item.json).map((k) => [k, item.json[k]])) as IDataObject;
	return { ...p, itemIndex: job.item, id: job.id, accepted };
}
