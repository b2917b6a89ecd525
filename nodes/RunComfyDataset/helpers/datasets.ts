/** What the Dataset node knows about a dataset: its id, its states, its files and their captions. */
import type { IDataObject, IDisplayOptions, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { waitProperties } from '../../shared/descriptions';
import { DATASET_WAIT } from '../../shared/jobs';
import type { Dataset, RunState } from '../../shared/types';
import { fileNameProblem, findMissingCaptions, missingCaptionWarning } from './files';

export { datasetLocator } from '../../shared/pickers/datasets';

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
				"Whether to poll the dataset after the uploads until it is READY (the state training needs). Fails with the service's error if the dataset becomes FAILED. Stopping the execution only stops watching.",
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
