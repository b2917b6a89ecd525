import type { IDataObject, IPollFunctions } from 'n8n-workflow';

import { getDatasetStatus, listDatasets } from '../../shared/transport';
import type { Dataset } from '../../shared/types';
import { fireForExistingProperty } from './options';
import type { FailureItem, Observation, TriggerEvent } from './types';
import { observeEach, parseIdList, requireIds } from './types';

const show = { event: ['dataset'] };
const showSelected = { ...show, watchDatasets: ['selected'] };

const failure = (datasetId: string): FailureItem => ({ prefix: 'dataset', fields: { dataset_id: datasetId } });

const isReported = (status: string) => status === 'READY' || status === 'FAILED';

/** The output item of a dataset (its status record, with the files). */
function datasetItem(dataset: Dataset, datasetId: string): IDataObject {
	const status = String(dataset.status ?? '').toUpperCase();
	return {
		...dataset,
		event: status === 'READY' ? 'dataset.ready' : status === 'FAILED' ? 'dataset.failed' : 'dataset.status',
		dataset_id: datasetId,
		...(Array.isArray(dataset.files) ? { files_count: dataset.files.length } : {}),
	};
}

export const datasetEvent: TriggerEvent = {
	properties: [
		{
			displayName: 'Watch',
			name: 'watchDatasets',
			type: 'options',
			noDataExpression: true,
			default: 'selected',
			options: [
				{ name: 'Selected Datasets', value: 'selected', description: 'The datasets picked or listed below' },
				{
					name: 'All Datasets',
					value: 'all',
					description: 'Every dataset of the account, including ones created later (one list request per check)',
				},
			],
			displayOptions: { show },
		},
		{
			displayName: 'Dataset',
			name: 'dataset',
			type: 'resourceLocator',
			default: { mode: 'list', value: '' },
			required: true,
			description: 'The dataset to watch. Fires once when it becomes READY or FAILED (again after new uploads).',
			displayOptions: { show: showSelected },
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
			displayOptions: { show: showSelected },
		},
		fireForExistingProperty(
			show,
			'Fire for Already Ready or Failed',
			'datasets that are already READY or FAILED',
			'Datasets added later (to the list, or to the account when watching all) fire as soon as they are seen READY or FAILED.',
		),
	],

	// The two modes key their states differently (files count vs. last update), so each keeps its own.
	stateName: (ctx) => (watchesAll(ctx) ? 'dataset:all' : 'dataset'),

	async observe(ctx, skip) {
		if (watchesAll(ctx)) return await observeAll(ctx, skip);
		const picked = ctx.getNodeParameter('dataset', '', { extractValue: true }) as unknown;
		const more = ctx.getNodeParameter('moreDatasetIds', '') as unknown;
		const ids = requireIds(ctx, parseIdList([picked ?? '', more ?? '']), 'datasets', 'Dataset');
		return await observeEach(
			ids,
			skip,
			async (datasetId): Promise<Observation> => {
				const dataset = await getDatasetStatus(ctx, datasetId);
				const status = String(dataset.status ?? '').toUpperCase();
				const files = Array.isArray(dataset.files) ? dataset.files.length : '';
				return {
					id: datasetId,
					// The file count tells a READY after further uploads from the READY before them.
					key: `${status}|${files}`,
					reported: isReported(status),
					failure: failure(datasetId),
					output: async () => datasetItem(dataset, datasetId),
				};
			},
			failure,
		);
	},
};

const watchesAll = (ctx: IPollFunctions) => ctx.getNodeParameter('watchDatasets', 'selected') === 'all';

/**
 * Every dataset of the account from one list request (the list has no files, so the key is the status and the
 * last update); the status record with the files is fetched only for a dataset that fires. A failing list
 * request fails the poll (there is nothing to read per dataset without it).
 */
async function observeAll(ctx: IPollFunctions, skip: ReadonlySet<string>) {
	const datasets = await listDatasets(ctx);
	const byId = new Map(datasets.filter((d) => typeof d.id === 'string' && d.id !== '').map((d) => [d.id, d]));
	return await observeEach(
		[...byId.keys()],
		skip,
		async (datasetId): Promise<Observation> => {
			const listed = byId.get(datasetId) as Dataset;
			const status = String(listed.status ?? '').toUpperCase();
			return {
				id: datasetId,
				key: `${status}|${String(listed.updated_at ?? '')}`,
				reported: isReported(status),
				failure: failure(datasetId),
				output: async () => datasetItem(await getDatasetStatus(ctx, datasetId), datasetId),
			};
		},
		failure,
	);
}
