import type { ILoadOptionsFunctions, ResourceMapperFields } from 'n8n-workflow';

import { schemaToFields } from '../helpers/schema';
import { getModel } from '../../shared/transport';
import { currentModelId } from '../helpers/ids';
import { schemaOf } from '../helpers/inputs';

/**
 * Fields of the Inputs mapper, built from the chosen model's `input_schema`: types (including the catalog's
 * `float`), required flags, enums as options, defaults, and labels that state ranges and file formats.
 * A `lora` input appears as a text field (file name or URL); the node's LoRA field, when set, overrides it.
 */
export async function getModelInputs(this: ILoadOptionsFunctions): Promise<ResourceMapperFields> {
	const modelId = currentModelId(this);
	if (!modelId) return { fields: [], emptyFieldsNotice: 'Pick a model first: its inputs are loaded from the catalog.' };
	const model = await getModel(this, modelId);
	const schema = schemaOf(model);
	const fields = schemaToFields(schema, model.required_inputs);
	return { fields, ...(fields.length ? {} : { emptyFieldsNotice: `${modelId} has no inputs.` }) };
}
