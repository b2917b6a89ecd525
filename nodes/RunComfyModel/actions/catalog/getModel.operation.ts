import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { asChosen, readSimplify, simplifyProperty } from '../../../shared/simplify';
import { getModel } from '../../../shared/transport';
import { readModelId } from '../../helpers/ids';
import { categoryFilterProperty, modelLocatorProperty } from '../../helpers/properties';

const properties: INodeProperties[] = [categoryFilterProperty, modelLocatorProperty, simplifyProperty];

export const description = updateDisplayOptions({ show: { resource: ['catalog'], operation: ['getModel'] } }, properties);

/** Catalog → Get Model: the catalog entry with its `input_schema` (kept when simplified: it is what Run takes). */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const modelId = readModelId(this, itemIndex);
	const simple = readSimplify(this, itemIndex);
	return asChosen(simple, 'model', await getModel(this, modelId));
}
