/**
 * Wait Mode "Park Until RunComfy Calls Back": the execution waits saved, holding nothing, until the service POSTs a
 * job's end to its resume URL (./callback.ts).
 */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import { formatDuration } from '../../format';
import { mapPool } from '../../pool';
import { isTerminal } from '../../status';
import type { PollResult } from '../../wait';
import { firstOfEach } from '../batch';
import type { Batch, Outputs } from '../batch';
import { endsFromPolls, finishJobs } from '../finish';
import type { Finished } from '../finish';
import type { JobItem, Tracked } from '../kind';
import type { ReadWaitOptions } from '../options';

/** What a parked job keeps in its stack item (`json.parked`), for the webhook. */
export interface ParkedJob extends IDataObject {
	/** The park's id (absent in executions parked by older versions). */
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
 * What parking did: the jobs had all ended (finished like any wait), or the execution parked (its outputs while it
 * waits).
 */
export type Parked<P extends JobItem> = { finished: Finished<P> } | { parked: Outputs };

/** After submitting: one status check of every job. */
export async function parkOrFinish<P extends JobItem, O>(
	batch: Batch<P, O>,
	tracked: Array<Tracked<P>>,
	wait: ReadWaitOptions,
	soFar: (itemIndex: number) => INodeExecutionData[] | undefined,
): Promise<Parked<P>> {
	const { kind } = batch;
	const firstOf = firstOfEach(tracked);
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
	if (allEnded)
		return { finished: await finishJobs(batch, tracked, endsFromPolls(batch, tracked, polled), wait, { deliveredBy: () => 'poll' }) };
	return { parked: await park(batch, tracked, wait, polled, soFar) };
}

/**
 * Parks the execution: the stack entry's input becomes the fallback items, the node's own
 * output while it waits says so, and n8n stores the execution as waiting until Max Wait.
 */
async function park<P extends JobItem, O>(
	batch: Batch<P, O>,
	tracked: Array<Tracked<P>>,
	wait: ReadWaitOptions,
	polled: Map<string, PollResult | undefined>,
	soFar: (itemIndex: number) => INodeExecutionData[] | undefined,
): Promise<Outputs> {
	const { ctx, kind } = batch;
	const outputs: Outputs = new Map();
	const until = new Date(Date.now() + wait.maxWaitMs);
	const waited = formatDuration(wait.maxWaitMs);
	const options = new Map(batch.checked.map((c) => [c.p.itemIndex, c.options]));
	const fallback: INodeExecutionData[] = [];
	const trackedAt = new Map(tracked.map((t) => [t.itemIndex, t]));
	for (let i = 0; i < batch.items.length; i++) {
		const t = trackedAt.get(i);
		if (!t) {
			// Refused before or at submission (Continue on Fail): its output is final already.
			fallback.push(...(soFar(i) ?? []));
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
		outputs.set(i, [
			{
				json: batch.shape({ ...known, parked_until: parked.until, note: batch.texts.parkedWaiting(waited) }),
				pairedItem: { item: i },
			},
		]);
	}
	ctx.getExecuteData().data = { main: [fallback] };
	ctx.logger.info(
		`RunComfy: parked the execution until RunComfy calls back (node "${ctx.getNode().name}", ${tracked.length} ${kind.noun.many}, at most until ${until.toISOString()})`,
		{
			node: ctx.getNode().name,
			park: batch.park?.id,
			[`${kind.noun.idField}s`]: tracked.map((t) => t.id).join(','),
		},
	);
	await ctx.putExecutionToWait(until);
	return outputs;
}
