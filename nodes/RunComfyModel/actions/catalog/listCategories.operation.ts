import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { listCategories } from '../../../shared/transport';

const properties: INodeProperties[] = [];

export const description = updateDisplayOptions({ show: { resource: ['catalog'], operation: ['listCategories'] } }, properties);

/** Catalog → List Categories: one item per category (the valid values of the category filter). */
export async function execute(this: IExecuteFunctions): Promise<IDataObject[]> {
	const categories = await listCategories(this);
	return categories.map((category) => ({ category }));
}
