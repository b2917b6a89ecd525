import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { runOperation } from '../../shared/router';
import type { OperationModule } from '../../shared/router';
import * as deployment from './deployment';
import * as inference from './inference';
import type { RunComfyDeploymentType } from './node.type';

type Operations<R extends RunComfyDeploymentType['resource']> = Record<
	Extract<RunComfyDeploymentType, { resource: R }>['operation'],
	OperationModule
>;

const deploymentOperations: Operations<'deployment'> = {
	list: deployment.list,
	get: deployment.get,
	create: deployment.create,
	update: deployment.update,
	pause: deployment.pause,
	resume: deployment.resume,
	delete: deployment.delete,
};

const inferenceOperations: Operations<'inference'> = {
	run: inference.run,
	getStatus: inference.getStatus,
	getResult: inference.getResult,
	cancel: inference.cancel,
	deleteRequest: inference.deleteRequest,
	callInstanceProxy: inference.callInstanceProxy,
};

const resources: { [R in RunComfyDeploymentType['resource']]: Operations<R> } = {
	deployment: deploymentOperations,
	inference: inferenceOperations,
};

/** Finds the operation module of the chosen resource/operation and runs it through the shared router. */
export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const resource = this.getNodeParameter('resource', 0) as RunComfyDeploymentType['resource'];
	const operation = this.getNodeParameter('operation', 0) as string;
	const operations = resources[resource] as Record<string, OperationModule> | undefined;
	const module = operations?.[operation];
	if (!module) {
		throw new NodeOperationError(this.getNode(), `The operation "${operation}" of "${resource}" is not supported`, {
			description: 'Pick another operation, or update the node.',
		});
	}
	return [await runOperation(this, module)];
}
