import type {
	IDataObject,
	IDisplayOptions,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { WaitDefaults } from '../../../shared/descriptions';
import { readWaitOptions, waitProperties } from '../../../shared/descriptions';
import { mapPool } from '../../../shared/pool';
import { failedItem, toNodeError } from '../../../shared/router';
import { getDatasetStatus } from '../../../shared/transport';
import type { Dataset, RunState } from '../../../shared/types';
import type { WaitJob, WaitOptions, WaitOutcome } from '../../../shared/wait';
import { waitForAll } from '../../../shared/wait';
import { formatDuration } from '../../../shared/format';
import { fileNameProblem, findMissingCaptions, isMediaFile, missingCaptionWarning } from './files';

/** Datasets: the CLI polls every 5 s; a dataset becomes READY within minutes. Stop only stops watching. */
export const DATASET_WAIT: WaitDefaults = {
	maxWaitSeconds: 600,
	pollIntervalSeconds: 5,
	maxPollIntervalSeconds: 10,
	concurrency: 5,
	onTimeout: 'fail',
	cancelOnStop: false,
	timeoutChoices: ['fail', 'returnRunning'],
};

export function datasetLocator(show: IDisplayOptions['show']): INodeProperties {
	return {
		displayName: 'Dataset',
		name: 'dataset',
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description: 'The dataset to work on',
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: 'Select a dataset...',
				typeOptions: { searchListMethod: 'searchDatasets', searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: 'e.g. 5f0c6c1e-3b1a-4f7e-9a51-2d8e6c0b7a11',
			},
		],
		displayOptions: { show },
	};
}

export function readDatasetId(ctx: IExecuteFunctions, itemIndex: number): string {
	const raw = ctx.getNodeParameter('dataset', itemIndex, '', { extractValue: true }) as unknown;
	const id = String(raw ?? '').trim();
	if (!id) {
		throw new NodeOperationError(ctx.getNode(), 'No dataset was chosen', {
			itemIndex,
			description: 'Pick a dataset from the list, or enter its ID (the Create operation outputs it as "id").',
		});
	}
	return id;
}

/** Refuses, before anything is uploaded, a file name for the dataset that is not a plain file name. */
export function assertPlainFileName(ctx: IExecuteFunctions, fileName: string, itemIndex: number): void {
	const problem = fileNameProblem(fileName);
	if (problem) {
		throw new NodeOperationError(ctx.getNode(), `Cannot upload: ${problem}`, {
			itemIndex,
			description: 'Set Options → File Name to a plain file name such as img_0001.jpg.',
		});
	}
}

/** "Wait Until Ready" and its options on the upload operations (the shared wait block, relabelled). */
export function uploadWaitProperties(show: IDisplayOptions['show']): INodeProperties[] {
	const [toggle, options] = waitProperties(show, DATASET_WAIT);
	return [
		{
			...toggle,
			displayName: 'Wait Until Ready',
			description:
				'Whether to poll the dataset after the uploads until it is READY (the state training needs). Fails with the service\'s error if the dataset becomes FAILED. Stopping the execution only stops watching.',
		},
		options,
	];
}

/** The wait options alone, for the Wait Until Ready operation (which always waits). */
export function readyWaitOptionsProperty(show: IDisplayOptions['show']): INodeProperties {
	const [, options] = waitProperties(show, DATASET_WAIT);
	return { ...options, displayOptions: { show } };
}

export function datasetState(record: IDataObject): RunState {
	const status = String(record.status ?? '').toUpperCase();
	if (status === 'READY') return 'succeeded';
	if (status === 'FAILED') return 'failed';
	if (status === 'UPLOADING') return 'running';
	if (status === 'DRAFT') return 'queued';
	return 'unknown';
}

export function fileNamesOf(dataset: IDataObject): string[] {
	const files = Array.isArray(dataset.files) ? (dataset.files as unknown[]) : [];
	return files
		.map((f) => (typeof f === 'string' ? f : String((f as IDataObject)?.filename ?? (f as IDataObject)?.name ?? '')))
		.filter((n) => n.length > 0);
}

/** A dataset status record for output: the record plus file count, missing captions and warnings. */
export function describeDataset(record: Dataset | IDataObject): IDataObject {
	const names = fileNamesOf(record);
	const missing = findMissingCaptions(names);
	const out: IDataObject = { ...record };
	const count = Array.isArray(record.files) ? names.length : (record.files_count ?? record.file_count);
	if (count !== undefined && count !== null) out.file_count = count;
	if (Array.isArray(record.files)) {
		out.missing_captions = missing;
		if (missing.length) out.warnings = missing.map(missingCaptionWarning);
	}
	return out;
}

export function datasetFailedError(ctx: IExecuteFunctions, record: IDataObject, itemIndex: number): NodeOperationError {
	const id = String(record.id ?? '');
	const reason = record.error ? String(record.error) : 'no reason given';
	return new NodeOperationError(ctx.getNode(), `Dataset ${record.name ? `"${record.name}" ` : ''}(${id}) FAILED: ${reason}`, {
		itemIndex,
		description:
			'Check the files (supported images/videos with .txt captions, each under the size limits), then upload them again or create a new dataset.',
	});
}

