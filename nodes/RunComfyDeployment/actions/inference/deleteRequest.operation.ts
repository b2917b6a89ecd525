import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { deleteDeploymentRequest } from '../../../shared/transport';
import { readDeploymentId, readRequestId } from '../../helpers/deployments';
import { deploymentLocatorProperty, requestIdProperty } from '../../helpers/properties';

const properties: INodeProperties[] = [deploymentLocatorProperty, requestIdProperty];

export const description = updateDisplayOptions({ show: { resource: ['inference'], operation: ['deleteRequest'] } }, properties);

/** Inference → Delete Request: removes the request's inputs and outputs on the service at once (permanent). */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const deploymentId = readDeploymentId(this, itemIndex);
	const requestId = readRequestId(this, itemIndex);
	const response = await deleteDeploymentRequest(this, deploymentId, requestId);
	return {
		deployment_id: deploymentId,
		request_id: requestId,
		deleted: true,
		...(response && typeof response === 'object' ? response : {}),
	};
}
