/**
 * CONTRACT STUB (schema work implements): the one module that turns a model's `input_schema` into n8n
 * resourceMapper fields and checks a request body against it before any paid call.
 */
import type { IDataObject, ResourceMapperField } from 'n8n-workflow';

import type { InputSchema } from '../types';

/** Fields for the resourceMapper: types (incl. the catalog's `float`), required, enums as options,
 * defaults, descriptions that state ranges and file formats. */
export function schemaToFields(_schema: InputSchema, _requiredInputs?: string[]): ResourceMapperField[] {
	throw new Error('not implemented yet');
}

/** Converts resourceMapper values (strings from the UI) into the types the schema asks for; drops empties. */
export function mapperValueToBody(_value: IDataObject, _schema: InputSchema): IDataObject {
	throw new Error('not implemented yet');
}

export interface SchemaProblem {
	input: string;
	message: string;
}

/** Every problem at once: missing required, wrong type, enum, range, maxLength, minItems/maxItems,
 * multipleOf, file inputs that are not public HTTPS URLs (data URIs and local paths explained). */
export function validateBody(_body: IDataObject, _schema: InputSchema, _requiredInputs?: string[]): SchemaProblem[] {
	throw new Error('not implemented yet');
}

export const FILE_FORMATS = ['image_uri', 'video_uri', 'audio_uri', 'image_uris', 'video_uris', 'audio_uris'];
