import type { IDataObject } from 'n8n-workflow';

import { outputUrlsOf } from '../../shared/outputs';
import type { FoundUrl } from '../../shared/download';
import type { ResultRecord } from '../../shared/types';

/** Where a model result keeps its outputs. */
const OUTPUT_KEYS = ['output'] as const;

/** Every URL in the result's `output`, with its JSON path (like the MCP server's `output_urls`). */
export function modelOutputUrls(result: IDataObject): FoundUrl[] {
	return outputUrlsOf(result, OUTPUT_KEYS);
}

/** The output JSON of a finished run: model id, request id, the result record, cost and output URLs. */
export function resultJson(modelId: string | undefined, requestId: string, result: ResultRecord): IDataObject {
	const rest: IDataObject = { ...result };
	delete rest.request_id;
	const json: IDataObject = {
		...(modelId ? { model_id: modelId } : {}),
		request_id: requestId,
		...rest,
		output_urls: modelOutputUrls(result).map((u) => ({ path: u.path, url: u.url })),
	};
	return json;
}

/** What an AI agent gets: URLs and a one-line summary, no binary data. */
export function toolJson(json: IDataObject): IDataObject {
	const urls = (json.output_urls as IDataObject[] | undefined) ?? [];
	const status = String(json.status ?? 'submitted');
	const parts = [`Run ${String(json.request_id)}${json.model_id ? ` of ${String(json.model_id)}` : ''}: ${status}`];
	if (urls.length) parts.push(`${urls.length} output file${urls.length === 1 ? '' : 's'}: ${urls.map((u) => String(u.url)).join(', ')}`);
	if (typeof json.cost === 'number') parts.push(`cost $${json.cost}`);
	if (json.still_running) parts.push('still running; fetch it later with Get Result');
	if (json.error) parts.push(`error: ${String(json.error)}`);
	const compact: IDataObject = {};
	for (const key of ['model_id', 'request_id', 'status', 'output_urls', 'cost', 'error', 'still_running', 'cancel_outcome']) {
		if (json[key] !== undefined) compact[key] = json[key];
	}
	compact.summary = `${parts.join('; ')}.`;
	return compact;
}
