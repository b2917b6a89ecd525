import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { runJobs } from '../../../shared/jobs';
import { datasetLocator, readDatasetId, readyWaitOptionsProperty } from '../../helpers/datasets';
import { readyKind } from '../../helpers/jobKind';

const properties: INodeProperties[] = [datasetLocator({}), readyWaitOptionsProperty({})];

export const description = updateDisplayOptions({ show: { resource: ['dataset'], operation: ['waitUntilReady'] } }, properties);

/** Polls every item's dataset until READY (all at once, once per dataset); FAILED becomes an error with the service's reason. */
export async function executeBatch(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	return await runJobs(
		this,
		items,
		readyKind(this, (i) => readDatasetId(this, i)),
	);
}
