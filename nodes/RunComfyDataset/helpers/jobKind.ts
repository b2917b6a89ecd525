/**
 * The Dataset node's job kinds for the one job flow. Uploads (Upload File, Upload From URL, Upload Caption) submit
 * files and then, optionally, wait for the dataset they went into (one wait per distinct dataset); Wait Until
 * Ready only waits. Uploading the same file name into one dataset runs in item order (the later item wins, as the
 * service overwrites). Stop only stops watching: a dataset keeps processing.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { DATASET_WAIT } from '../../shared/jobs';
import { readNumber } from '../../shared/params';
import type { JobItem, JobKind, JobNoun, Tracked } from '../../shared/jobs';
import { getDatasetStatus } from '../../shared/transport';
import type { RetryChoice } from '../../shared/transport';
import { datasetFailedError, datasetState, describeDataset, fileNamesOf } from './datasets';
import { findMissingCaptions, isMediaFile, missingCaptionWarning } from './files';

/** What one item uploaded. */
export interface UploadRecord extends IDataObject {
	dataset_id: string;
	file_name: string;
}

/** One checked upload: its dataset, the files it writes, and the upload itself. */
export interface UploadTask extends JobItem {
	datasetId: string;
	/** Files this item writes, for ordering same-name uploads and for caption checks. */
	fileNames: string[];
	run: () => Promise<UploadRecord>;
}

export const DEFAULT_PARALLEL_UPLOADS = 4;

const NOUN: JobNoun = {
	one: 'dataset',
	many: 'datasets',
	idField: 'dataset_id',
	idLabel: 'Dataset ID',
	lookUp: 'Dataset → Get Status or Wait Until Ready',
};

async function pollDataset(ctx: IExecuteFunctions, datasetId: string, itemIndex: number, failOnEmptyDraft: boolean, how?: RetryChoice) {
	const record = (await getDatasetStatus(ctx, datasetId, how)) as IDataObject;
	if (failOnEmptyDraft && String(record.status).toUpperCase() === 'DRAFT' && fileNamesOf(record).length === 0) {
		throw new NodeOperationError(ctx.getNode(), `Dataset ${datasetId} is DRAFT and has no files, so it will never become READY`, {
			itemIndex,
			description: 'Upload images/videos and their .txt captions first (Upload File, Upload From URL, Upload Caption).',
		});
	}
	return { state: datasetState(record), record };
}

/** "Parallel Uploads" (Options), read from the first item and checked. */
export function readParallelUploads(ctx: IExecuteFunctions, itemCount: number): number {
	if (itemCount === 0) return DEFAULT_PARALLEL_UPLOADS;
	return readNumber(ctx, 'options.parallelUploads', 0, DEFAULT_PARALLEL_UPLOADS, {
		label: 'Parallel Uploads',
		min: 1,
		max: 16,
		integer: true,
		example: 'a whole number from 1 to 16, e.g. 4',
	});
}

/** The upload operations' kind: `prepare` checks one item and returns its upload task. */
export function uploadKind(
	ctx: IExecuteFunctions,
	prepare: (itemIndex: number) => Promise<UploadTask> | UploadTask,
	parallel: number,
): JobKind<UploadTask> {
	return {
		noun: NOUN,
		wait: DATASET_WAIT,
		paid: false,
		keepServiceStatus: true,
		submitConcurrency: parallel,
		prepare: async (i) => await prepare(i),
		ids: (p) => ({ dataset_id: p.datasetId }),
		submit: async (p) => ({ id: p.datasetId, json: { ...(await p.run()) } }),
		serialKey: (p) => `${p.datasetId}\u0000${p.fileNames[0] ?? p.itemIndex}`,
		snapshotWithoutWait: true,
		poll: async (t, how) => await pollDataset(ctx, t.datasetId, t.itemIndex, false, how),
		current: (_t, record) => describeDataset(record),
		verdict: (t, record) =>
			datasetState(record) === 'failed'
				? { ok: false, json: { ...t.accepted, dataset_status: record.status }, ...messageOf(datasetFailedError(ctx, record, t.itemIndex)) }
				: { ok: true, json: { ...t.accepted } },
		present: async (t, json, { record, group }) => ({ json: uploadJson(t, json, record, group), pairedItem: { item: t.itemIndex } }),
	};
}

const messageOf = (error: NodeOperationError) => ({ message: error.message, description: error.description ?? '' });

/** An upload's output: what was uploaded, the dataset's state, and warnings (overwritten copies, missing captions). */
function uploadJson(
	t: Tracked<UploadTask>,
	json: IDataObject,
	record: IDataObject | undefined,
	group: Array<Tracked<UploadTask>>,
): IDataObject {
	const upload = t.accepted as UploadRecord;
	const out: IDataObject = { ...upload };
	delete out.warnings;
	const warnings: string[] = [...((upload.warnings as string[] | undefined) ?? [])];
	const later = group.filter((g) => g.itemIndex > t.itemIndex && g.fileNames[0] === t.fileNames[0]).pop();
	if (later) warnings.push(`${t.fileNames[0]} was uploaded again by a later item (item ${later.itemIndex}), which overwrote this copy`);
	const dataset = record ? describeDataset(record) : undefined;
	// Files known in the dataset: the service's list plus what this run uploaded.
	const files = new Set(dataset ? fileNamesOf(dataset) : []);
	for (const g of group) for (const name of writtenBy(g.accepted as UploadRecord)) files.add(name);
	for (const name of writtenBy(upload)) {
		if (isMediaFile(name) && findMissingCaptions([name, ...files]).includes(name)) warnings.push(missingCaptionWarning(name));
	}
	if (dataset) {
		out.dataset_name = dataset.name;
		out.dataset_status = dataset.status;
		out.dataset_file_count = dataset.file_count;
	}
	if (json.still_running) out.dataset_still_processing = true;
	if (json.stopped) out.stopped = true;
	if (typeof json.note === 'string') out.note = json.note;
	if (warnings.length) out.warnings = warnings;
	return out;
}

const writtenBy = (record: UploadRecord): string[] =>
	[record.file_name, record.caption_file].filter((n): n is string => typeof n === 'string' && n.length > 0);

interface ReadyItem extends JobItem {
	datasetId: string;
}

/** Wait Until Ready: no submission, only the wait for each item's dataset (FAILED becomes an error). */
export function readyKind(ctx: IExecuteFunctions, readDatasetId: (itemIndex: number) => string): JobKind<ReadyItem> {
	return {
		noun: NOUN,
		wait: DATASET_WAIT,
		paid: false,
		keepServiceStatus: true,
		submitConcurrency: 1,
		prepare: async (i) => ({ itemIndex: i, datasetId: readDatasetId(i) }),
		ids: (p) => ({ dataset_id: p.datasetId }),
		jobId: (p) => p.datasetId,
		poll: async (t, how) => await pollDataset(ctx, t.datasetId, t.itemIndex, true, how),
		current: (_t, record) => describeDataset(record),
		verdict: (t, record) =>
			datasetState(record) === 'failed'
				? { ok: false, json: { dataset_id: t.datasetId }, ...messageOf(datasetFailedError(ctx, record, t.itemIndex)) }
				: { ok: true, json: describeDataset(record) },
		present: async (t, json) => ({ json, pairedItem: { item: t.itemIndex } }),
	};
}
