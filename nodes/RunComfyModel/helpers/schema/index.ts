/**
 * A model's `input_schema` as n8n sees it: resourceMapper fields (./fields), the mapper's values converted into
 * the schema's types (./convert), and a request body checked against the schema before any paid call
 * (./validate). Catalog schemas are "JSON-Schema-like", not strict JSON Schema: `"type": "float"`, `"default": null`
 * on integers, `required` sometimes absent (then the model entry's `required_inputs` applies, as Zapier does).
 * Everything here is lenient about shapes it does not know and never throws on a strange schema.
 */
export * from './types';
export * from './fields';
export * from './convert';
export * from './validate';
