import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { callInstanceProxy } from '../../../shared/transport';
import { parseJsonObject } from '../../helpers/body';
import { readDeploymentId, readInstanceId } from '../../helpers/deployments';
import { deploymentLocatorProperty } from '../../helpers/properties';

const properties: INodeProperties[] = [
	deploymentLocatorProperty,
	{
		displayName: 'Instance ID',
		name: 'instanceId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 1697cb1a-…',
		description:
			'A live instance of the deployment: the instance_id shown by Get Status while a request is in progress. Instance IDs are only valid while the instance runs.',
	},
	{
		displayName: 'Path',
		name: 'path',
		type: 'string',
		required: true,
		default: 'api/free',
		placeholder: 'e.g. api/free',
		description: 'The ComfyUI backend path on the instance, without the host (a leading / is removed)',
	},
	{
		displayName: 'Body (JSON)',
		name: 'body',
		type: 'json',
		default: '{\n  "unload_models": true,\n  "free_memory": true\n}',
		description: 'JSON body forwarded to the ComfyUI backend. Empty sends {}.',
	},
];

export const description = updateDisplayOptions({ show: { resource: ['inference'], operation: ['callInstanceProxy'] } }, properties);

/** Inference → Call Instance Proxy: POST a JSON body to a ComfyUI backend path on a live instance. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const deploymentId = readDeploymentId(this, itemIndex);
	const instanceId = readInstanceId(this, itemIndex);
	const path = String(this.getNodeParameter('path', itemIndex, '') ?? '')
		.trim()
		.replace(/^\/+/, '');
	if (!path) {
		throw new NodeOperationError(this.getNode(), 'The Path is empty', {
			itemIndex,
			description: 'Enter the ComfyUI backend path to call on the instance, e.g. api/free. Nothing was sent.',
		});
	}
	const body =
		parseJsonObject(this, itemIndex, this.getNodeParameter('body', itemIndex, ''), 'Body (JSON)', '{"unload_models": true}') ?? {};
	const response = await callInstanceProxy(this, deploymentId, instanceId, path, body);
	return { deployment_id: deploymentId, instance_id: instanceId, path, response: (response ?? null) as IDataObject[string] };
}
