import type { INodeProperties } from 'n8n-workflow';

import * as cancel from './cancel.operation';
import * as edit from './edit.operation';
import * as getResult from './getResult.operation';
import * as getStatus from './getStatus.operation';
import * as resume from './resume.operation';
import * as submit from './submit.operation';

export { cancel, edit, getResult, getStatus, resume, submit };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['trainingJob'] } },
		default: 'submit',
		options: [
			{
				name: 'Cancel',
				value: 'cancel',
				description: 'Cancel a queued or running job; its checkpoints are kept',
				action: 'Cancel training job',
			},
			{
				name: 'Edit',
				value: 'edit',
				description: 'Replace the config of a job that is no longer queued or running',
				action: 'Edit training job',
			},
			{
				name: 'Get Result',
				value: 'getResult',
				description: 'Get the checkpoints and samples; the latest checkpoint is ready as a LoRA',
				action: 'Get result of training job',
			},
			{
				name: 'Get Status',
				value: 'getStatus',
				description: 'Get the state and step progress; tells a finished job from one that stopped early',
				action: 'Get status of training job',
			},
			{
				name: 'Resume',
				value: 'resume',
				description: 'Continue a stopped or failed job from its latest checkpoint',
				action: 'Resume training job',
			},
			{
				name: 'Submit',
				value: 'submit',
				description: 'Start a new LoRA training job on a dataset (paid)',
				action: 'Submit training job',
			},
		],
	},
	...submit.description,
	...getStatus.description,
	...getResult.description,
	...cancel.description,
	...resume.description,
	...edit.description,
];
