import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { readLimit, returnAllProperties } from '../../../shared/descriptions';
import { readBoolean, readNumber } from '../../../shared/params';
import { asChosen, readSimplify, simplifyProperty } from '../../../shared/simplify';
import { listModels } from '../../../shared/transport';
import type { ModelEntry } from '../../../shared/types';

/** The service's largest page. */
const MAX_PAGE = 500;

const properties: INodeProperties[] = [
	...returnAllProperties(),
	simplifyProperty,
	{
		displayName: 'Filters',
		name: 'filters',
		type: 'collection',
		placeholder: 'Add Filter',
		default: {},
		options: [
			{
				displayName: 'Category Name or ID',
				name: 'category',
				type: 'options',
				typeOptions: { loadOptionsMethod: 'getCategories' },
				default: '',
				description:
					'What the model does, e.g. text-to-image. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
			},
			{
				displayName: 'Kind',
				name: 'kind',
				type: 'options',
				default: 'model',
				options: [
					{ name: 'Inference', value: 'inference' },
					{ name: 'Model', value: 'model' },
					{ name: 'Workflow', value: 'workflow' },
				],
				description: 'How the model runs',
			},
			{
				displayName: 'Search',
				name: 'search',
				type: 'string',
				default: '',
				placeholder: 'e.g. flux',
				description: 'Case-insensitive text matched against model ID, display name and description',
			},
		],
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Include Input Schemas',
				name: 'includeSchema',
				type: 'boolean',
				default: false,
				description: "Whether to include each model's input_schema (much larger output)",
			},
			{
				displayName: 'Skip First',
				name: 'offset',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 0,
				description:
					"How many matching models to skip before the first one returned (the API's offset), e.g. to read the catalog page by page",
			},
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['catalog'], operation: ['getManyModels'] } }, properties);

/** Catalog → Get Many Models: one item per model; Return All pages through `offset`/`total`. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const limit = readLimit(this, itemIndex);
	let offset = readNumber(this, 'options.offset', itemIndex, 0, {
		label: 'Skip First',
		min: 0,
		max: 10_000_000,
		integer: true,
		example: 'a whole number of models to skip, e.g. 100',
		outcome: 'Nothing was read.',
	});
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const query = {
		search: (filters.search as string) || undefined,
		category: (filters.category as string) || undefined,
		kind: (filters.kind as string) || undefined,
		includeSchema: readBoolean(this, 'options.includeSchema', itemIndex, false, 'Include Input Schemas'),
	};
	const simple = readSimplify(this, itemIndex);
	const models: ModelEntry[] = [];
	for (;;) {
		const pageSize = Math.min(MAX_PAGE, limit - models.length);
		const page = await listModels(this, { ...query, limit: pageSize, offset });
		const rows = page.models ?? [];
		models.push(...rows);
		offset += rows.length;
		const total = typeof page.total === 'number' ? page.total : offset;
		if (!rows.length || offset >= total || models.length >= limit) break;
	}
	return models.slice(0, limit).map((model) => asChosen(simple, 'model', model));
}
