import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';
import * as del from './delete.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as pause from './pause.operation';
import * as resume from './resume.operation';
import * as update from './update.operation';

export { create, del as delete, get, getAll, pause, resume, update };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['deployment'] } },
		default: 'getAll',
		options: [
			{
				name: 'Create',
				value: 'create',
				description: 'Create a new deployment: a cloud-saved ComfyUI workflow served as an API endpoint',
				action: 'Create deployment',
			},
			{
				name: 'Delete',
				value: 'delete',
				description: 'Delete a deployment permanently',
				action: 'Delete deployment',
			},
			{
				name: 'Get',
				value: 'get',
				description: 'Retrieve a deployment, optionally with its saved workflow and README',
				action: 'Get deployment',
			},
			{
				name: 'Get Many',
				value: 'getAll',
				description: 'Retrieve a list of deployments, or of the ones with the given IDs',
				action: 'Get many deployments',
			},
			{
				name: 'Pause',
				value: 'pause',
				description: 'Disable a deployment: instances shut down and billing stops; the configuration is kept',
				action: 'Pause deployment',
			},
			{
				name: 'Resume',
				value: 'resume',
				description: 'Enable a paused deployment again',
				action: 'Resume deployment',
			},
			{
				name: 'Update',
				value: 'update',
				description: 'Change the hardware, scaling, name or workflow version of a deployment',
				action: 'Update deployment',
			},
		],
	},
	...getAll.description,
	...get.description,
	...create.description,
	...update.description,
	...pause.description,
	...resume.description,
	...del.description,
];
