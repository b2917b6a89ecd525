import type { INodeProperties } from 'n8n-workflow';

import { requestIdProperty as sharedRequestIdProperty } from '../../shared/descriptions';

/** Optional narrowing of the model picker, read by listSearch `searchModels`. */
export const categoryFilterProperty: INodeProperties = {
	displayName: 'Category Filter Name or ID',
	name: 'categoryFilter',
	type: 'options',
	typeOptions: { loadOptionsMethod: 'getCategoryFilterOptions' },
	default: '',
	description:
		'Only list models of this category in the model picker below. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
};

/** The model picker: server-side search through the whole catalog, or an id typed exactly as listed. */
export const modelLocatorProperty: INodeProperties = {
	displayName: 'Model',
	name: 'model',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description: 'The model to use, from the RunComfy catalog',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Search models…',
			typeOptions: {
				searchListMethod: 'searchModels',
				searchable: true,
			},
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. blackforestlabs/flux-2/flash/text-to-image',
		},
	],
};

/** The request id of an earlier run (Get Status, Get Result, Cancel). */
export const requestIdProperty: INodeProperties = sharedRequestIdProperty('e.g. 5a0e2f3c-7b7d-4f0a-9d55-2f7e1c1d9a10');
