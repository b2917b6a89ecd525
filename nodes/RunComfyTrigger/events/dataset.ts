import { getDatasetStatus } from '../../shared/transport';
import type { Observation, TriggerEvent } from './types';
import { parseIdList, requireIds } from './types';

const show = { event: ['dataset'] };

export const datasetEvent: TriggerEvent = {
	properties: [
		{
			displayName: 'Dataset',
			name: 'dataset',
			type: 'resourceLocator',
			default: { mode: 'list', value: '' },
			required: true,
			description: 'The dataset to watch. Fires once when it becomes READY or FAILED (again after new uploads).',
			displayOptions: { show },
			modes: [
				{
					displayName: 'From List',
					name: 'list',
					type: 'list',
					placeholder: 'Select a dataset…',
					typeOptions: { searchListMethod: 'searchDatasets', searchable: true },
				},
				{
					displayName: 'By ID',
					name: 'id',
					type: 'string',
					placeholder: 'e.g. 3f2a9c1e-...',
				},
			],
		},
		{
			displayName: 'More Dataset IDs',
			name: 'moreDatasetIds',
			type: 'string',
			default: '',
			description: 'Further datasets to watch, separated by commas or new lines, or an expression returning a list',
			displayOptions: { show },
		},
	],

	async observe(ctx) {
		const picked = ctx.getNodeParameter('dataset', '', { extractValue: true }) as unknown;
		const more = ctx.getNodeParameter('moreDatasetIds', '') as unknown;
		const ids = requireIds(ctx, parseIdList([picked ?? '', more ?? '']), 'datasets', 'Dataset');
		const observations: Observation[] = [];
		for (const datasetId of ids) {
			const dataset = await getDatasetStatus(ctx, datasetId);
			const status = String(dataset.status ?? '').toUpperCase();
			const files = Array.isArray(dataset.files) ? dataset.files.length : '';
			observations.push({
				id: datasetId,
				// The file count tells a READY after further uploads from the READY before them.
				key: `${status}|${files}`,
				reported: status === 'READY' || status === 'FAILED',
				output: async () => ({
					...dataset,
					event: status === 'READY' ? 'dataset.ready' : status === 'FAILED' ? 'dataset.failed' : 'dataset.status',
					dataset_id: datasetId,
					...(Array.isArray(dataset.files) ? { files_count: dataset.files.length } : {}),
				}),
			});
		}
		return observations;
	},
};
