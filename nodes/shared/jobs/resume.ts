/**
 * The webhook of a parked batch (./park.ts). n8n calls it for every POST to the execution's resume URL (it has
 * already checked the URL's signature) while the execution waits. It never throws: a throw would answer 500 and
 * resume the workflow with an empty item.
 *
 * 1. The callback must name a job of this execution: `item` (query) and the body's id (`request_id`) must match
 *    a parked item. Anything else is acknowledged and ignored (logged).
 * 2. Intermediate events (`in_queue`, `in_progress`) are acknowledged; nothing changes.
 * 3. A final event (`succeeded`, `failed`, `cancelled`/`canceled`): the other jobs are checked once, starting
 *    after the calling item and wrapping around, in groups growing from one to "Parallel Status Checks",
 *    stopping at the first one still running. If one is still running, the callback is acknowledged and the execution stays parked
 *    (its own callback comes later). If a check failed, the answer is 503, so the service delivers it again.
 * 4. All ended: the service gets its 200 at once (it expects one within 10 s), then every result is fetched
 *    once, judged and presented (downloads) by the kind exactly as in-process, and the execution resumes with
 *    one item per input item: `delivered_by` says whether this callback or a status check saw the job end.
 *
 * Duplicate and out-of-order deliveries change nothing: each callback checks the others itself, so whichever
 * arrives when every job has ended finishes the batch; while this process finishes it (and for a while after),
 * further callbacks that see the same are only acknowledged; once n8n runs the execution, n8n answers 409.
 * A parked node cannot fail the workflow after it resumes (n8n resumes it without running it), so failed jobs
 * are output as items with `error`, as under "On Error: Continue".
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { DownloadHosts } from '../outputs';
import { isTerminal, normaliseStatus } from '../status';
import type { RunState } from '../types';
import type { PollResult } from '../wait';
import type { Batch, Checked } from './flow';
import type { JobItem, JobKind, Tracked } from './kind';
import { beginTry } from './memory';
import type { ReadWaitOptions } from './options';
import { presentOutcomes } from './outcomes';
import { markDelivered, parkedJobOf } from './park';
import type { ParkedJob } from './park';
import { jobTexts } from './texts';
import type { JobEnd } from './waiting';
import { fetchResults } from './waiting';

/** The service wants an answer within 10 s; past this, the callback is answered before the checks end. */
const ANSWER_WITHIN_MS = 5_000;

/** Executions whose batch this process is finishing (or finished recently), by execution id. */
const finishing = new Map<string, number>();
const KEEP_FINISHED_MS = 10 * 60 * 1000;

const NO_RESPONSE: IWebhookResponseData = { noWebhookResponse: true };

interface Callback {
	index: number;
	job: ParkedJob;
	state: RunState;
	body: IDataObject;
}

