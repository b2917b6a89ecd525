import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { createDataset } from '../../../shared/transport';
import { describeDataset } from '../../helpers/datasets';

const properties: INodeProperties[] = [
	{
		displayName: 'Name',
		name: 'name',
		type: 'string',
		default: '',
		placeholder: 'e.g. my-character-v1',
		description:
			'Unique name of the dataset in your account. Training configs mount it as /app/ai-toolkit/datasets/&lt;name&gt;. Leave empty to let RunComfy generate one.',
	},
];

export const description = updateDisplayOptions({ show: { resource: ['dataset'], operation: ['create'] } }, properties);

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const name = String(this.getNodeParameter('name', itemIndex, '') ?? '').trim();
	const dataset = await createDataset(this, name || undefined);
	return describeDataset(dataset);
}
