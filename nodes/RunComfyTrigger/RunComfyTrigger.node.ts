import type { INodeExecutionData, INodeType, INodeTypeDescription, IPollFunctions } from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { balanceEvent } from './events/balance';
import { datasetEvent } from './events/dataset';
import { requestEvent } from './events/request';
import { trainingJobEvent } from './events/trainingJob';
import { FIRE_FOR_EXISTING } from './events/options';
import type { TriggerEvent } from './events/types';
import { emit } from './events/types';
import { searchDatasets, searchDeployments } from './methods';
import { openWatchStore } from './state';
import { manualUrl } from '../shared/manuals';

const EVENTS: Record<string, TriggerEvent> = {
	trainingJob: trainingJobEvent,
	dataset: datasetEvent,
	request: requestEvent,
	balanceBelow: balanceEvent,
};

export class RunComfyTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'RunComfy Trigger',
		name: 'runComfyTrigger',
		icon: { light: 'file:../../icons/runcomfy.svg', dark: 'file:../../icons/runcomfy.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{ $parameter["event"] }}',
		description: 'Starts the workflow when a RunComfy training job, dataset, request or the balance changes',
		documentationUrl: manualUrl('trigger'),
		defaults: { name: 'RunComfy Trigger' },
		polling: true,
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'runComfyApi', required: true }],
		properties: [
			{
				displayName: 'Event',
				name: 'event',
				type: 'options',
				noDataExpression: true,
				default: 'trainingJob',
				options: [
					{
						name: 'Balance Below Threshold',
						value: 'balanceBelow',
						description: 'The account balance drops below an amount (once per crossing)',
					},
					{
						name: 'Dataset Ready or Failed',
						value: 'dataset',
						description: 'A dataset becomes READY or FAILED',
					},
					{
						name: 'Request Finished',
						value: 'request',
						description: 'A model run or deployment inference succeeds, fails or is cancelled',
					},
					{
						name: 'Training Job Finished, Failed or Stopped Early',
						value: 'trainingJob',
						description: 'A LoRA training job finishes, stops early (can be resumed), fails or is cancelled; again after each resume',
					},
				],
			},
			...Object.values(EVENTS).flatMap((event) => event.properties),
		],
	};

	methods = { listSearch: { searchDatasets, searchDeployments } };

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const eventName = this.getNodeParameter('event') as string;
		const event = EVENTS[eventName];
		if (!event) {
			throw new NodeOperationError(this.getNode(), `The event "${eventName}" is not supported`, {
				description: 'Pick another event, or update the node.',
			});
		}
		const manual = this.getMode() === 'manual';
		// One state per event kind (and mode), so switching the event does not replay or swallow transitions.
		// "Fetch Test Event" (manual) neither reads nor writes it.
		const stateName = event.stateName?.(this) ?? eventName;
		const store = manual ? undefined : openWatchStore(this);
		const state = store?.get(stateName) ?? {};
		const report = await event.observe(this, new Set(Object.keys(state.gone ?? {})));
		const { items, next } = await emit(report, state, {
			manual,
			fireForExisting: this.getNodeParameter(FIRE_FOR_EXISTING, false) === true,
		});
		store?.set(stateName, next);
		if (items.length === 0) return null;
		return [this.helpers.returnJsonArray(items)];
	}
}
