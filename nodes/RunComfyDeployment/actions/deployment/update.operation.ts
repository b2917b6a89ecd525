import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { getDeployment, updateDeployment } from '../../../shared/transport';
import { onDeployment, readDeploymentId } from '../../helpers/deployments';
import { SCALING_LIMITS, checkMinMax, scalingBody } from '../../helpers/scaling';
import { HARDWARE_DESCRIPTION, deploymentLocatorProperty, hardwareOptions } from '../../helpers/properties';

const properties: INodeProperties[] = [
	deploymentLocatorProperty,
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		description: 'Only the fields added here are changed',
		options: [
			{
				displayName: 'Enabled',
				name: 'enabled',
				type: 'boolean',
				default: true,
				description: 'Whether the deployment is enabled. Off pauses it: instances shut down, billing stops, the configuration is kept.',
			},
			{
				displayName: 'Hardware',
				name: 'hardware',
				type: 'options',
				default: 'AMPERE_48',
				options: hardwareOptions,
				description: HARDWARE_DESCRIPTION,
			},
			{
				displayName: 'Keep Warm (Seconds)',
				name: 'keepWarmSeconds',
				type: 'number',
				typeOptions: { minValue: 0, maxValue: SCALING_LIMITS.keepWarmSeconds.max },
				default: 60,
				description: 'How long an idle instance stays up before it is shut down',
			},
			{
				displayName: 'Max Instances',
				name: 'maxInstances',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: SCALING_LIMITS.maxInstances.max },
				default: 1,
				description: 'Upper bound of autoscaling; at least Min Instances',
			},
			{
				displayName: 'Min Instances',
				name: 'minInstances',
				type: 'number',
				typeOptions: { minValue: 0, maxValue: SCALING_LIMITS.minInstances.max },
				default: 0,
				description: 'Instances kept running at all times; 0 scales to zero when idle',
			},
			{
				displayName: 'Name',
				name: 'name',
				type: 'string',
				default: '',
				description: 'New name of the deployment',
			},
			{
				displayName: 'Queue Size',
				name: 'queueSize',
				type: 'number',
				typeOptions: { minValue: 0, maxValue: SCALING_LIMITS.queueSize.max },
				default: 1,
				description: 'Requests waiting per instance before another instance is started',
			},
			{
				displayName: 'Workflow Version',
				name: 'workflowVersion',
				type: 'string',
				default: '',
				placeholder: 'e.g. v2',
				description: 'Version of the saved workflow to serve',
			},
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['deployment'], operation: ['update'] } }, properties);

/**
 * Deployment → Update: only the fields given. The deployment is read first: a missing one is reported plainly,
 * min/max are checked against its current values, and its name is sent along (the service requires it).
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = readDeploymentId(this, itemIndex);
	const fields = this.getNodeParameter('updateFields', itemIndex, {}) as IDataObject;
	const patch = scalingBody(this, itemIndex, fields, 'updateFields.');
	if (Object.keys(patch).length === 0) {
		throw new NodeOperationError(this.getNode(), 'No fields to update', {
			itemIndex,
			description: 'Add at least one field under "Update Fields". Nothing was changed on the service.',
		});
	}
	const current = await onDeployment(this, id, itemIndex, async () => await getDeployment(this, id));
	const min = (patch.min_instances ?? current.min_instances) as number | undefined;
	const max = (patch.max_instances ?? current.max_instances) as number | undefined;
	if (typeof min === 'number' && typeof max === 'number') checkMinMax(this, itemIndex, min, max);
	if (patch.name === undefined && current.name) patch.name = current.name;
	return { ...(await onDeployment(this, id, itemIndex, async () => await updateDeployment(this, id, patch))) };
}
