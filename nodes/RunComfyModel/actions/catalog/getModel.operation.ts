import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { getModel } from '../../../shared/transport';
import { readModelId } from '../../helpers/ids';
import { categoryFilterProperty, modelLocatorProperty } from '../../helpers/properties';

const properties: INodeProperties[] = [categoryFilterProperty, modelLocatorProperty];

export const description = updateDisplayOptions({ show: { resource: ['catalog'], operation: ['getModel'] } }, properties);

/** Catalog → Get Model: the catalog entry with its `input_schema`. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	return await getModel(this, readModelId(this, itemIndex));
}
