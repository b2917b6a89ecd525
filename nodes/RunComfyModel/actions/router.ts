import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { routeOperation } from '../../shared/router';
import type { OperationMap } from '../../shared/router';
import * as account from './account';
import * as catalog from './catalog';
import * as model from './model';
import type { RunComfyModelType } from './node.type';

const operations: OperationMap<RunComfyModelType> = {
	model: { run: model.run, estimateCost: model.estimateCost, getStatus: model.getStatus, getResult: model.getResult, cancel: model.cancel },
	catalog: { getManyModels: catalog.getManyModels, getManyCategories: catalog.getManyCategories, getModel: catalog.getModel },
	account: { getBalance: account.getBalance },
};

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	return await routeOperation(this, operations);
}
