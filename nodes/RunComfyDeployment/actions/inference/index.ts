import type { INodeProperties } from 'n8n-workflow';

import * as callInstanceProxy from './callInstanceProxy.operation';
import * as cancel from './cancel.operation';
import * as deleteRequest from './deleteRequest.operation';
import * as getResult from './getResult.operation';
import * as getStatus from './getStatus.operation';
import * as run from './run.operation';

export { callInstanceProxy, cancel, deleteRequest, getResult, getStatus, run };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['inference'] } },
		default: 'run',
		options: [
			{
				name: 'Call Instance Proxy',
				value: 'callInstanceProxy',
				description: 'Call a ComfyUI backend path (e.g. api/free) on a live instance of the deployment',
				action: 'Call backend path on live instance',
			},
			{
				name: 'Cancel',
				value: 'cancel',
				description: 'Cancel a queued or running request and follow it until it has ended',
				action: 'Cancel request',
			},
			{
				name: 'Delete Request',
				value: 'deleteRequest',
				description: "Delete a request's inputs and outputs on the service at once (otherwise kept 7 days)",
				action: 'Delete request',
			},
			{
				name: 'Get Result',
				value: 'getResult',
				description: 'Get the outputs of a request (kept on the service for 7 days) and download them',
				action: 'Get result of request',
			},
			{
				name: 'Get Status',
				value: 'getStatus',
				description: 'Get the status of a request (queue position, live instance ID)',
				action: 'Get status of request',
			},
			{
				name: 'Run',
				value: 'run',
				description: 'Run the deployed workflow with overrides and, by default, wait for the outputs',
				action: 'Run deployed workflow',
			},
		],
	},
	...run.description,
	...getStatus.description,
	...getResult.description,
	...cancel.description,
	...deleteRequest.description,
	...callInstanceProxy.description,
];