/** Answers one callback (see the file comment); `makeKind` builds the node's job kind on a given context. */
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
			ctx.logger.warn(`RunComfy: ignored a callback of node "${node}": ${call.ignored}`, { node, executionId });
			answer(200, { ignored: call.ignored });
			return NO_RESPONSE;
		}
		sweep();
		if (!isTerminal(call.state) || finishing.has(executionId)) {
			answer(200, {});
			return NO_RESPONSE;
		}
		const view = executeView(ctx, entries);
		const kind = makeKind(view);
		const parked = entries
			.map((item, i) => ({ item, i, job: parkedJobOf(item) }))
			.filter((j): j is { item: INodeExecutionData; i: number; job: ParkedJob } => j.job !== undefined);
		const tracked = parked.map(({ job }) => restore(kind, job));
		const concurrency = Math.max(1, Math.min(100, Number(call.job.concurrency) || 10));

		const timer = new AbortController();
		void sleep(ANSWER_WITHIN_MS, timer.signal).then(
			() => answer(200, {}),
			() => {},
		);
		let scan: Scan;
		try {
			scan = await checkOthers(kind, tracked, call, concurrency);
		} finally {
			timer.abort();
		}
		if (scan.running) {
			answer(200, {});
			return NO_RESPONSE;
		}
		if (scan.failed) {
			ctx.logger.warn(`RunComfy: a status check failed while node "${node}" was called back; asking RunComfy to call again`, { node, executionId });
			answer(503, { retry: true });
			return NO_RESPONSE;
		}
		answer(200, {});
		// Every job has ended: one callback finishes the batch (others that see the same are only acknowledged).
		if (finishing.has(executionId)) return NO_RESPONSE;
		finishing.set(executionId, Date.now());
		let finished = false;
		try {
			const items = await finish(view, kind, entries, parked, tracked, call, scan.records, concurrency);
			if (!items) return NO_RESPONSE;
			finished = true;
			ctx.logger.info(`RunComfy: resuming the parked execution (node "${node}", ${tracked.length} ${kind.noun.many})`, { node, executionId });
			return { noWebhookResponse: true, workflowData: [items] };
		} finally {
			if (!finished) finishing.delete(executionId);
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

function sweep(): void {
	const now = Date.now();
	for (const [id, since] of finishing) if (now - since > KEEP_FINISHED_MS) finishing.delete(id);
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

/** Which parked job a callback names, and how it says the job is; or why it is ignored. */
function readCallback(ctx: IWebhookFunctions, entries: INodeExecutionData[]): Callback | { ignored: string } {
	const query = (ctx.getQueryData() ?? {}) as IDataObject;
	const raw = ctx.getBodyData() as unknown;
	const body = (typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? raw : {}) as IDataObject;
	const itemText = firstString(query.item);
	const index = itemText !== undefined && /^\d+$/.test(itemText) ? Number(itemText) : NaN;
	if (!Number.isInteger(index)) return { ignored: 'the callback URL names no item' };
	const job = parkedJobOf(entries[index]);
	if (!job) return { ignored: `item ${index} has no parked request in this execution` };
	const id = firstString(body.request_id) ?? firstString(body.id);
	if (id !== job.id) return { ignored: `the body names request ${id ?? '(none)'}, not ${job.id} of item ${index}` };
	const state = normaliseStatus(body.status ?? body.outcome);
	return { index, job, state, body };
}

function restore<P extends JobItem, O>(kind: JobKind<P, O>, job: ParkedJob): Tracked<P> {
	const p = (kind.park as NonNullable<JobKind<P, O>['park']>).restore(job.ids, job.item);
	return { ...p, itemIndex: job.item, id: job.id, accepted: job.accepted };
}

interface Scan {
	running: boolean;
	failed: boolean;
	/** The last status of every other job checked. */
	records: Map<string, PollResult>;
}

/**
 * Step 3: checks the other jobs once, starting after the calling item and wrapping around, in groups that grow
 * from one up to `concurrency`, and stops after the first group with a job still running: a batch whose jobs
 * end in order costs one check per callback, and the last callback checks the rest in a few rounds.
 */
async function checkOthers<P extends JobItem, O>(
	kind: JobKind<P, O>,
	tracked: Array<Tracked<P>>,
	call: Callback,
	concurrency: number,
): Promise<Scan> {
	const after = tracked.filter((t) => t.itemIndex > call.index);
	const before = tracked.filter((t) => t.itemIndex <= call.index);
	const seen = new Set<string>([call.job.id]);
	const order: Array<Tracked<P>> = [];
	for (const t of [...after, ...before]) {
		if (seen.has(t.id)) continue;
		seen.add(t.id);
		order.push(t);
	}
	const records = new Map<string, PollResult>();
	let failed = false;
	for (let start = 0, size = 1; start < order.length; start += size, size = Math.min(concurrency, size * 2)) {
		const group = order.slice(start, start + size);
		const polled = await Promise.all(
			group.map(async (t) => {
				try {
					return { t, r: await kind.poll(t) };
				} catch {
					return { t, r: undefined };
				}
			}),
		);
		for (const { t, r } of polled) {
			if (!r) failed = true;
			else records.set(t.id, r);
		}
		if (polled.some(({ r }) => r !== undefined && !isTerminal(r.state))) return { running: true, failed, records };
	}
	return { running: false, failed, records };
}

/**
 * Step 4: fetches, judges and presents every job; undefined (stay parked) when a fetched result says its job
 * has not ended after all.
 */
async function finish<P extends JobItem, O>(
	view: IExecuteFunctions,
	kind: JobKind<P, O>,
	entries: INodeExecutionData[],
	parked: Array<{ item: INodeExecutionData; i: number; job: ParkedJob }>,
	tracked: Array<Tracked<P>>,
	call: Callback,
	records: Map<string, PollResult>,
	concurrency: number,
): Promise<INodeExecutionData[] | undefined> {
	const wait: ReadWaitOptions = {
		enabled: true,
		mode: 'park',
		initialIntervalMs: 1000,
		maxIntervalMs: 1000,
		maxWaitMs: Math.max(0, Date.parse(call.job.until) - Date.now()),
		concurrency,
		onTimeout: call.job.on_timeout === 'returnRunning' ? 'returnRunning' : 'fail',
		cancelOnStop: false,
	};
	const batch: Batch<P, O> = {
		ctx: view,
		kind,
		items: entries,
		output: new Array(entries.length),
		continueOnFail: true,
		memory: beginTry(view),
		checked: parked.map(({ job }, n): Checked<P, O> => ({ p: tracked[n], options: job.options as O, wait })),
		texts: jobTexts(kind.noun),
		hosts: new DownloadHosts(view),
		shape: (json) => json,
	};
	const firstOf = new Map<string, Tracked<P>>();
	for (const t of tracked) if (!firstOf.has(t.id)) firstOf.set(t.id, t);
	const ends = new Map<string, JobEnd>();
	for (const [id, t] of firstOf) {
		const polled = id === call.job.id ? { state: call.state, record: call.body } : records.get(id);
		const record = polled?.record ?? {};
		ends.set(id, {
			outcome: { kind: 'done', job: { itemIndex: t.itemIndex, id, poll: async () => await kind.poll(t) }, state: polled?.state ?? 'unknown', record, polls: 1 },
		});
	}
	try {
		await fetchResults(batch, firstOf, ends, concurrency);
		for (const end of ends.values()) {
			const result = end.result;
			if (result && !(result instanceof Error) && ['queued', 'running', 'cancelling'].includes(normaliseStatus(result.status))) {
				view.logger.warn(`RunComfy: request ${end.outcome.job.id} has not ended after all; the execution stays parked`, {
					node: view.getNode().name,
				});
				return undefined;
			}
		}
		await presentOutcomes(batch, tracked, ends, wait);
	} finally {
		batch.memory.settle(false);
	}
	markDelivered(batch, tracked, (t) => (t.id === call.job.id ? 'callback' : 'poll'));
	return entries.flatMap((entry, i) => batch.output[i] ?? [entry]);
}

/**
 * The webhook context seen as the execute context the kind and the download code are written for: the same
 * n8n helpers, credentials and logger; an item's parameters were read before parking, Continue on Fail is how a
 * resumed batch reports failures, and there is no agent and no Stop button to observe.
 */
function executeView(ctx: IWebhookFunctions, items: INodeExecutionData[]): IExecuteFunctions {
	const overrides: Record<string | symbol, unknown> = {
		continueOnFail: () => true,
		isToolExecution: () => false,
		getInputData: () => items,
		getNodeParameter: (name: string, _itemIndex: number, fallback?: unknown) =>
			ctx.getNodeParameter(name, fallback as Parameters<IWebhookFunctions['getNodeParameter']>[1]),
	};
	return new Proxy(ctx, {
		get: (target, key) => (key in overrides ? overrides[key] : (Reflect.get(target, key, target) as unknown)),
		has: (target, key) => key in overrides || key in target,
	}) as unknown as IExecuteFunctions;
}
