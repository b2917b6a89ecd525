import type { IDataObject } from 'n8n-workflow';

import { normaliseStatus } from '../../shared/status';
import {
	getDeploymentRequestResult,
	getDeploymentRequestStatus,
	getModelRequestResult,
	getModelRequestStatus,
} from '../../shared/transport';
import type { TriggerEvent } from './types';
import { isNewTransition, parseIdList } from './types';

const show = { event: ['request'] };

export const requestEvent: TriggerEvent = {
	properties: [
		{
			displayName: 'Request Type',
			name: 'requestType',
			type: 'options',
			default: 'model',
			options: [
				{ name: 'Model Run', value: 'model', description: 'Requests submitted to the Model API' },
				{ name: 'Deployment Inference', value: 'deployment', description: 'Requests submitted to a deployment' },
			],
			displayOptions: { show },
		},
		{
			displayName: 'Deployment ID',
			name: 'deploymentId',
			type: 'string',
			required: true,
			default: '',
			description: 'The deployment the requests were submitted to',
			displayOptions: { show: { ...show, requestType: ['deployment'] } },
		},
		{
			displayName: 'Request IDs',
			name: 'requestIds',
			type: 'string',
			required: true,
			default: '',
			description:
				'Requests to watch, separated by commas or new lines, or an expression returning a list. Fires once when each finishes (succeeded, failed or cancelled), with its result.',
			displayOptions: { show },
		},
	],

	async check(ctx, state, manual) {
		const type = ctx.getNodeParameter('requestType', 'model') as 'model' | 'deployment';
		const deploymentId = type === 'deployment' ? (ctx.getNodeParameter('deploymentId', '') as string) : '';
		const events: IDataObject[] = [];
		for (const requestId of parseIdList(ctx.getNodeParameter('requestIds', ''))) {
			const status =
				type === 'model'
					? await getModelRequestStatus(ctx, requestId)
					: await getDeploymentRequestStatus(ctx, deploymentId, requestId);
			let runState = normaliseStatus(status.status);
			const finished = ['succeeded', 'failed', 'cancelled'].includes(runState);
			if (!(manual || isNewTransition(state, requestId, runState, finished))) continue;
			let result: IDataObject | undefined;
			if (finished) {
				result =
					type === 'model'
						? await getModelRequestResult(ctx, requestId, { includeCost: true })
						: await getDeploymentRequestResult(ctx, deploymentId, requestId);
				// The status says "completed"; the result says whether it succeeded or failed.
				const resultState = normaliseStatus(result.status);
				if (resultState === 'failed' || resultState === 'cancelled') runState = resultState;
			}
			events.push({
				event: `request.${runState}`,
				request_type: type,
				request_id: requestId,
				...(deploymentId ? { deployment_id: deploymentId } : {}),
				state: runState,
				status: status.status,
				...(result ? { result } : {}),
			});
		}
		return events;
	},
};
