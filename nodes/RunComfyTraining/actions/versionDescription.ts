import type { INodeProperties } from 'n8n-workflow';

import * as trainingJob from './trainingJob';
import { toolDescriptions } from '../helpers/toolDescriptions';

/** Every parameter of the node (version 1): the resource, then each operation's own block. */
export const versionProperties: INodeProperties[] = [
	{
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		options: [{ name: 'Training Job', value: 'trainingJob' }],
		default: 'trainingJob',
	},
	...trainingJob.description,
	...toolDescriptions,
];
