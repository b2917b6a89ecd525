import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';
import * as deleteDataset from './delete.operation';
import * as getStatus from './getStatus.operation';
import * as getUploadUrls from './getUploadUrls.operation';
import * as getAll from './getAll.operation';
import * as uploadCaption from './uploadCaption.operation';
import * as uploadFile from './uploadFile.operation';
import * as uploadFromUrl from './uploadFromUrl.operation';
import * as waitUntilReady from './waitUntilReady.operation';

export { create, deleteDataset as delete, getAll, getStatus, getUploadUrls, uploadCaption, uploadFile, uploadFromUrl, waitUntilReady };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['dataset'] } },
		default: 'uploadFile',
		options: [
			{ name: 'Create', value: 'create', description: 'Create a new, empty dataset', action: 'Create dataset' },
			{ name: 'Delete', value: 'delete', description: 'Delete a dataset permanently', action: 'Delete dataset' },
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'Retrieve a list of datasets, filtered by name or status',
				action: 'Get many datasets',
			},
			{
				name: 'Get Status',
				value: 'getStatus',
				description: 'Get the status and the uploaded files, with a warning for media without a caption',
				action: 'Get status of dataset',
			},
			{
				name: 'Get Upload URLs',
				value: 'getUploadUrls',
				description: 'Get raw signed upload URLs for a map of file name → byte size',
				action: 'Get signed upload endpoints for dataset',
			},
			{
				name: 'Upload Caption',
				value: 'uploadCaption',
				description: 'Write the caption text file of an image or video',
				action: 'Upload caption to dataset',
			},
			{
				name: 'Upload File',
				value: 'uploadFile',
				description: 'Upload the binary file of every input item (any size), optionally with its caption',
				action: 'Upload file to dataset',
			},
			{
				name: 'Upload From URL',
				value: 'uploadFromUrl',
				description: 'Download a public http(s) file (up to 150 MB) and upload it',
				action: 'Upload file from URL to dataset',
			},
			{
				name: 'Wait Until Ready',
				value: 'waitUntilReady',
				description: 'Poll until the dataset is READY; fail if it becomes FAILED',
				action: 'Wait until dataset is ready',
			},
		],
	},
	...create.description,
	...getAll.description,
	...getStatus.description,
	...deleteDataset.description,
	...uploadFile.description,
	...uploadFromUrl.description,
	...uploadCaption.description,
	...getUploadUrls.description,
	...waitUntilReady.description,
];
