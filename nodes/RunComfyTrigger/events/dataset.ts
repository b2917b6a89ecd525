import type { IDataObject } from 'n8n-workflow';

import { getDatasetStatus } from '../../shared/transport';
import type { TriggerEvent } from './types';
import { isNewTransition, parseIdList } from './types';

const show = { event: ['dataset'] };

export const datasetEvent: TriggerEvent = {
	properties: [
		{
			displayName: 'Dataset',
			name: 'dataset',
			type: 'resourceLocator',
			default: { mode: 'list', value: '' },
			required: true,
			description: 'The dataset to watch. Fires once when it becomes READY or FAILED.',
			displayOptions: { show },
			modes: [
				{
					displayName: 'From List',
					name: 'list',
					type: 'list',
					typeOptions: { searchListMethod: 'searchDatasets', searchable: true },
				},
				{ displayName: 'By ID', name: 'id', type: 'string', placeholder: 'e.g. 3f2a9c1e-...' },
			],
		},
		{
			displayName: 'More Dataset IDs',
			name: 'moreDatasetIds',
			type: 'string',
			default: '',
			description: 'Further datasets to watch, separated by commas, or an expression returning a list',
			displayOptions: { show },
		},
	],

	async check(ctx, state, manual) {
		const picked = ctx.getNodeParameter('dataset', '', { extractValue: true }) as string;
		const ids = parseIdList([picked, ...parseIdList(ctx.getNodeParameter('moreDatasetIds', ''))]);
		const events: IDataObject[] = [];
		for (const datasetId of ids) {
			const dataset = await getDatasetStatus(ctx, datasetId);
			const status = String(dataset.status ?? '').toUpperCase();
			const reported = status === 'READY' || status === 'FAILED';
			if (manual || isNewTransition(state, datasetId, status, reported)) {
				events.push({
					event: status === 'READY' ? 'dataset.ready' : status === 'FAILED' ? 'dataset.failed' : 'dataset.status',
					dataset_id: datasetId,
					...dataset,
				});
			}
		}
		return events;
	},
};
