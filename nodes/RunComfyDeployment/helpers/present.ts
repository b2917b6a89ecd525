/**
 * The output item of a deployment request's result (Run and Get Result): downloads when asked and, once every
 * file arrived and the whole node's output is ready, the optional deletion of the request on the service.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { readBoolean, readDownloadOptions } from '../../shared/params';
import type { DownloadChoice } from '../../shared/params';
import type { LastStep } from '../../shared/jobs/lastSteps';
import { resultItem } from '../../shared/outputs';
import type { DownloadHosts } from '../../shared/outputs';
import { deleteDeploymentRequest } from '../../shared/transport';
import { deploymentOutputUrls, toolJson } from './results';

export interface ResultOptions {
	download: DownloadChoice;
	deleteAfterDownload: boolean;
}

/** Read for every item before anything is paid, so a bad expression cannot fail the node after paying. */
export function readResultOptions(ctx: IExecuteFunctions, itemIndex: number): ResultOptions {
	return {
		download: readDownloadOptions(ctx, itemIndex),
		deleteAfterDownload: readBoolean(ctx, 'options.deleteRequestAfterDownload', itemIndex, false, 'Delete Request After Download'),
	};
}

/**
 * The output item(s) of a result (one per file when asked); with Delete Request After Download, every item says
 * whether the request was deleted. The deletion is handed to `afterBatch`: it runs only once the node's output is
 * final (../../shared/jobs/lastSteps.ts), so a node that fails, is stopped or runs again deletes nothing.
 */
export async function presentResult(
	ctx: IExecuteFunctions,
	itemIndex: number,
	deploymentId: string,
	json: IDataObject,
	succeeded: boolean,
	hosts: DownloadHosts,
	options: ResultOptions,
	afterBatch: (step: LastStep) => void,
): Promise<INodeExecutionData[]> {
	const { items, downloaded } = await resultItem(ctx, itemIndex, json, {
		succeeded,
		urls: deploymentOutputUrls(json),
		toolJson,
		hosts,
		download: options.download,
	});
	if (!downloaded || !options.deleteAfterDownload) return items;
	const note = (fields: IDataObject) => {
		for (const item of items) item.json = { ...item.json, ...fields };
	};
	const kept = (why: string) =>
		note({ request_deleted: false, delete_error: `Not deleted: ${why}; the outputs stay on the service for 7 days.` });
	if (!downloaded.complete) {
		kept('some outputs were not downloaded (see skipped_downloads)');
		return items;
	}
	afterBatch({
		run: async () => {
			try {
				await deleteDeploymentRequest(ctx, deploymentId, String(json.request_id));
				note({ request_deleted: true });
			} catch (error) {
				note({ request_deleted: false, delete_error: (error as Error).message });
			}
		},
		skip: kept,
	});
	return items;
}
