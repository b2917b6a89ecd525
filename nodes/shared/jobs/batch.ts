/** The state of one run of the job flow (./flow.ts), shared by its steps, and the small helpers every step uses. */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { forCaller } from '../items';
import { DownloadHosts } from '../outputs';
import { withPublicStatus } from '../status';
import type { JobItem, JobKind, Tracked } from './kind';
import { LastSteps } from './lastSteps';
import { keepPickedUp } from './memory';
import type { Remembered } from './memory';
import type { ReadWaitOptions } from './options';
import { jobTexts } from './texts';

/** One checked item: what its kind prepared plus every option read for it. */
export interface Checked<P extends JobItem, O> {
	p: P;
	options: O;
	wait: ReadWaitOptions;
	/** "Minimum Balance (USD)" and "Max Estimated Cost (USD)" of the item (0: off), read once in the check step. */
	minimumBalance: number;
	costCap: number;
}

/** Where the service calls back for each item of a batch that parks (./park/plan.ts). */
export interface ParkPlan {
	resumeUrl: string;
	/** This park's id: in each callback URL and each parked job, and the key of its callback state. */
	id: string;
	callbackUrl(itemIndex: number): string;
}

/** The state of one run of the flow, shared by its steps (read-only for them but `checked`). */
export interface Batch<P extends JobItem, O> {
	ctx: IExecuteFunctions;
	kind: JobKind<P, O>;
	items: INodeExecutionData[];
	continueOnFail: boolean;
	signal?: AbortSignal;
	/** What an earlier try of the node submitted for an item (Retry On Fail, ./memory.ts); the flow writes it. */
	earlier(itemIndex: number): Remembered | undefined;
	checked: Array<Checked<P, O>>;
	texts: ReturnType<typeof jobTexts>;
	hosts: DownloadHosts;
	/**
	 * What the presentations registered to run once the output is final (`PresentContext.afterBatch`); the flow runs
	 * them.
	 */
	lastSteps: LastSteps;
	/** Set when the batch parks (Wait Mode "Park Until RunComfy Calls Back"): where the service calls back. */
	park?: ParkPlan;
	/** The JSON an item gets (the agent form when the node runs as a tool). */
	shape(json: IDataObject): IDataObject;
	/** `status` in the nodes' one vocabulary (unless the kind keeps the service's words). */
	publish(json: IDataObject): IDataObject;
}

/** What a step did to items: their output, by input item index. */
export type Outputs = Map<number, INodeExecutionData[]>;

/** A batch on a context; `resumed`: a parked batch's end, whose failures are items. */
export function newBatch<P extends JobItem, O>(
	ctx: IExecuteFunctions,
	kind: JobKind<P, O>,
	items: INodeExecutionData[],
	how: { earlier?: (itemIndex: number) => Remembered | undefined; resumed?: boolean } = {},
): Batch<P, O> {
	const toolJson = kind.toolJson;
	return {
		ctx,
		kind,
		items,
		continueOnFail: how.resumed ? true : ctx.continueOnFail(),
		signal: how.resumed ? undefined : ctx.getExecutionCancelSignal?.(),
		earlier: how.earlier ?? (() => undefined),
		checked: [],
		texts: jobTexts(kind.noun),
		hosts: new DownloadHosts(ctx),
		lastSteps: new LastSteps(),
		shape: how.resumed ? (json) => json : (json) => forCaller(ctx, json, toolJson && ((j) => keepPickedUp(j, toolJson(j)))),
		publish: (json) => (kind.keepServiceStatus ? json : withPublicStatus(json)),
	};
}

/** The options read for each item in the check step (looked up by item index: a batch may hold 10,000 items). */
export function optionsOf<P extends JobItem, O>(batch: Batch<P, O>): (p: P) => O {
	const byIndex = new Map<number, O>();
	for (const c of batch.checked) if (!byIndex.has(c.p.itemIndex)) byIndex.set(c.p.itemIndex, c.options);
	return (p) => byIndex.get(p.itemIndex) as O;
}

/** The tracked items of each job id, in item order (several items may follow one job). */
export function groupsOf<P extends JobItem>(tracked: Array<Tracked<P>>): Map<string, Array<Tracked<P>>> {
	const groups = new Map<string, Array<Tracked<P>>>();
	for (const t of tracked) {
		const group = groups.get(t.id);
		if (group) group.push(t);
		else groups.set(t.id, [t]);
	}
	return groups;
}

export const asList = (x: INodeExecutionData | INodeExecutionData[]): INodeExecutionData[] => (Array.isArray(x) ? x : [x]);

/** The first tracked item of each job id, in item order: one poll, fetch or cancel per job. */
export function firstOfEach<P extends JobItem>(tracked: Array<Tracked<P>>): Map<string, Tracked<P>> {
	const first = new Map<string, Tracked<P>>();
	for (const t of tracked) if (!first.has(t.id)) first.set(t.id, t);
	return first;
}
