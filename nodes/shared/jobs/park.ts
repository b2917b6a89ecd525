/**
 * Wait Mode "Park Until RunComfy Calls Back": instead of polling, the execution is saved as waiting and holds
 * nothing (no memory, no worker slot, no timer of ours) until the service POSTs the end of a job to this
 * execution's resume URL; the node's webhook (./resume.ts) then finishes the batch.
 *
 * - Every job is submitted with the callback URL `<resume URL>&park=<park id>&item=<input item index>`. An
 *   execution has one resume URL for all its parks (two parking nodes, or one in a loop); the park id, new for
 *   each park and kept with its jobs, tells the webhook which park a callback belongs to.
 * - One status check before parking: when every job has already ended, the flow continues here as usual.
 * - Where the ids live while parked: n8n saves the node's execution stack entry with the execution and gives
 *   it back to the webhook (its input items) and, at Max Wait, to the resumed (disabled) node, which passes it
 *   through. So the entry's input becomes one item per input item: its ids and what the webhook needs, worded
 *   as the explicit "no result within Max Wait" output. Any batch size fits (custom data would cap it at 10 ×
 *   512 characters).
 * - The resume URL must be reachable by the service: a loopback/private n8n address with a public service is
 *   refused before anything is paid.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { INTERNAL_ADDRESS_LABELS, internalAddressKind } from '../net';
import { formatDuration } from '../format';
import { mapPool } from '../pool';
import { isTerminal } from '../status';
import { FAMILY_BASE_KEY, getCredentials } from '../transport/credentials';
import type { ApiFamily } from '../types';
import type { PollResult } from '../wait';
import type { Batch } from './flow';
import type { JobItem, Tracked } from './kind';
import { readWaitMode } from './options';
import { readBoolean } from '../params';
import type { ReadWaitOptions } from './options';
import { presentOutcomes } from './outcomes';
import type { JobEnd } from './waiting';
import { fetchResults } from './waiting';

/** Where the service calls back for each item of a batch that parks. */
export interface ParkPlan {
	resumeUrl: string;
	/** This park's id: in each callback URL and each parked job, and the key of its callback state. */
	id: string;
	callbackUrl(itemIndex: number): string;
}

/** How each result reached the node (the `delivered_by` output field of a parked batch). */
export type DeliveredBy = 'callback' | 'poll' | 'none';

/** What a parked job keeps in its stack item (`json.parked`), for the webhook. */
export interface ParkedJob extends IDataObject {
	/** The park's id (absent in executions parked by versions before 2026-11-28). */
	park?: string;
	item: number;
	id: string;
	/** The kind's ids of the item (`kind.ids(p)`), from which `kind.park.restore` rebuilds it. */
	ids: IDataObject;
	/** Which fields of the item came from the submission's answer (`t.accepted`; kept once, in the item). */
	accepted: string[];
	/** The options read for the item before anything was paid (downloads, ...). */
	options: IDataObject;
	until: string;
	on_timeout: string;
	concurrency: number;
}

const isObject = (v: unknown): v is IDataObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The parked job of a stack item, or undefined for an item that already has its final output. */
export function parkedJobOf(item: INodeExecutionData | undefined): ParkedJob | undefined {
	const parked = item?.json?.parked;
	if (!isObject(parked) || typeof parked.id !== 'string' || typeof parked.item !== 'number' || !isObject(parked.ids)) return undefined;
	return parked as ParkedJob;
}

/**
 * Before anything is checked or paid: whether this batch parks (Wait for Completion and Wait Mode of the first
 * item, like every wait option of the flow) and, if so, the resume URL, refused when the service cannot reach
 * it. Options that cannot be read are left to the item checks, which report them per item.
 */
export async function planParking<P extends JobItem, O>(batch: Batch<P, O>): Promise<ParkPlan | undefined> {
	const { ctx, kind } = batch;
	if (!kind.park || batch.items.length === 0) return undefined;
	let parks = false;
	try {
		const enabled = readBoolean(ctx, 'waitForCompletion', 0, kind.wait.waitByDefault, 'Wait for Completion');
		parks = readWaitMode(ctx, 0, true, enabled) === 'park';
	} catch {
		return undefined;
	}
	if (!parks) return undefined;
	const resumeUrl = String(ctx.evaluateExpression('{{ $execution.resumeUrl }}', 0) ?? '');
	const credentials = await getCredentials(ctx);
	assertReachable(ctx, resumeUrl, credentials[FAMILY_BASE_KEY[kind.park.family]], kind.park.family);
	// Random rather than node + run index: unique whatever runs the node again (loops, sub-workflows, retries).
	const id = crypto.randomUUID().replace(/-/g, '').slice(0, 16);
	return {
		resumeUrl,
		id,
		callbackUrl: (itemIndex) => {
			const url = new URL(resumeUrl);
			url.searchParams.set('park', id);
			url.searchParams.set('item', String(itemIndex));
			return url.toString();
		},
	};
}

/**
 * The service can only call back when n8n's public address (WEBHOOK_URL) is one it can reach: a resume URL on
 * a loopback, private or link-local address is refused, unless the service itself is on such an address (a
 * local stand-in on the same machine or network).
 */
