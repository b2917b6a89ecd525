import type { INodeProperties } from 'n8n-workflow';

import * as getModel from './getModel.operation';
import * as getManyCategories from './getManyCategories.operation';
import * as getManyModels from './getManyModels.operation';

export { getManyCategories, getManyModels, getModel };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['catalog'] } },
		options: [
			{
				name: 'Get Many Categories',
				value: 'getManyCategories',
				description: 'Retrieve a list of the model categories in the catalog, e.g. text-to-image',
				action: 'Get many model categories',
			},
			{
				name: 'Get Many Models',
				value: 'getManyModels',
				description: 'Retrieve a list of the models you can run, searched or filtered by category',
				action: 'Get many models',
			},
			{
				name: 'Get Model',
				value: 'getModel',
				description: 'Retrieve a model with its input schema',
				action: 'Get model',
			},
		],
		default: 'getManyModels',
	},
	...getManyModels.description,
	...getManyCategories.description,
	...getModel.description,
];
