import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getDatasetStatus } from '../../../shared/transport';
import { datasetLocator, describeDataset, readDatasetId } from '../../helpers/datasets';

const properties: INodeProperties[] = [datasetLocator({})];

export const description = updateDisplayOptions({ show: { resource: ['dataset'], operation: ['getStatus'] } }, properties);

/** Status and the successfully uploaded files, with a warning for every image or video that has no caption. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const datasetId = readDatasetId(this, itemIndex);
	return describeDataset(await getDatasetStatus(this, datasetId));
}
