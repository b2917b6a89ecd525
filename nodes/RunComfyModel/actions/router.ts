import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { runOperation } from '../../shared/router';
import type { OperationModule } from '../../shared/router';
import * as account from './account';
import * as catalog from './catalog';
import * as model from './model';
import type { RunComfyModelType } from './node.type';

const operations: { [R in RunComfyModelType['resource']]: Record<Extract<RunComfyModelType, { resource: R }>['operation'], OperationModule> } = {
	model: { run: model.run, getStatus: model.getStatus, getResult: model.getResult, cancel: model.cancel },
	catalog: { listModels: catalog.listModels, listCategories: catalog.listCategories, getModel: catalog.getModel },
	account: { getBalance: account.getBalance },
};

/** Finds the operation for the node's resource/operation and runs it with the shared error policy. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const resource = this.getNodeParameter('resource', 0) as RunComfyModelType['resource'];
	const operation = this.getNodeParameter('operation', 0) as string;
	const module = (operations[resource] as Record<string, OperationModule> | undefined)?.[operation];
	if (!module) {
		throw new NodeOperationError(this.getNode(), `The operation "${operation}" of "${resource}" is not supported`, {
			description: 'Pick another resource or operation, or update the node.',
		});
	}
	return [await runOperation(this, module)];
}