export interface DatasetWaitResult {
	outcome: WaitOutcome;
	/** Output fields for items of this dataset when it did not fail. */
	record?: IDataObject;
	/** The error for items of this dataset (failed, timed out under 'fail', poll error). */
	error?: Error;
}

/**
 * Waits for several datasets at once (one poll loop per distinct dataset). Returns one result per dataset id.
 */
export async function waitForDatasets(
	ctx: IExecuteFunctions,
	requests: Array<{ datasetId: string; itemIndex: number }>,
	options: WaitOptions,
	opts: { failOnEmptyDraft?: boolean } = {},
): Promise<Map<string, DatasetWaitResult>> {
	const seen = new Map<string, number>();
	for (const r of requests) if (!seen.has(r.datasetId)) seen.set(r.datasetId, r.itemIndex);
	const jobs: WaitJob[] = [...seen].map(([datasetId, itemIndex]) => ({
		itemIndex,
		id: datasetId,
		poll: async () => {
			const record = (await getDatasetStatus(ctx, datasetId)) as IDataObject;
			if (opts.failOnEmptyDraft && String(record.status).toUpperCase() === 'DRAFT' && fileNamesOf(record).length === 0) {
				throw new NodeOperationError(ctx.getNode(), `Dataset ${datasetId} is DRAFT and has no files, so it will never become READY`, {
					itemIndex,
					description: 'Upload images/videos and their .txt captions first (Upload File, Upload From URL, Upload Caption).',
				});
			}
			return { state: datasetState(record), record };
		},
	}));
	const outcomes = await waitForAll(jobs, options, ctx.getExecutionCancelSignal());
	const results = new Map<string, DatasetWaitResult>();
	for (const outcome of outcomes) {
		const datasetId = outcome.job.id;
		const itemIndex = outcome.job.itemIndex;
		if (outcome.kind === 'error') {
			results.set(datasetId, { outcome, error: outcome.error });
		} else if (outcome.kind === 'done') {
			if (outcome.state === 'failed') results.set(datasetId, { outcome, error: datasetFailedError(ctx, outcome.record, itemIndex) });
			else results.set(datasetId, { outcome, record: describeDataset(outcome.record) });
		} else if (outcome.kind === 'timeout') {
			if (options.onTimeout === 'fail') {
				results.set(datasetId, {
					outcome,
					error: new NodeOperationError(
						ctx.getNode(),
						`Dataset ${datasetId} is still ${String(outcome.record.status ?? 'not READY')} after ${formatDuration(options.maxWaitMs)}`,
						{
							itemIndex,
							description:
								'Nothing was lost: the uploads are kept and the dataset keeps processing. Increase "Max Wait" in Wait Options, or check later with Get Status / Wait Until Ready.',
						},
					),
				});
			} else {
				results.set(datasetId, { outcome, record: { ...describeDataset(outcome.record), still_processing: true } });
			}
		} else {
			results.set(datasetId, {
				outcome,
				record: {
					...describeDataset(outcome.record),
					still_processing: true,
					note: 'Stopped watching; the dataset keeps processing on RunComfy',
				},
			});
		}
	}
	return results;
}

// ---------------------------------------------------------------------------------------------------------------
// Upload batches (Upload File, Upload From URL, Upload Caption)
// ---------------------------------------------------------------------------------------------------------------

/** What one item uploaded. */
export interface UploadRecord extends IDataObject {
	dataset_id: string;
	file_name: string;
}

export interface UploadTask {
	itemIndex: number;
	datasetId: string;
	/** Files this item writes, for ordering same-name uploads and for caption checks. */
	fileNames: string[];
	run: () => Promise<UploadRecord>;
}

export const DEFAULT_PARALLEL_UPLOADS = 4;

/**
 * Runs upload tasks with a concurrency limit (tasks writing the same file name in the same dataset run in item
 * order, so the later item wins as the service overwrites), then optionally waits for the datasets, adds caption
 * warnings and builds the output items. Per-item errors follow the Continue on Fail policy; without it the first
 * error stops scheduling further uploads and is thrown once the running ones finished.
 */
