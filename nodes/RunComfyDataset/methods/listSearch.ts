import type { IDataObject, ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { listDatasets } from '../../shared/transport';

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
