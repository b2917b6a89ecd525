import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { CANCELS, downloadProperties, maxEstimatedCostOption, minimumBalanceOption, waitProperties } from '../../../shared/descriptions';
import { INFERENCE_WAIT, runJobs } from '../../../shared/jobs';
import { modelRunKind } from '../../helpers/jobKind';
import { loraProperty, modelInputProperties } from '../../helpers/properties';

const show = { resource: ['model'], operation: ['run'] };

/** Version 1 shows every field; from 1.1 the LoRA and the download details wait in collections (at most 8 fields). */
const V1 = { '@version': [1] };
const FROM_1_1 = { '@version': [{ _cnd: { gte: 1.1 } }] };
const visibleIn = (versions: typeof V1 | typeof FROM_1_1, properties: INodeProperties[]): INodeProperties[] =>
	properties.map((p) => ({ ...p, displayOptions: { ...p.displayOptions, show: { ...p.displayOptions?.show, ...versions } } }));
const downloading = { ...show, waitForCompletion: [true] };
const options = (extra: INodeProperties[]): INodeProperties => ({
	displayName: 'Options',
	name: 'options',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	options: [...extra, maxEstimatedCostOption, minimumBalanceOption],
});

const properties: INodeProperties[] = [
	...modelInputProperties,
	...visibleIn(V1, [loraProperty]),
	...waitProperties(show, INFERENCE_WAIT, CANCELS.modelRun),
	...visibleIn(V1, downloadProperties(downloading)),
	...visibleIn(FROM_1_1, downloadProperties(downloading, true, 'collection')),
	...visibleIn(V1, [options([])]),
	...visibleIn(FROM_1_1, [options([loraProperty])]),
];

export const description = updateDisplayOptions({ show }, properties);

/**
 * Model → Run through the one job flow: every item is checked against the model's input schema (no paid call
 * before that), the cost cap and the balance are checked, then all are submitted, waited for together, fetched
 * once and their outputs downloaded.
 */
export async function executeBatch(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	return await runJobs(this, items, modelRunKind(this));
}
