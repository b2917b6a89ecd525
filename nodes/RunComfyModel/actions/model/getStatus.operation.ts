import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { withPublicStatus } from '../../../shared/status';
import { getModelRequestStatus } from '../../../shared/transport';
import { readRequestId } from '../../helpers/ids';
import { requestIdProperty } from '../../helpers/properties';

const properties: INodeProperties[] = [requestIdProperty];

export const description = updateDisplayOptions({ show: { resource: ['model'], operation: ['getStatus'] } }, properties);

/**
 * Model → Get Status: one status request for a request id. The service's `status` is kept as it is
 * (`in_queue`, `in_progress`, `completed`, `cancelled`); `completed` covers failed runs too, so use
 * Get Result to learn whether the run succeeded.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const requestId = readRequestId(this, itemIndex);
	const record = await getModelRequestStatus(this, requestId);
	return withPublicStatus({ request_id: requestId, ...record });
}
