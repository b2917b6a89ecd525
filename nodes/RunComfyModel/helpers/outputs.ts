import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { collectUrls, downloadAll } from '../../shared/download';
import type { FoundUrl, SkippedFile } from '../../shared/download';
import { getCredentials } from '../../shared/transport';
import type { ResultRecord } from '../../shared/types';

/** Every URL in the result's `output`, with its JSON path (like the MCP server's `output_urls`). */
export function outputUrlsOf(result: IDataObject): FoundUrl[] {
	return collectUrls(result.output, 'output');
}

/** The service's error text of a failed run, whatever shape `error` has (string, object, list). */
export function errorTextOf(record: IDataObject): string | undefined {
	const pick = (value: unknown): string | undefined => {
		if (value === undefined || value === null || value === '') return undefined;
		if (typeof value === 'string') return value;
		if (Array.isArray(value)) {
			const parts = value.map(pick).filter((s): s is string => Boolean(s));
			return parts.length ? parts.join('; ') : undefined;
		}
		if (typeof value === 'object') {
			const obj = value as IDataObject;
			for (const key of ['error_message', 'message', 'error', 'detail']) {
				const text = pick(obj[key]);
				if (text) return text;
			}
			return JSON.stringify(value);
		}
		return String(value);
	};
	return pick(record.error) ?? pick(record.error_message) ?? pick(record.message);
}

/** The output JSON of a finished run: model id, request id, the result record, cost and output URLs. */
export function resultJson(modelId: string | undefined, requestId: string, result: ResultRecord): IDataObject {
	const rest: IDataObject = { ...result };
	delete rest.request_id;
	const json: IDataObject = {
		...(modelId ? { model_id: modelId } : {}),
		request_id: requestId,
		...rest,
		output_urls: outputUrlsOf(result).map((u) => ({ path: u.path, url: u.url })),
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

/** Allowed download hosts of the credential, read once per execution. */
export class DownloadHosts {
	private hosts?: Promise<string[]>;

	constructor(private readonly ctx: IExecuteFunctions) {}

	async get(): Promise<string[]> {
		this.hosts ??= getCredentials(this.ctx).then((c) => c.allowedDownloadHosts);
		return await this.hosts;
	}
}

/** Downloads the allowed output URLs of one item into its binary data; lists the others as skipped. */
export async function attachDownloads(
	ctx: IExecuteFunctions,
	item: INodeExecutionData,
	urls: FoundUrl[],
	maxBytes: number,
	hosts: DownloadHosts,
): Promise<INodeExecutionData> {
	if (!urls.length) return item;
	const { binary, skipped } = await downloadAll(ctx, urls, {
		maxBytes,
		allowedHosts: await hosts.get(),
		fallbackName: 'output',
	});
	const json: IDataObject = { ...item.json };
	if (skipped.length) json.skipped_downloads = skipped.map((s: SkippedFile) => ({ path: s.path, url: s.url, reason: s.reason }));
	const out: INodeExecutionData = { ...item, json };
	if (Object.keys(binary).length) out.binary = { ...(item.binary ?? {}), ...(binary as Record<string, IBinaryData>) };
	return out;
}
