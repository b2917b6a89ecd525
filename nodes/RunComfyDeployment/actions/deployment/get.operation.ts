import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { readBoolean } from '../../../shared/params';
import { asChosen, readSimplify, simplifyProperty } from '../../../shared/simplify';
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
	simplifyProperty,
];

export const description = updateDisplayOptions({ show: { resource: ['deployment'], operation: ['get'] } }, properties);

/** Deployment → Get; simplified, the workflow comes as its `workflow_nodes` summary only. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = readDeploymentId(this, itemIndex);
	const includePayload = readBoolean(this, 'includePayload', itemIndex, false, 'Include Workflow');
	const includeReadme = readBoolean(this, 'includeReadme', itemIndex, false, 'Include Readme');
	const simple = readSimplify(this, itemIndex);
	const deployment = await onDeployment(this, id, itemIndex, async () => await getDeployment(this, id, { includePayload, includeReadme }));
	return asChosen(simple, 'deployment', includePayload ? { ...deployment, ...workflowSummary(deployment) } : { ...deployment });
}
