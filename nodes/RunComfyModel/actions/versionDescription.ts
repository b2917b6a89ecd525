import type { INodeProperties } from 'n8n-workflow';

import * as account from './account';
import * as catalog from './catalog';
import * as model from './model';
import { toolDescriptions } from '../helpers/toolDescriptions';

/**
 * Every parameter of version 1: the resource selector, then each resource's operations and their fields.
 * (The node's identity — name, icon, credentials — is in RunComfyModel.node.ts, where n8n's linter expects it.)
 */
export const versionProperties: INodeProperties[] = [
	{
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'Account', value: 'account', description: 'The credit balance of your account' },
			{ name: 'Catalog', value: 'catalog', description: 'The models you can run and their input schemas' },
			{ name: 'Model', value: 'model', description: 'Run a model, or follow up on an earlier run' },
		],
		default: 'model',
	},
	...model.description,
	...catalog.description,
	...account.description,
	...toolDescriptions,
];
