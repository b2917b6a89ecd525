import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { readLimit, returnAllProperties } from '../../../shared/descriptions';
import { listCategories } from '../../../shared/transport';

const properties: INodeProperties[] = [...returnAllProperties()];

export const description = updateDisplayOptions({ show: { resource: ['catalog'], operation: ['getManyCategories'] } }, properties);

/** Catalog → Get Many Categories: one item per category (the valid values of the category filter). */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const limit = readLimit(this, itemIndex);
	const categories = await listCategories(this);
	return categories.slice(0, limit).map((category) => ({ category }));
}
