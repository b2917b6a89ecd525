import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { asChosen, readSimplify, simplifyProperty } from '../../../shared/simplify';
import { getDatasetStatus } from '../../../shared/transport';
import { datasetLocator, describeDataset, readDatasetId } from '../../helpers/datasets';

const properties: INodeProperties[] = [datasetLocator({}), simplifyProperty];

export const description = updateDisplayOptions({ show: { resource: ['dataset'], operation: ['getStatus'] } }, properties);

/**
 * Status and the successfully uploaded files, with a warning for every image or video that has no caption;
 * simplified, the files as their count and the missing captions only.
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const datasetId = readDatasetId(this, itemIndex);
	const simple = readSimplify(this, itemIndex);
	return asChosen(simple, 'dataset', describeDataset(await getDatasetStatus(this, datasetId)));
}
