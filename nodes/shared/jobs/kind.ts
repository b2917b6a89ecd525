/** What a node gives the one job flow (./flow.ts): a small "job kind". */
import type { IDataObject, INodeExecutionData } from 'n8n-workflow';

import type { DownloadHosts } from '../outputs';
import type { RetryChoice } from '../transport';
import type { ApiFamily } from '../types';
import type { PollResult } from '../wait';
import type { WaitDefaults } from './defaults';
import type { LastStep } from './lastSteps';

/** How errors and outputs name a job of this kind. */
export interface JobNoun {
	/** Lower case, singular: "run", "request", "training job", "dataset". */
	one: string;
	/** Lower case, plural: "runs", "requests", ... */
	many: string;
	/** The output field that holds the id: "request_id", "job_id", "dataset_id". */
	idField: string;
	/** How the UI calls that id: "Request ID", "Job ID", ... */
	idLabel: string;
	/** Where to pick a job up later: "Model → Get Result". */
	lookUp: string;
}

/** An estimate from published prices, or why there is none (never a guess). */
export type CostEstimate = { usd: number; basis: string } | { usd?: undefined; reason: string };

/** Every prepared item carries the index of its input item. */
export interface JobItem {
	itemIndex: number;
}

/** The service's answer to a submission: the id to follow and the output fields known from the answer. */
export interface Accepted {
	id: string;
	json: IDataObject;
}

/** A prepared item that has a job on the service (submitted now, or named by the item). */
export type Tracked<P extends JobItem> = P & {
	id: string;
	accepted: IDataObject;
	/** When the submission was sent and when its answer came (Date.now()), for jobs submitted now. */
	submittedAt?: number;
	answeredAt?: number;
};

/** A finished job judged by its kind: a good result, or an error with the service's reason and what to do. */
export type Verdict = { ok: true; json: IDataObject } | { ok: false; json: IDataObject; message: string; description: string };

/** Given to `present`: how the job ended and what was read for its item before anything was paid. */
export interface PresentContext<P extends JobItem, O> {
	/** True for a finished, good job (its outputs may be downloaded); false for still running, cancelled, stopped. */
	succeeded: boolean;
	options: O;
	/** Every item that follows the same job (datasets: all uploads into one dataset). */
	group: Array<Tracked<P>>;
	/** The finished job's record (status or result), when there is one. */
	record?: IDataObject;
	hosts: DownloadHosts;
	/** Registers what cannot be undone (deleting the request), run only once n8n keeps the output (./lastSteps.ts). */
	afterBatch(step: LastStep): void;
}

/**
 * What every kind must provide: how its jobs are named and waited for, how an item is checked, followed, judged and
 * presented.
 */
export interface JobKindCore<P extends JobItem, O> {
	noun: JobNoun;
	/** Wait defaults and the choices offered for this kind. */
	wait: WaitDefaults;
	/** Paid submissions get the balance guard, are logged and recorded, and are never sent twice. */
	paid: boolean;
	/** Submissions in flight at once. */
	submitConcurrency: number;
	/** Checks one item and builds what is submitted; throws to refuse it. */
	prepare(itemIndex: number, extra: IDataObject): Promise<P>;
	/** The ids that lead every output of an item, e.g. `{ model_id }` (also on its error output). */
	ids(p: P): IDataObject;
	/** One status request; `how` goes to the transport (the wait engine sends `retry: 'never'`). */
	poll(t: Tracked<P>, how?: RetryChoice): Promise<PollResult>;
	/** Output fields of a job that has not finished (timeout, Stop): its status, progress, ... */
	current(t: Tracked<P>, record: IDataObject): IDataObject;
	/** Judges a finished job from its last status and (if fetched) its result. */
	verdict(t: Tracked<P>, record: IDataObject, result: IDataObject): Verdict;
	/** The output item(s) of a job that is not an error; downloads happen here. */
	present(t: Tracked<P>, json: IDataObject, context: PresentContext<P, O>): Promise<INodeExecutionData | INodeExecutionData[]>;
}

