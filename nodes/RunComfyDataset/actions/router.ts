import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { routeOperation } from '../../shared/router';
import type { OperationMap } from '../../shared/router';
import * as dataset from './dataset';
import type { RunComfyDatasetType } from './node.type';

const operations: OperationMap<RunComfyDatasetType> = {
	dataset: {
		create: dataset.create,
		getAll: dataset.getAll,
		getStatus: dataset.getStatus,
		delete: dataset.delete,
		uploadFile: dataset.uploadFile,
		uploadFromUrl: dataset.uploadFromUrl,
		uploadCaption: dataset.uploadCaption,
		getUploadUrls: dataset.getUploadUrls,
		waitUntilReady: dataset.waitUntilReady,
	},
};

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	return await routeOperation(this, operations);
}
