import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { deleteDeployment } from '../../../shared/transport';
import { onDeployment, readDeploymentId } from '../../helpers/deployments';
import { deploymentLocatorProperty } from '../../helpers/properties';

const properties: INodeProperties[] = [
	{
		...deploymentLocatorProperty,
		description: 'The deployment to delete. Deleting is permanent: its endpoint stops working at once.',
	},
];

export const description = updateDisplayOptions({ show: { resource: ['deployment'], operation: ['delete'] } }, properties);

/** Deployment → Delete (permanent). */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = readDeploymentId(this, itemIndex);
	const response = await onDeployment(this, id, itemIndex, async () => await deleteDeployment(this, id));
	return { deployment_id: id, deleted: true, ...(response && typeof response === 'object' ? response : {}) };
}
