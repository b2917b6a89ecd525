import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { collectUrls } from '../../shared/download';
import { STATUS_WORDS, normaliseStatus, withPublicStatus, wordList } from '../../shared/status';
import {
	getDeploymentRequestResult,
	getDeploymentRequestStatus,
	getModelRequestResult,
	getModelRequestStatus,
} from '../../shared/transport';
import type { RunState } from '../../shared/types';
import { fireForExistingProperty } from './options';
import type { FailureItem, Observation, TriggerEvent } from './types';
import { observeEach, parseIdList, requireIds } from './types';

const show = { event: ['request'] };

const FINISHED: RunState[] = ['succeeded', 'failed', 'cancelled'];

export const requestEvent: TriggerEvent = {
	properties: [
		{
			displayName: 'Request Type',
			name: 'requestType',
			type: 'options',
			noDataExpression: true,
			default: 'model',
			options: [
				{ name: 'Model Run', value: 'model', description: 'Requests submitted with RunComfy Model → Run' },
				{
					name: 'Deployment Inference',
					value: 'deployment',
					description: 'Requests submitted with Inference → Run of the RunComfy Deployment node',
				},
			],
			displayOptions: { show },
		},
		{
			displayName: 'Deployment',
			name: 'deploymentId',
			type: 'resourceLocator',
			default: { mode: 'list', value: '' },
			required: true,
			description: 'The deployment the requests were submitted to',
			displayOptions: { show: { ...show, requestType: ['deployment'] } },
			modes: [
				{
					displayName: 'From List',
					name: 'list',
					type: 'list',
					placeholder: 'Select a deployment…',
					typeOptions: { searchListMethod: 'searchDeployments', searchable: true },
				},
				{
					displayName: 'By ID',
					name: 'id',
					type: 'string',
					placeholder: 'e.g. 2f6c1e0a-5b7d-4c1e-9a3f-0d8e7b6a5c4d',
				},
			],
		},
		{
			displayName: 'Request IDs',
			name: 'requestIds',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'e.g. {{ $json.request_id }}',
			description: `Requests to watch, separated by commas or new lines, or an expression returning a list. Fires once when each finishes (${wordList(STATUS_WORDS.finished)}), with its result.`,
			displayOptions: { show },
		},
		fireForExistingProperty(show, 'Fire for Already Finished', 'requests that have already finished'),
		{
			displayName:
				'For deployment requests, the RunComfy Webhook Trigger starts the workflow when RunComfy delivers the result, without polling',
			name: 'webhookNotice',
			type: 'notice',
			default: '',
			displayOptions: { show: { ...show, requestType: ['deployment'] } },
		},
	],

	async observe(ctx, skip) {
		const type = ctx.getNodeParameter('requestType', 'model') as 'model' | 'deployment';
		const deploymentId = type === 'deployment' ? String(ctx.getNodeParameter('deploymentId', '', { extractValue: true }) ?? '').trim() : '';
		if (type === 'deployment' && !deploymentId) {
			throw new NodeOperationError(ctx.getNode(), 'No deployment chosen', {
				description: 'Pick the deployment the requests were submitted to in "Deployment".',
			});
		}
		const requestIds = requireIds(ctx, parseIdList(ctx.getNodeParameter('requestIds', '')), 'requests', 'Request IDs');
		// The state id of a deployment request names its deployment: the same id under another deployment is another thing.
		const stateId = (requestId: string) => (type === 'model' ? requestId : `${deploymentId}/${requestId}`);
		const requestOf = new Map(requestIds.map((requestId) => [stateId(requestId), requestId]));
		const failure = (id: string) => ({
			prefix: 'request',
			fields: {
				request_type: type,
				request_id: requestOf.get(id) ?? id,
				...(deploymentId ? { deployment_id: deploymentId } : {}),
			},
		});
		return await observeEach(
			[...requestOf.keys()],
			skip,
			async (id) => await observeRequest(ctx, type, deploymentId, requestOf.get(id) ?? id, id, failure(id)),
			failure,
		);
	},
};

async function observeRequest(
	ctx: IPollFunctions,
	type: 'model' | 'deployment',
	deploymentId: string,
	requestId: string,
	id: string,
	failure: FailureItem,
): Promise<Observation> {
	const status =
		type === 'model' ? await getModelRequestStatus(ctx, requestId) : await getDeploymentRequestStatus(ctx, deploymentId, requestId);
	const statusState = normaliseStatus(status.status);
	const finished = FINISHED.includes(statusState);
	return {
		id,
		key: statusState,
		reported: finished,
		failure,
		output: async () => {
			let state = statusState;
			let result: IDataObject | undefined;
			if (finished) {
				result =
					type === 'model'
						? await getModelRequestResult(ctx, requestId, { includeCost: true })
						: await getDeploymentRequestResult(ctx, deploymentId, requestId);
				// The status says "completed"; the result says whether it succeeded, failed or was cancelled.
				const resultState = normaliseStatus(result.status);
				if (resultState === 'failed' || resultState === 'cancelled') state = resultState;
			}
			const outputs = result ? (type === 'model' ? result.output : (result.outputs ?? result.output)) : undefined;
			return withPublicStatus(
				{
					...status,
					event: `request.${state}`,
					request_type: type,
					request_id: requestId,
					...(deploymentId ? { deployment_id: deploymentId } : {}),
					...(result
						? {
								result,
								output_urls: collectUrls(outputs, type === 'model' ? 'output' : 'outputs').map((u) => ({
									path: u.path,
									url: u.url,
								})),
							}
						: {}),
				},
				state,
			);
		},
	};
}
