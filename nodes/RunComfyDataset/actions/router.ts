import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import type { OperationModule } from '../../shared/router';
import { runOperation } from '../../shared/router';
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

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const resource = this.getNodeParameter('resource', 0) as string;
	const operation = this.getNodeParameter('operation', 0) as string;
	const module = resources[resource]?.[operation];
	if (!module) {
		throw new NodeOperationError(this.getNode(), `The operation "${operation}" of "${resource}" is not supported`, {
			description: 'Pick another operation, or update the node.',
		});
	}
	return [await runOperation(this, module)];
}
