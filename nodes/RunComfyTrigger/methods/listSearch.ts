import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { listDatasets } from '../../shared/transport';

/** Datasets of the account, filtered by name as the user types (the service has no server-side search). */
export async function searchDatasets(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const needle = (filter ?? '').trim().toLowerCase();
	const datasets = await listDatasets(this);
	return {
		results: datasets
			.filter((d) => !needle || `${d.name} ${d.id}`.toLowerCase().includes(needle))
			.map((d) => ({ name: `${d.name} (${d.status})`, value: d.id })),
	};
}
