/**
 * The end of a parked batch, when a callback found every job ended (./resume.ts): the kind fetches, judges and
 * presents each job through the same steps as in-process (./waiting.ts, ./outcomes.ts), on the webhook context
 * seen as an execute context.
 */
import type { IExecuteFunctions, INodeExecutionData, IWebhookFunctions } from 'n8n-workflow';

import { DownloadHosts } from '../outputs';
import { normaliseStatus, withPublicStatus } from '../status';
import type { PollResult } from '../wait';
import type { Batch, Checked } from './flow';
import type { JobItem, JobKind, Tracked } from './kind';
import { beginTry } from './memory';
import type { ReadWaitOptions } from './options';
import { presentOutcomes } from './outcomes';
import { markDelivered } from './park';
import type { ParkedJob } from './park';
import { jobTexts } from './texts';
import type { JobEnd } from './waiting';
import { fetchResults } from './waiting';

/**
 * Step 4 of a callback (./resume.ts): every job has ended; fetches, judges and presents each one with the kind,
 * exactly as in-process. Undefined (stay parked) when a fetched result says its job has not ended after all.
 */
export async function finishBatch<P extends JobItem, O>(
	view: IExecuteFunctions,
	kind: JobKind<P, O>,
	entries: INodeExecutionData[],
	parked: Array<{ item: INodeExecutionData; job: ParkedJob }>,
	tracked: Array<Tracked<P>>,
	caller: ParkedJob,
	ended: Map<string, PollResult>,
	concurrency: number,
): Promise<INodeExecutionData[] | undefined> {
	const wait: ReadWaitOptions = {
		enabled: true,
		mode: 'park',
		initialIntervalMs: 1000,
		maxIntervalMs: 1000,
		maxWaitMs: Math.max(0, Date.parse(caller.until) - Date.now()),
		concurrency,
		onTimeout: caller.on_timeout === 'returnRunning' ? 'returnRunning' : 'fail',
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
		publish: (json) => (kind.keepServiceStatus ? json : withPublicStatus(json)),
	};
	const firstOf = new Map<string, Tracked<P>>();
	for (const t of tracked) if (!firstOf.has(t.id)) firstOf.set(t.id, t);
	const ends = new Map<string, JobEnd>();
	for (const [id, t] of firstOf) {
		const polled = ended.get(id);
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
	markDelivered(batch, tracked, (t) => (t.id === caller.id ? 'callback' : 'poll'));
	return entries.flatMap((entry, i) => batch.output[i] ?? [entry]);
}

/**
 * The webhook context seen as the execute context the kind and the download code are written for: the same
 * n8n helpers, credentials and logger; an item's parameters were read before parking, Continue on Fail is how a
 * resumed batch reports failures, and there is no agent and no Stop button to observe.
 */
export function executeView(ctx: IWebhookFunctions, items: INodeExecutionData[]): IExecuteFunctions {
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
