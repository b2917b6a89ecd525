import type { INodeProperties } from 'n8n-workflow';

import * as getModel from './getModel.operation';
import * as listCategories from './listCategories.operation';
import * as listModels from './listModels.operation';

export { getModel, listCategories, listModels };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['catalog'] } },
		options: [
			{
				name: 'Get Model',
				value: 'getModel',
				description: 'Get one model with its input schema',
				action: 'Get a model',
			},
			{
				name: 'List Categories',
				value: 'listCategories',
				description: 'List the categories of the catalog',
				action: 'List model categories',
			},
			{
				name: 'List Models',
				value: 'listModels',
				description: 'List or search the models you can run',
				action: 'List models',
			},
		],
		default: 'listModels',
	},
	...listModels.description,
	...listCategories.description,
	...getModel.description,
];
