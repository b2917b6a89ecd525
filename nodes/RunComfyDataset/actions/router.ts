import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { OperationModule } from '../../shared/router';
import { routeOperation } from '../../shared/router';
import * as dataset from './dataset';

const resources: Record<string, Record<string, OperationModule>> = {
	dataset: {
		create: dataset.create,
		list: dataset.list,
		getStatus: dataset.getStatus,
		delete: dataset.delete,
		uploadFile: dataset.uploadFile,
		uploadFromUrl: dataset.uploadFromUrl,
		uploadCaption: dataset.uploadCaption,
		getUploadUrls: dataset.getUploadUrls,
		waitUntilReady: dataset.waitUntilReady,
	},
};

/** Finds the operation module of the chosen resource/operation and runs it through the shared router. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	return await routeOperation(this, resources);
}
