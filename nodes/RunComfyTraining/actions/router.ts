import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { routeOperation } from '../../shared/router';
import type { OperationMap } from '../../shared/router';
import type { RunComfyTrainingType } from './node.type';
import * as trainingJob from './trainingJob';

const operations: OperationMap<RunComfyTrainingType> = {
	trainingJob: {
		submit: trainingJob.submit,
		getStatus: trainingJob.getStatus,
		getResult: trainingJob.getResult,
		cancel: trainingJob.cancel,
		resume: trainingJob.resume,
		edit: trainingJob.edit,
	},
};

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	return await routeOperation(this, operations);
}
