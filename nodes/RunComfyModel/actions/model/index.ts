import type { INodeProperties } from 'n8n-workflow';

import * as cancel from './cancel.operation';
import * as estimateCost from './estimateCost.operation';
import * as getResult from './getResult.operation';
import * as getStatus from './getStatus.operation';
import * as run from './run.operation';

export { cancel, estimateCost, getResult, getStatus, run };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['model'] } },
		options: [
			{
				name: 'Cancel',
				value: 'cancel',
				description: 'Cancel a run that is still queued',
				action: 'Cancel model run',
			},
			{
				name: 'Estimate Cost',
				value: 'estimateCost',
				description: 'Check the inputs and estimate what running them would cost, without running anything',
				action: 'Estimate cost of model run',
			},
			{
				name: 'Get Result',
				value: 'getResult',
				description: 'Get the result (outputs and cost) of a run by its request ID',
				action: 'Get result of model run',
			},
			{
				name: 'Get Status',
				value: 'getStatus',
				description: 'Get the status of a run by its request ID',
				action: 'Get status of model run',
			},
			{
				name: 'Run',
				value: 'run',
				description: 'Run a model and, by default, wait for its result',
				action: 'Run model',
			},
		],
		default: 'run',
	},
	...run.description,
	...estimateCost.description,
	...getStatus.description,
	...getResult.description,
	...cancel.description,
];
