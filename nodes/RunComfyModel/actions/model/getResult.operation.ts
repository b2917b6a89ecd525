import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { downloadProperties } from '../../../shared/descriptions';
import { DownloadHosts, resultItem } from '../../../shared/outputs';
import { resultState, withPublicStatus } from '../../../shared/status';
import { getModelRequestResult } from '../../../shared/transport';
import { readRequestId } from '../../helpers/ids';
import { modelOutputUrls, resultJson, toolJson } from '../../helpers/outputs';
import { requestIdProperty } from '../../helpers/properties';

const show = { resource: ['model'], operation: ['getResult'] };

const properties: INodeProperties[] = [
	requestIdProperty,
	...downloadProperties(show),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Include Cost',
				name: 'includeCost',
				type: 'boolean',
				default: true,
				description: 'Whether to ask for the amount in US dollars charged for this run (field "cost")',
			},
		],
	},
];

export const description = updateDisplayOptions({ show }, properties);

/**
 * Model → Get Result: the result record of a run (a run that has not finished yet returns its current record,
 * not an error), with output URLs and, for a successful run, the outputs downloaded into binary data (on the
 * item, or one item per file).
 */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const requestId = readRequestId(this, itemIndex);
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const result = await getModelRequestResult(this, requestId, { includeCost: options.includeCost !== false });
	const state = resultState(result);
	const json = withPublicStatus(resultJson(undefined, requestId, result), state);
	const { items } = await resultItem(this, itemIndex, json, {
		succeeded: state === 'succeeded',
		urls: modelOutputUrls(json),
		toolJson,
		hosts: new DownloadHosts(this),
	});
	return items;
}
