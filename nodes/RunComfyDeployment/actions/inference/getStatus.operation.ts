import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { forCaller } from '../../../shared/items';
import { withPublicStatus } from '../../../shared/status';
import { getDeploymentRequestStatus } from '../../../shared/transport';
import { readDeploymentId, readRequestId } from '../../helpers/deployments';
import { toolJson } from '../../helpers/results';
import { deploymentLocatorProperty, requestIdProperty } from '../../helpers/properties';

const properties: INodeProperties[] = [deploymentLocatorProperty, requestIdProperty];

export const description = updateDisplayOptions({ show: { resource: ['inference'], operation: ['getStatus'] } }, properties);

/**
 * Inference → Get Status: one snapshot (in_queue with queue_position, in_progress with instance_id,
 * completed, cancelled). The instance_id is what Call Instance Proxy needs.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const deploymentId = readDeploymentId(this, itemIndex);
	const requestId = readRequestId(this, itemIndex);
	const record = await getDeploymentRequestStatus(this, deploymentId, requestId);
	const json = withPublicStatus({ deployment_id: deploymentId, request_id: requestId, ...record });
	return forCaller(this, json, toolJson);
}
