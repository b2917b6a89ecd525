import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { OperationModule } from '../../shared/router';
import { routeOperation } from '../../shared/router';
import * as trainingJob from './trainingJob';

const resources: Record<string, Record<string, OperationModule>> = {
	trainingJob: {
		submit: trainingJob.submit,
		getStatus: trainingJob.getStatus,
		getResult: trainingJob.getResult,
		cancel: trainingJob.cancel,
		resume: trainingJob.resume,
		edit: trainingJob.edit,
	},
};

/** Finds the operation module of the chosen resource/operation and runs it through the shared router. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	return await routeOperation(this, resources);
}
