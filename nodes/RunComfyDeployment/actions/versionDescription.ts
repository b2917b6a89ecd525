import type { INodeProperties } from 'n8n-workflow';

import * as deployment from './deployment';
import * as inference from './inference';
import { toolDescriptions } from '../helpers/toolDescriptions';

/**
 * Every parameter of version 1: the resource choice, then each resource's operation list and operation fields.
 * (The node's identity — name, icon, credential — sits in RunComfyDeployment.node.ts, where n8n's lint rules
 * look for it.)
 */
export const versionProperties: INodeProperties[] = [
	{
		displayName: 'Resource',
		name: 'resource',
		type: 'options',
		noDataExpression: true,
		default: 'inference',
		options: [
			{
				name: 'Deployment',
				value: 'deployment',
				description: 'Create, list, change, pause, resume or delete deployments',
			},
			{
				name: 'Inference',
				value: 'inference',
				description: 'Run a deployed workflow and work with its requests (outputs are kept 7 days)',
			},
		],
	},
	...deployment.description,
	...inference.description,
	...toolDescriptions,
];
