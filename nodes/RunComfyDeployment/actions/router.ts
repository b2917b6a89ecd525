import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { routeOperation } from '../../shared/router';
import type { OperationMap } from '../../shared/router';
import * as deployment from './deployment';
import * as inference from './inference';
import type { RunComfyDeploymentType } from './node.type';

const operations: OperationMap<RunComfyDeploymentType> = {
	deployment: {
		getAll: deployment.getAll,
		get: deployment.get,
		create: deployment.create,
		update: deployment.update,
		pause: deployment.pause,
		resume: deployment.resume,
		delete: deployment.delete,
	},
	inference: {
		run: inference.run,
		getStatus: inference.getStatus,
		getResult: inference.getResult,
		cancel: inference.cancel,
		deleteRequest: inference.deleteRequest,
		callInstanceProxy: inference.callInstanceProxy,
	},
};

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	return await routeOperation(this, operations);
}
