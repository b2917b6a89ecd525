/**
 * The output item of a deployment request's result (Run and Get Result): downloads when asked and, once every
 * file arrived, the optional deletion of the request on the service.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { readBoolean, readDownloadOptions } from '../../shared/params';
import type { DownloadChoice } from '../../shared/params';
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

/** The output item(s) of a result (one per file when asked); every item says whether the request was deleted. */
export async function presentResult(
	ctx: IExecuteFunctions,
	itemIndex: number,
	deploymentId: string,
	json: IDataObject,
	succeeded: boolean,
	hosts: DownloadHosts,
	options: ResultOptions,
): Promise<INodeExecutionData[]> {
	const { items, downloaded } = await resultItem(ctx, itemIndex, json, {
		succeeded,
		urls: deploymentOutputUrls(json),
		toolJson,
		hosts,
		download: options.download,
	});
	if (!downloaded || !options.deleteAfterDownload) return items;
	const noted = (fields: IDataObject) => items.map((item) => ({ ...item, json: { ...item.json, ...fields } }));
	if (!downloaded.complete) {
		return noted({
			request_deleted: false,
			delete_error: 'Not deleted: some outputs were not downloaded (see skipped_downloads); they stay on the service for 7 days.',
		});
	}
	try {
		await deleteDeploymentRequest(ctx, deploymentId, String(json.request_id));
		return noted({ request_deleted: true });
	} catch (error) {
		return noted({ request_deleted: false, delete_error: (error as Error).message });
	}
}
