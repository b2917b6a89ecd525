/** The end of a parked batch once a callback found every job ended, rebuilt on a resume context for ../finish.ts. */
import type { IExecuteFunctions, INodeExecutionData, IWebhookFunctions } from 'n8n-workflow';

import type { PollResult } from '../../wait';
import { newBatch } from '../batch';
import type { Batch, Checked } from '../batch';
import { endsFromPolls } from '../finish';
import type { JobItem, JobKind, Tracked } from '../kind';
import type { ReadWaitOptions } from '../options';
import type { JobEnd } from '../waiting';
import type { ParkedJob } from './park';

/** What the end of a parked batch uses of an execute context. */
export type ResumeContext = Pick<
	IExecuteFunctions,
	| 'getNode'
	| 'getNodeParameter'
	| 'getCredentials'
	| 'getExecutionId'
	| 'helpers'
	| 'logger'
	| 'continueOnFail'
	| 'isToolExecution'
	| 'getInputData'
>;

/**
 * The webhook's context as the resume context, member by member: an item's parameters were read before parking (a
 * parameter is read without item), Continue on Fail is how a resumed batch reports failures, there is no agent and
 * no Stop.
 */
export function resumeContext(ctx: IWebhookFunctions, items: INodeExecutionData[]): ResumeContext {
	const getNodeParameter = (name: string, _itemIndex: number, fallback?: unknown) =>
		ctx.getNodeParameter(name, fallback as Parameters<IWebhookFunctions['getNodeParameter']>[1]);
	return {
		getNode: () => ctx.getNode(),
		getNodeParameter: getNodeParameter as IExecuteFunctions['getNodeParameter'],
		getCredentials: async (type, itemIndex) => await ctx.getCredentials(type, itemIndex),
		getExecutionId: () => ctx.getExecutionId(),
		helpers: ctx.helpers as IExecuteFunctions['helpers'],
		logger: ctx.logger,
		continueOnFail: () => true,
		isToolExecution: () => false,
		getInputData: () => items,
	};
}

/** The kinds are written for the execute context; a resumed batch calls only the members of ResumeContext. */
export const asExecuteContext = (view: ResumeContext): IExecuteFunctions => view as IExecuteFunctions;

/** A parked batch rebuilt on the resume context: its checked items, wait options and how each job ended. */
export interface Resumed<P extends JobItem, O> {
	batch: Batch<P, O>;
	tracked: Array<Tracked<P>>;
	ends: Map<string, JobEnd>;
	wait: ReadWaitOptions;
}

export function resumedBatch<P extends JobItem, O>(
	view: IExecuteFunctions,
	kind: JobKind<P, O>,
	entries: INodeExecutionData[],
	parked: Array<{ item: INodeExecutionData; job: ParkedJob }>,
	tracked: Array<Tracked<P>>,
	caller: ParkedJob,
	ended: Map<string, PollResult>,
	concurrency: number,
): Resumed<P, O> {
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
	const batch = newBatch(view, kind, entries, { resumed: true });
	batch.checked.push(
		...parked.map(({ job }, n): Checked<P, O> => ({ p: tracked[n], options: job.options as O, wait, minimumBalance: 0, costCap: 0 })),
	);
	return { batch, tracked, ends: endsFromPolls(batch, tracked, ended), wait };
}
