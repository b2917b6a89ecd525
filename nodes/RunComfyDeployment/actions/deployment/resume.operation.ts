import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { updateDeployment } from '../../../shared/transport';
import { onDeployment, readDeploymentId } from '../../helpers/deployments';
import { deploymentLocatorProperty } from '../../helpers/properties';

const properties: INodeProperties[] = [deploymentLocatorProperty];

export const description = updateDisplayOptions({ show: { resource: ['deployment'], operation: ['resume'] } }, properties);

/** Deployment → Resume (is_enabled true): the deployment accepts requests again. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = readDeploymentId(this, itemIndex);
	return { ...(await onDeployment(this, id, itemIndex, async () => await updateDeployment(this, id, { is_enabled: true }))) };
}
