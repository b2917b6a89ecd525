/** The dataset picker, shared by the Dataset, Training and Trigger nodes: the property and its list search. */
import type { IDataObject, IDisplayOptions, ILoadOptionsFunctions, INodeListSearchResult, INodeProperties } from 'n8n-workflow';

import { listDatasets } from '../transport';

export function datasetLocator(show: IDisplayOptions['show']): INodeProperties {
	return {
		displayName: 'Dataset',
		name: 'dataset',
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		description: 'The dataset to work on',
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				placeholder: 'Select a dataset...',
				typeOptions: { searchListMethod: 'searchDatasets', searchable: true },
			},
			{
				displayName: 'By ID',
				name: 'id',
				type: 'string',
				placeholder: 'e.g. 5f0c6c1e-3b1a-4f7e-9a51-2d8e6c0b7a11',
			},
		],
		displayOptions: { show },
	};
}

function fileCount(d: IDataObject): number | undefined {
	const raw = d.files_count ?? d.file_count ?? d.num_files ?? (Array.isArray(d.files) ? d.files.length : undefined);
	const n = Number(raw);
	return raw === undefined || raw === null || !Number.isFinite(n) ? undefined : n;
}

/** The account's datasets as "name — STATUS, N files", filtered by name or id as the user types. */
export async function searchDatasets(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const needle = (filter ?? '').trim().toLowerCase();
	const datasets = await listDatasets(this);
	return {
		results: datasets
			.filter((d) => !needle || `${d.name ?? ''} ${d.id}`.toLowerCase().includes(needle))
			.map((d) => {
				const count = fileCount(d);
				const files = count === undefined ? '' : `, ${count} file${count === 1 ? '' : 's'}`;
				return { name: `${d.name || d.id} — ${d.status ?? 'unknown'}${files}`, value: d.id };
			}),
	};
}
