import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { downloadProperties } from '../../../shared/descriptions';
import { failedItemOrThrow } from '../../../shared/items';
import { DownloadHosts } from '../../../shared/outputs';
import { resultState, withPublicStatus } from '../../../shared/status';
import { LastSteps } from '../../../shared/jobs/lastSteps';
import type { LastStep } from '../../../shared/jobs/lastSteps';
import { beginTry, firstItemFailed } from '../../../shared/jobs/memory';
import { getDeploymentRequestResult } from '../../../shared/transport';
import { readDeploymentId, readRequestId } from '../../helpers/deployments';
import { presentResult, readResultOptions } from '../../helpers/present';
import { resultJson } from '../../helpers/results';
import { deleteAfterDownloadOption, deploymentLocatorProperty, requestIdProperty } from '../../helpers/properties';

const show = { resource: ['inference'], operation: ['getResult'] };

const properties: INodeProperties[] = [
	deploymentLocatorProperty,
	requestIdProperty,
	...downloadProperties(show),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [deleteAfterDownloadOption],
	},
];

export const description = updateDisplayOptions({ show }, properties);

/**
 * Inference → Get Result: the result record with `outputs_flat`; outputs are downloaded when the request
 * succeeded. Results are kept on the service for 7 days after success. With Delete Request After Download the
 * requests are deleted only once the output is final (jobs/lastSteps.ts): a node that fails, is stopped or is run
 * again by Retry On Fail deletes none.
 */
export async function executeBatch(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const memory = beginTry(this);
	const hosts = new DownloadHosts(this);
	const lastSteps = new LastSteps();
	let mayRunAgain = true;
	try {
		const out: INodeExecutionData[] = [];
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			try {
				out.push(...(await lastSteps.collect(async (afterBatch) => await getResult(this, itemIndex, hosts, afterBatch))));
			} catch (error) {
				out.push(failedItemOrThrow(this, error, itemIndex));
			}
		}
		const rerun = memory.mayRerun(firstItemFailed(out));
		mayRunAgain = rerun !== undefined;
		await lastSteps.finish(rerun, this.getExecutionCancelSignal?.());
		return out;
	} finally {
		memory.settle(mayRunAgain);
	}
}

async function getResult(
	ctx: IExecuteFunctions,
	itemIndex: number,
	hosts: DownloadHosts,
	afterBatch: (step: LastStep) => void,
): Promise<INodeExecutionData[]> {
	const deploymentId = readDeploymentId(ctx, itemIndex);
	const requestId = readRequestId(ctx, itemIndex);
	const options = readResultOptions(ctx, itemIndex);
	const result = await getDeploymentRequestResult(ctx, deploymentId, requestId);
	const state = resultState(result);
	const json = withPublicStatus(resultJson(deploymentId, requestId, result), state);
	return await presentResult(ctx, itemIndex, deploymentId, json, state === 'succeeded', hosts, options, afterBatch);
}
