import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { downloadProperties, maxEstimatedCostOption, minimumBalanceOption, waitProperties } from '../../../shared/descriptions';
import { INFERENCE_WAIT, runJobs } from '../../../shared/jobs';
import { modelRunKind } from '../../helpers/jobKind';
import { modelInputProperties } from '../../helpers/properties';

const show = { resource: ['model'], operation: ['run'] };

const properties: INodeProperties[] = [
	...modelInputProperties,
	...waitProperties(show, INFERENCE_WAIT),
	...downloadProperties({ ...show, waitForCompletion: [true] }),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [maxEstimatedCostOption, minimumBalanceOption],
	},
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
