import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { asChosen, readSimplify, simplifyProperty } from '../../../shared/simplify';
import { getTrainingJobResult, getTrainingJobStatus } from '../../../shared/transport';
import { jobIdProperty, readJobId } from '../../helpers/jobFields';
import { describeJob, rawStatus } from '../../helpers/jobRecords';

const properties: INodeProperties[] = [jobIdProperty(), simplifyProperty];

export const description = updateDisplayOptions({ show: { resource: ['trainingJob'], operation: ['getStatus'] } }, properties);

/**
 * One status snapshot with step progress (current, total, percent). A STOPPED job is told apart as finished or
 * incomplete (stopped early, e.g. the server was reclaimed) using its result, as the CLI does.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const jobId = readJobId(this, itemIndex);
	const simple = readSimplify(this, itemIndex);
	const status = (await getTrainingJobStatus(this, jobId)) as IDataObject;
	const result = rawStatus(status) === 'STOPPED' ? await getTrainingJobResult(this, jobId) : undefined;
	return asChosen(simple, 'trainingJob', describeJob(jobId, status, result));
}