export async function runUploadBatch(
	ctx: IExecuteFunctions,
	itemCount: number,
	prepare: (itemIndex: number) => UploadTask,
	opts: { parallel?: number } = {},
): Promise<INodeExecutionData[]> {
	const records: Array<UploadRecord | undefined> = new Array(itemCount);
	const errors: Array<Error | undefined> = new Array(itemCount);
	const tasks: UploadTask[] = [];
	let firstError: { itemIndex: number; error: Error } | undefined;
	const continueOnFail = ctx.continueOnFail();

	for (let i = 0; i < itemCount; i++) {
		try {
			tasks.push(prepare(i));
		} catch (error) {
			errors[i] = error as Error;
			if (!continueOnFail) throw toNodeError(ctx, error, i);
		}
	}

	// Same (dataset, file name) → one chain in item order.
	const chains = new Map<string, UploadTask[]>();
	for (const task of tasks) {
		const key = `${task.datasetId}\u0000${task.fileNames[0] ?? task.itemIndex}`;
		const chain = chains.get(key);
		if (chain) chain.push(task);
		else chains.set(key, [task]);
	}
	const duplicateWarnings = new Map<number, string>();
	for (const chain of chains.values()) {
		if (chain.length < 2) continue;
		for (const task of chain.slice(0, -1)) {
			duplicateWarnings.set(
				task.itemIndex,
				`${task.fileNames[0]} was uploaded again by a later item (item ${chain[chain.length - 1].itemIndex}), which overwrote this copy`,
			);
		}
	}

	// Chains run side by side, the tasks of a chain one after the other; after the first error (without Continue
	// on Fail) or a stop, no further task starts.
	const signal = ctx.getExecutionCancelSignal();
	const parallel = Math.max(1, Math.min(16, Math.floor(opts.parallel ?? DEFAULT_PARALLEL_UPLOADS)));
	await mapPool([...chains.values()], parallel, async (chain) => {
		for (const task of chain) {
			if (firstError || signal?.aborted) return;
			try {
				records[task.itemIndex] = await task.run();
			} catch (error) {
				errors[task.itemIndex] = error as Error;
				if (!continueOnFail && !firstError) firstError = { itemIndex: task.itemIndex, error: error as Error };
			}
		}
	});
	if (firstError) throw toNodeError(ctx, firstError.error, firstError.itemIndex);
	if (signal?.aborted) {
		throw new NodeOperationError(ctx.getNode(), 'The execution was stopped during the uploads', {
			description: 'Files uploaded before the stop are kept in the dataset; upload the rest again.',
		});
	}

	// Wait (per dataset, with the first item's options) or take one status snapshot for the caption check.
	const succeeded = tasks.filter((t) => records[t.itemIndex]);
	const datasetIds = [...new Set(succeeded.map((t) => t.datasetId))];
	const waitOptions = succeeded.length ? readWaitOptions(ctx, succeeded[0].itemIndex, DATASET_WAIT) : undefined;
	const waited = new Map<string, DatasetWaitResult>();
	const snapshots = new Map<string, IDataObject>();
	if (waitOptions?.enabled && datasetIds.length) {
		const results = await waitForDatasets(
			ctx,
			succeeded.map((t) => ({ datasetId: t.datasetId, itemIndex: t.itemIndex })),
			waitOptions,
		);
		for (const [id, r] of results) waited.set(id, r);
	} else {
		for (const id of datasetIds) {
			try {
				snapshots.set(id, describeDataset((await getDatasetStatus(ctx, id)) as IDataObject));
			} catch {
				// the caption check is a courtesy: without a snapshot it uses this run's files only
			}
		}
	}

	// Files known per dataset: the service's list plus what this run uploaded.
	const known = new Map<string, Set<string>>();
	for (const id of datasetIds) {
		const record = waited.get(id)?.record ?? snapshots.get(id);
		known.set(id, new Set(record ? fileNamesOf(record) : []));
	}
	const writtenBy = (record: UploadRecord): string[] =>
		[record.file_name, record.caption_file].filter((n): n is string => typeof n === 'string' && n.length > 0);
	for (const task of succeeded) for (const name of writtenBy(records[task.itemIndex]!)) known.get(task.datasetId)?.add(name);

	const out: INodeExecutionData[] = [];
	for (let i = 0; i < itemCount; i++) {
		const record = records[i];
		const task = tasks.find((t) => t.itemIndex === i);
		if (!record || !task) {
			out.push(failedItem(ctx, errors[i] ?? new Error('The upload did not run'), i, task ? { dataset_id: task.datasetId } : {}));
			continue;
		}
		const wait = waited.get(task.datasetId);
		if (wait?.error) {
			out.push(failedItem(ctx, wait.error, i, { ...record, dataset_status: wait.outcome.kind !== 'error' ? wait.outcome.record.status : undefined }));
			continue;
		}
		const dataset = wait?.record ?? snapshots.get(task.datasetId);
		const warnings: string[] = [...((record.warnings as string[] | undefined) ?? [])];
		const dup = duplicateWarnings.get(i);
		if (dup) warnings.push(dup);
		const files = known.get(task.datasetId) ?? new Set<string>();
		for (const name of writtenBy(record)) {
			if (isMediaFile(name) && findMissingCaptions([name, ...files]).includes(name)) warnings.push(missingCaptionWarning(name));
		}
		const json: IDataObject = { ...record };
		delete json.warnings;
		if (dataset) {
			json.dataset_name = dataset.name;
			json.dataset_status = dataset.status;
			json.dataset_file_count = dataset.file_count;
			if (dataset.still_processing) json.dataset_still_processing = true;
			if (dataset.note) json.note = dataset.note;
		}
		if (warnings.length) json.warnings = warnings;
		out.push({ json, pairedItem: { item: i } });
	}
	return out;
}
