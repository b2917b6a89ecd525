import type { ILoadOptionsFunctions, INodeListSearchItems, INodeListSearchResult } from 'n8n-workflow';

import { listModels } from '../../shared/transport';
import { PICKER_PAGE_SIZE, modelLabel } from '../helpers/labels';

/**
 * The model picker: the catalog is searched on the server as the user types (`search`), narrowed by the
 * optional Category Filter, and paged with `offset`/`total` (the pagination token is the next offset).
 */
export async function searchModels(this: ILoadOptionsFunctions, filter?: string, paginationToken?: string): Promise<INodeListSearchResult> {
	const offset = Math.max(0, Number.parseInt(paginationToken ?? '0', 10) || 0);
	const category = String(this.getCurrentNodeParameter('categoryFilter') ?? '').trim();
	const page = await listModels(this, {
		search: filter?.trim() || undefined,
		category: category || undefined,
		limit: PICKER_PAGE_SIZE,
		offset,
	});
	const models = page.models ?? [];
	const results: INodeListSearchItems[] = models.map((model) => ({
		name: modelLabel(model),
		value: model.model_id,
		...(typeof model.model_url === 'string' && model.model_url ? { url: model.model_url } : {}),
		description: model.description,
	}));
	const next = offset + models.length;
	const total = typeof page.total === 'number' ? page.total : next;
	return { results, ...(models.length && next < total ? { paginationToken: String(next) } : {}) };
}
