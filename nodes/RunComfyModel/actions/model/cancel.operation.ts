import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { withPublicStatus } from '../../../shared/status';
import { cancelModelRequest } from '../../../shared/transport';
import { readRequestId } from '../../helpers/ids';
import { requestIdProperty } from '../../helpers/properties';

const properties: INodeProperties[] = [requestIdProperty];

export const description = updateDisplayOptions({ show: { resource: ['model'], operation: ['cancel'] } }, properties);

/** Model → Cancel: only a queued run can be cancelled; a running or finished one answers `not_cancellable`. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const requestId = readRequestId(this, itemIndex);
	const outcome = await cancelModelRequest(this, requestId);
	// The run's status in the nodes' one vocabulary (the service's word stays in service_status).
	return withPublicStatus({ request_id: requestId, ...outcome });
}
