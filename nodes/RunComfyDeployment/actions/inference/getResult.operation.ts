import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { downloadProperties } from '../../../shared/descriptions';
import { DownloadHosts } from '../../../shared/outputs';
import { resultState, withPublicStatus } from '../../../shared/status';
import { getDeploymentRequestResult } from '../../../shared/transport';
import { readDeploymentId, readRequestId } from '../../helpers/deployments';
import { presentResult, readResultOptions } from '../../helpers/present';
import { resultJson } from '../../helpers/results';
import { deleteAfterDownloadOption, deploymentLocatorProperty, requestIdProperty } from '../../helpers/properties';

const show = { resource: ['inference'], operation: ['getResult'] };

const properties: INodeProperties[] = [
	deploymentLocatorProperty,
	requestIdProperty,
	...downloadProperties(show),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [deleteAfterDownloadOption],
	},
];

export const description = updateDisplayOptions({ show }, properties);

/**
 * Inference → Get Result: the result record with `outputs_flat`; outputs are downloaded when the request
 * succeeded. Results are kept on the service for 7 days after success.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const deploymentId = readDeploymentId(this, itemIndex);
	const requestId = readRequestId(this, itemIndex);
	const options = readResultOptions(this, itemIndex);
	const result = await getDeploymentRequestResult(this, deploymentId, requestId);
	const state = resultState(result);
	const json = withPublicStatus(resultJson(deploymentId, requestId, result), state);
	const succeeded = state === 'succeeded';
	return await presentResult(this, itemIndex, deploymentId, json, succeeded, new DownloadHosts(this), options);
}
