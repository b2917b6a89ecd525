import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { readLimit, returnAllProperties } from '../../../shared/descriptions';
import { listDatasets } from '../../../shared/transport';

const properties: INodeProperties[] = [
	...returnAllProperties(),
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Name Contains',
				name: 'nameContains',
				type: 'string',
				default: '',
				description: 'Only datasets whose name contains this text (case-insensitive)',
			},
			{
				displayName: 'Status',
				name: 'status',
				type: 'multiOptions',
				default: [],
				options: [
					{ name: 'Draft', value: 'DRAFT' },
					{ name: 'Failed', value: 'FAILED' },
					{ name: 'Ready', value: 'READY' },
					{ name: 'Uploading', value: 'UPLOADING' },
				],
				description: 'Only datasets in these states',
			},
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['dataset'], operation: ['getAll'] } }, properties);

/** The service returns every dataset at once (no paging): filters and Limit apply here. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const limit = readLimit(this, itemIndex);
	const filters = this.getNodeParameter('filters', itemIndex, {}) as { nameContains?: string; status?: string[] };
	const needle = (filters.nameContains ?? '').trim().toLowerCase();
	const statuses = (filters.status ?? []).map((s) => s.toUpperCase());
	const datasets = (await listDatasets(this)).filter(
		(d) =>
			(!needle ||
				String(d.name ?? '')
					.toLowerCase()
					.includes(needle)) &&
			(statuses.length === 0 || statuses.includes(String(d.status ?? '').toUpperCase())),
	);
	return datasets.slice(0, limit);
}
