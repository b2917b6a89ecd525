import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { listCategories } from '../../shared/transport';

/** The categories of the catalog (`GET /v1/models/categories`), for the List Models filter. */
export async function getCategories(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const categories = await listCategories(this);
	return [...categories].sort().map((category) => ({ name: category, value: category }));
}

/** The same list with an "any category" entry first, for the optional filter of the model picker. */
export async function getCategoryFilterOptions(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const categories = await getCategories.call(this);
	return [{ name: 'Any Category', value: '' }, ...categories];
}