/** Checks before anything is paid, beyond `prepare`. */
export interface JobChecks<P extends JobItem, O> {
	/** Further options of the item that could still be wrong; read for every item before anything is paid. */
	readOptions?(p: P): O;
	/** What submitting the item would cost, from the service's published prices; a reason when it cannot be told. */
	estimate?(p: P): CostEstimate;
}

/** Submit: the kind sends a new job for every item (Run, Submit, Resume, uploads). */
export interface SubmitsJobs<P extends JobItem> {
	/** The submission; `callbackUrl` is where the service POSTs the job's end (parking). */
	submit(p: P, how?: { callbackUrl?: string }): Promise<Accepted>;
	jobId?: undefined;
	/** Submissions with the same key run one after the other, in item order (same file of one dataset). */
	serialKey?(p: P): string | undefined;
	/** True when RunComfy delivers this job's result to another URL: the item is output at once, not waited for. */
	deliveredElsewhere?(t: Tracked<P>): boolean;
}

/** Or follow: every item names a job that already exists (Wait Until Ready); nothing is submitted. */
export interface FollowsJobs<P extends JobItem> {
	/** The existing job an item names. */
	jobId(p: P): string;
	submit?: undefined;
	serialKey?: undefined;
	deliveredElsewhere?: undefined;
}

/** Cancel: On Timeout "Cancel" and Stop cancel the job on the service (when the wait defaults allow it). */
export interface JobCancel<P extends JobItem> {
	/** The transport sends it even after Stop. */
	cancel?(t: Tracked<P>): Promise<IDataObject>;
}

/** Fetch: the result of a finished job, when the last status record is not the result. */
export interface JobFetch<P extends JobItem> {
	/** The one result fetch of a finished job; without it the last status record is the result. */
	fetch?(t: Tracked<P>, record: IDataObject): Promise<IDataObject>;
	/**
	 * One result request that tells the state too (see WaitJob.pollResult): `{ state, record: result, result }`, with
	 * `result` only when the job has finished. Must fetch what `fetch` fetches.
	 */
	pollResult?(t: Tracked<P>, how?: RetryChoice): Promise<PollResult>;
}

/** Timing: what the wait engine learns from, and how far a job that timed out had come. */
export interface JobTiming<P extends JobItem> {
	/** Jobs with the same key take about as long: the wait engine learns their duration and polls near the end. */
	timingKey?(p: P): string | undefined;
	/** " (step 3 of 10)": added to a timeout message. */
	progressNote?(record: IDataObject): string;
}

/**
 * Park: kinds whose service calls back when a job ends (deployment requests) can park the execution instead of
 * polling (./park/park.ts).
 */
export interface JobPark<P extends JobItem> {
	/**
	 * `restore` rebuilds a parked job from the ids it was parked with (`ids(p)`), so it can be polled, fetched,
	 * judged and presented when n8n calls the node's webhook.
	 */
	park?: {
		/** The API family that calls back (its base URL decides whether n8n's resume URL must be public). */
		family: ApiFamily;
		restore(ids: IDataObject, itemIndex: number): P;
	};
}

/** Presentation: how the output shows the job beyond `present`. */
export interface JobPresentation {
	/** Extra output fields of an accepted item that is not waited for, e.g. `{ status: 'in_queue' }`. */
	queued?: IDataObject;
	/** Keep the service's status words (datasets) instead of the nodes' one vocabulary (../status withPublicStatus). */
	keepServiceStatus?: boolean;
	/** Without waiting, take one status of each job anyway (the dataset's file list for caption warnings). */
	snapshotWithoutWait?: boolean;
	/** The AI-agent form of an output JSON (used for every item when the node runs as a tool). */
	toolJson?(json: IDataObject): IDataObject;
}

/** A job kind: the required core, either submitting or following jobs, and the optional groups. */
export type JobKind<P extends JobItem, O = undefined> = JobKindCore<P, O> &
	(SubmitsJobs<P> | FollowsJobs<P>) &
	JobChecks<P, O> &
	JobCancel<P> &
	JobFetch<P> &
	JobTiming<P> &
	JobPark<P> &
	JobPresentation;
