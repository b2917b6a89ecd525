import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { withPublicStatus } from '../../../shared/status';
import { cancelTrainingJob } from '../../../shared/transport';
import { jobIdProperty, readJobId } from '../../helpers/jobFields';

const properties: INodeProperties[] = [jobIdProperty()];

export const description = updateDisplayOptions({ show: { resource: ['trainingJob'], operation: ['cancel'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const jobId = readJobId(this, itemIndex);
	const response = await cancelTrainingJob(this, jobId);
	// The status in the nodes' one vocabulary (CANCELED → cancelled; the service's word stays in service_status).
	return withPublicStatus({
		job_id: jobId,
		...(response ?? {}),
		note: 'Checkpoints produced so far remain available through Get Result. Edit and Resume can continue the job.',
	});
}
