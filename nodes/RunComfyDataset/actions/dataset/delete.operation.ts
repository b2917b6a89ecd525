import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { deleteDataset } from '../../../shared/transport';
import { datasetLocator, readDatasetId } from '../../helpers/datasets';

const properties: INodeProperties[] = [
	{
		displayName: 'Deleting a dataset is permanent: its files are removed and training configs can no longer mount it',
		name: 'deleteNotice',
		type: 'notice',
		default: '',
	},
	datasetLocator({}),
];

export const description = updateDisplayOptions({ show: { resource: ['dataset'], operation: ['delete'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const datasetId = readDatasetId(this, itemIndex);
	const response = await deleteDataset(this, datasetId);
	return { id: datasetId, deleted: true, ...(response ?? {}) };
}
