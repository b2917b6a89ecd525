import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, jsonParse, updateDisplayOptions } from 'n8n-workflow';

import { getDatasetUploadUrls } from '../../../shared/transport';
import { datasetLocator, readDatasetId } from '../../helpers/datasets';
import { fileNameProblem } from '../../helpers/files';

const properties: INodeProperties[] = [
	{
		displayName:
			"Signed URLs are short-lived: send each file's exact bytes with the returned method and headers, without your RunComfy token. Upload File does all this for you.",
		name: 'signedUrlNotice',
		type: 'notice',
		default: '',
	},
	datasetLocator({}),
	{
		displayName: 'File Sizes (JSON)',
		name: 'fileSizes',
		type: 'json',
		default: '{\n  "img_0001.jpg": 2000000,\n  "img_0001.txt": 42\n}',
		required: true,
		description:
			'A JSON object mapping each file name to its exact size in bytes. The signature is derived from the size, so storage refuses a different one.',
	},
];

export const description = updateDisplayOptions({ show: { resource: ['dataset'], operation: ['getUploadUrls'] } }, properties);

/** Validates the name → byte size map (non-empty; every size a positive whole number, booleans refused). */
export function readFileSizes(value: unknown): { sizes?: Record<string, number>; problem?: string } {
	let parsed = value;
	if (typeof value === 'string') {
		try {
			parsed = jsonParse(value);
		} catch (error) {
			return { problem: `File Sizes is not valid JSON: ${(error as Error).message}` };
		}
	}
	if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
		return { problem: 'File Sizes must be a JSON object such as {"img_0001.jpg": 2000000}' };
	}
	const entries = Object.entries(parsed as Record<string, unknown>);
	if (entries.length === 0) return { problem: 'File Sizes is empty: name at least one file' };
	const sizes: Record<string, number> = {};
	for (const [name, size] of entries) {
		const bad = fileNameProblem(name);
		if (bad) return { problem: bad };
		if (typeof size !== 'number' || !Number.isInteger(size) || size <= 0) {
			return { problem: `The size of ${name} must be a positive whole number of bytes (got ${JSON.stringify(size)})` };
		}
		sizes[name] = size;
	}
	return { sizes };
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const datasetId = readDatasetId(this, itemIndex);
	const { sizes, problem } = readFileSizes(this.getNodeParameter('fileSizes', itemIndex, '{}'));
	if (!sizes) {
		throw new NodeOperationError(this.getNode(), problem ?? 'File Sizes is not valid', {
			itemIndex,
			description: 'Enter a JSON object mapping each file name to its exact byte size, e.g. {"img_0001.jpg": 2000000}.',
		});
	}
	const uploads = await getDatasetUploadUrls(this, datasetId, sizes);
	return { dataset_id: datasetId, uploads };
}