export function assertReachable(ctx: IExecuteFunctions, resumeUrl: string, serviceBaseUrl: string, family: ApiFamily): void {
	const fix =
		'Set the N8N_WEBHOOK_URL environment variable (WEBHOOK_URL in older n8n) of every n8n process, main and workers, to its public https address (e.g. https://n8n.example.com/) and restart n8n, or choose the Wait Mode "Wait in This Execution". Nothing was submitted.';
	let url: URL | undefined;
	try {
		url = new URL(resumeUrl);
	} catch {
		url = undefined;
	}
	if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
		throw new NodeOperationError(ctx.getNode(), 'This execution has no resume URL that RunComfy could call back', { description: fix });
	}
	const here = internalAddressKind(url.hostname);
	if (!here) return;
	let serviceHost = '';
	try {
		serviceHost = new URL(serviceBaseUrl).hostname;
	} catch {
		serviceHost = '';
	}
	if (internalAddressKind(serviceHost)) return;
	throw new NodeOperationError(
		ctx.getNode(),
		`RunComfy cannot call back this n8n: its resume URL is on ${url.hostname}, ${INTERNAL_ADDRESS_LABELS[here]}`,
		{
			description: `Parking needs an n8n that the RunComfy ${family} API (${serviceHost || serviceBaseUrl}) can reach. ${fix}`,
		},
	);
}

/**
 * After submitting: one status check of every job. All ended → fetched and presented here like any finished
 * wait (`delivered_by: 'poll'`); otherwise the execution parks until the service calls back or Max Wait.
 */
export async function parkOrFinish<P extends JobItem, O>(
	batch: Batch<P, O>,
	tracked: Array<Tracked<P>>,
	wait: ReadWaitOptions,
): Promise<void> {
	const { kind } = batch;
	const firstOf = new Map<string, Tracked<P>>();
	for (const t of tracked) if (!firstOf.has(t.id)) firstOf.set(t.id, t);
	const polled = new Map<string, PollResult | undefined>();
	await mapPool([...firstOf.values()], wait.concurrency, async (t) => {
		try {
			polled.set(t.id, await kind.poll(t));
		} catch {
			// unknown: the job is parked like a running one, and a callback or Max Wait settles it
			polled.set(t.id, undefined);
		}
	});
	const allEnded = [...polled.values()].every((r) => r !== undefined && isTerminal(r.state));
	if (allEnded) {
		const ends = new Map<string, JobEnd>();
		for (const [id, r] of polled) {
			const { state, record } = r as PollResult;
			const t = firstOf.get(id) as Tracked<P>;
			ends.set(id, { outcome: { kind: 'done', job: { itemIndex: t.itemIndex, id, poll: async () => await kind.poll(t) }, state, record, polls: 1 } });
		}
		await fetchResults(batch, firstOf, ends, wait.concurrency);
		await presentOutcomes(batch, tracked, ends, wait);
		markDelivered(batch, tracked, () => 'poll');
		return;
	}
	await park(batch, tracked, wait, polled);
}

/** Adds `delivered_by` to the output items of the tracked jobs. */
export function markDelivered<P extends JobItem, O>(batch: Batch<P, O>, tracked: Array<Tracked<P>>, by: (t: Tracked<P>) => DeliveredBy): void {
	for (const t of tracked) {
		for (const item of batch.output[t.itemIndex] ?? []) item.json = { ...item.json, delivered_by: by(t) };
	}
}

/**
 * Parks the execution: the stack entry's input becomes the fallback items (see the file comment), the node's
 * own output while it waits says so, and n8n stores the execution as waiting until Max Wait.
 */
async function park<P extends JobItem, O>(
	batch: Batch<P, O>,
	tracked: Array<Tracked<P>>,
	wait: ReadWaitOptions,
	polled: Map<string, PollResult | undefined>,
): Promise<void> {
	const { ctx, kind } = batch;
	const until = new Date(Date.now() + wait.maxWaitMs);
	const waited = formatDuration(wait.maxWaitMs);
	const options = new Map(batch.checked.map((c) => [c.p.itemIndex, c.options]));
	const fallback: INodeExecutionData[] = [];
	const trackedAt = new Map(tracked.map((t) => [t.itemIndex, t]));
	for (let i = 0; i < batch.items.length; i++) {
		const t = trackedAt.get(i);
		if (!t) {
			// Refused before or at submission (Continue on Fail): its output is final already.
			fallback.push(...(batch.output[i] ?? []));
			continue;
		}
		const record = polled.get(t.id)?.record ?? {};
		const known: IDataObject = { ...kind.ids(t), ...t.accepted, ...kind.current(t, record) };
		const text = batch.texts.parkedNoResult(t.id, waited);
		const parked: ParkedJob = {
			...(batch.park ? { park: batch.park.id } : {}),
			item: i,
			id: t.id,
			ids: kind.ids(t),
			accepted: Object.keys(t.accepted),
			options: (options.get(i) ?? {}) as IDataObject,
			until: until.toISOString(),
			on_timeout: wait.onTimeout,
			concurrency: wait.concurrency,
		};
		const json: IDataObject = { ...known, timed_out: true, result_missing: true, delivered_by: 'none' };
		if (wait.onTimeout === 'fail') Object.assign(json, { error: text.message, errorDescription: text.description });
		else json.note = `${text.message}. ${text.description}`;
		fallback.push({ json: batch.shape({ ...json, parked }), pairedItem: { item: i } });
		batch.output[i] = [
			{
				json: batch.shape({ ...known, parked_until: parked.until, note: batch.texts.parkedWaiting(waited) }),
				pairedItem: { item: i },
			},
		];
	}
	ctx.getExecuteData().data = { main: [fallback] };
	ctx.logger.info(`RunComfy: parked the execution until RunComfy calls back (node "${ctx.getNode().name}", ${tracked.length} ${kind.noun.many}, at most until ${until.toISOString()})`, {
		node: ctx.getNode().name,
		park: batch.park?.id,
		[`${kind.noun.idField}s`]: tracked.map((t) => t.id).join(','),
	});
	await ctx.putExecutionToWait(until);
}
