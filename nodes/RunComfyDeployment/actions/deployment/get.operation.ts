import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getDeployment } from '../../../shared/transport';
import { readDeploymentId, onDeployment } from '../../helpers/deployments';
import { workflowSummary } from '../../helpers/graph';
import { deploymentLocatorProperty } from '../../helpers/properties';

const properties: INodeProperties[] = [
	deploymentLocatorProperty,
	{
		displayName: 'Include Workflow',
		name: 'includePayload',
		type: 'boolean',
		default: false,
		description:
			"Whether to include the deployment's saved workflow (workflow_api_json: every node ID and input name) and a short summary of its nodes",
	},
	{
		displayName: 'Include Readme',
		name: 'includeReadme',
		type: 'boolean',
		default: false,
		description: "Whether to include the deployment's README text",
	},
];

export const description = updateDisplayOptions({ show: { resource: ['deployment'], operation: ['get'] } }, properties);

/** Deployment → Get. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = readDeploymentId(this, itemIndex);
	const includePayload = this.getNodeParameter('includePayload', itemIndex, false) as boolean;
	const includeReadme = this.getNodeParameter('includeReadme', itemIndex, false) as boolean;
	const deployment = await onDeployment(this, id, itemIndex, async () =>
		await getDeployment(this, id, { includePayload, includeReadme }),
	);
	return includePayload ? { ...deployment, ...workflowSummary(deployment) } : { ...deployment };
}
