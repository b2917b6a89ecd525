import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { uploadDatasetText } from '../../../shared/transport';
import type { UploadRecord, UploadTask } from '../../helpers/jobKind';
import { datasetLocator, readDatasetId, uploadWaitProperties } from '../../helpers/datasets';
import { readParallelUploads, uploadKind } from '../../helpers/jobKind';
import { runJobs } from '../../../shared/jobs';
import { captionFileNameFor, fileNameProblem, isMediaFile } from '../../helpers/files';

const properties: INodeProperties[] = [
	datasetLocator({}),
	{
		displayName: 'Image or Video File Name',
		name: 'fileName',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. img_0001.jpg',
		description:
			'The media file this caption belongs to. The caption is written as a text file with the same base name (img_0001.jpg → img_0001.txt). A name ending in .txt is used as is.',
	},
	{
		displayName: 'Caption',
		name: 'text',
		type: 'string',
		typeOptions: { rows: 3 },
		default: '',
		required: true,
		placeholder: 'e.g. a photo of p3r5on wearing a red jacket, city street at night',
		description: 'The caption text. Use the trigger word here, or [trigger] which ai-toolkit replaces with it.',
	},
	...uploadWaitProperties({}),
];

export const description = updateDisplayOptions({ show: { resource: ['dataset'], operation: ['uploadCaption'] } }, properties);

export async function executeBatch(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const prepare = (itemIndex: number): UploadTask => {
		const datasetId = readDatasetId(this, itemIndex);
		const forFile = String(this.getNodeParameter('fileName', itemIndex, '') ?? '').trim();
		const problem = fileNameProblem(forFile);
		if (problem) {
			throw new NodeOperationError(this.getNode(), `Cannot write the caption: ${problem}`, {
				itemIndex,
				description: 'Enter the name of the image or video in the dataset, e.g. img_0001.jpg.',
			});
		}
		const text = this.getNodeParameter('text', itemIndex, '') as unknown;
		const captionName = captionFileNameFor(forFile);
		return {
			itemIndex,
			datasetId,
			fileNames: [captionName],
			run: async (): Promise<UploadRecord> => {
				const caption = typeof text === 'string' ? text : JSON.stringify(text);
				const response = await uploadDatasetText(this, datasetId, captionName, caption);
				return {
					dataset_id: datasetId,
					file_name: captionName,
					...(isMediaFile(forFile) ? { caption_for: forFile } : {}),
					size_bytes: Buffer.byteLength(caption, 'utf8'),
					upload_method: 'text',
					response,
				};
			},
		};
	};
	return await runJobs(this, items, uploadKind(this, prepare, readParallelUploads(this, items.length)));
}
