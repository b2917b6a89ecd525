import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { createDeployment } from '../../../shared/transport';
import { SCALING_LIMITS, checkMinMax, scalingBody } from '../../helpers/scaling';
import { HARDWARE_DESCRIPTION, hardwareOptions } from '../../helpers/properties';

const properties: INodeProperties[] = [
	{
		displayName: 'Name',
		name: 'name',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. text-to-image',
		description: 'Name of the new deployment',
	},
	{
		displayName: 'Workflow ID',
		name: 'workflowId',
		type: 'string',
		required: true,
		default: '',
		placeholder: 'e.g. 00000000-0000-0000-0000-000000000000',
		description: 'ID of the cloud-saved ComfyUI workflow to deploy (from your RunComfy workspace)',
	},
	{
		displayName: 'Workflow Version',
		name: 'workflowVersion',
		type: 'string',
		required: true,
		default: 'v1',
		description: 'Version of the saved workflow to deploy, e.g. v1',
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
		displayName: 'Min Instances',
		name: 'minInstances',
		type: 'number',
		typeOptions: { minValue: 0, maxValue: SCALING_LIMITS.minInstances.max },
		default: 0,
		description: 'Instances kept running at all times. 0 scales to zero when idle (no cost, but a cold start).',
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
		displayName: 'Queue Size',
		name: 'queueSize',
		type: 'number',
		typeOptions: { minValue: 0, maxValue: SCALING_LIMITS.queueSize.max },
		default: 1,
		description: 'Requests waiting per instance before another instance is started',
	},
	{
		displayName: 'Keep Warm (Seconds)',
		name: 'keepWarmSeconds',
		type: 'number',
		typeOptions: { minValue: 0, maxValue: SCALING_LIMITS.keepWarmSeconds.max },
		default: 60,
		description: 'How long an idle instance stays up before it is shut down',
	},
];

export const description = updateDisplayOptions({ show: { resource: ['deployment'], operation: ['create'] } }, properties);

/** Deployment → Create. Defaults as the official clients: AMPERE_48, min 0, max 1, queue 1, keep warm 60 s. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const get = (name: string, fallback: unknown) => this.getNodeParameter(name, itemIndex, fallback);
	const workflowId = String(get('workflowId', '') ?? '').trim();
	if (!workflowId) {
		throw new NodeOperationError(this.getNode(), 'The Workflow ID is empty', {
			itemIndex,
			description: 'Enter the ID of a cloud-saved ComfyUI workflow from your RunComfy workspace. Nothing was created.',
		});
	}
	const body = scalingBody(this, itemIndex, {
		name: get('name', ''),
		workflowVersion: get('workflowVersion', 'v1'),
		hardware: get('hardware', 'AMPERE_48'),
		minInstances: get('minInstances', 0),
		maxInstances: get('maxInstances', 1),
		queueSize: get('queueSize', 1),
		keepWarmSeconds: get('keepWarmSeconds', 60),
	} as IDataObject);
	checkMinMax(this, itemIndex, body.min_instances as number, body.max_instances as number);
	return { ...(await createDeployment(this, { ...body, workflow_id: workflowId })) };
}
