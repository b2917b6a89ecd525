import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { readWaitOptions } from '../../../shared/descriptions';
import { failedItem } from '../../../shared/router';
import { DATASET_WAIT, datasetLocator, readDatasetId, readyWaitOptionsProperty, waitForDatasets } from './common';

const properties: INodeProperties[] = [datasetLocator({}), readyWaitOptionsProperty({})];

export const description = updateDisplayOptions({ show: { resource: ['dataset'], operation: ['waitUntilReady'] } }, properties);

/** Polls every item's dataset until READY (all at once); FAILED becomes an error with the service's reason. */
export async function executeBatch(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const requests: Array<{ datasetId: string; itemIndex: number }> = [];
	const out: Array<INodeExecutionData | undefined> = new Array(items.length);
	for (let i = 0; i < items.length; i++) {
		try {
			requests.push({ datasetId: readDatasetId(this, i), itemIndex: i });
		} catch (error) {
			out[i] = failedItem(this, error, i);
		}
	}
	if (requests.length) {
		const options = readWaitOptions(this, requests[0].itemIndex, DATASET_WAIT);
		const results = await waitForDatasets(this, requests, options, { failOnEmptyDraft: true });
		for (const { datasetId, itemIndex } of requests) {
			const result = results.get(datasetId);
			if (!result || result.error) {
				out[itemIndex] = failedItem(this, result?.error ?? new Error('The dataset was not checked'), itemIndex, {
					dataset_id: datasetId,
				});
			} else {
				out[itemIndex] = { json: { ...result.record }, pairedItem: { item: itemIndex } };
			}
		}
	}
	return out.filter((o): o is INodeExecutionData => o !== undefined);
}
