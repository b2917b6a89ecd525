import type { INodeProperties } from 'n8n-workflow';

import * as dataset from './dataset';
import { toolDescriptions } from '../helpers/toolDescriptions';

/** Every parameter of the node (version 1): the resource, then each operation's own block. */
export const versionProperties: INodeProperties[] = [
	{
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: [{ name: 'Dataset', value: 'dataset' }],
		default: 'dataset',
	},
	...dataset.description,
	...toolDescriptions,
];
