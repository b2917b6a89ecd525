/**
 * What a finished request becomes in an output item, for every node: where its outputs are, its error text,
 * the allowed download hosts of the credential, and the downloads of its output files into binary data
 * (through the one download path, `./download`). How a node shapes its JSON (result record, AI-agent form)
 * stays in the node.
 */
import type { IBinaryData, IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { isToolCall } from './items';
import { readDownloadOptions } from './jobs/options';
import { collectUrls, downloadAll } from './download';
import type { FoundUrl, SkippedFile } from './download';
import { getCredentials } from './transport';

/** The outputs part of a record: the first of `keys` that holds a value (not undefined or null). */
export function outputsPart(record: IDataObject, keys: readonly string[]): { key: string; value: unknown } | undefined {
	for (const key of keys) {
		const value = record[key];
		if (value !== undefined && value !== null) return { key, value };
	}
	return undefined;
}

/**
 * Every URL of the outputs part (see `outputsPart`), with its JSON path rooted at the key, e.g.
 * `output.images[0]` (like the MCP server's `output_urls`).
 */
export function outputUrlsOf(record: IDataObject, keys: readonly string[]): FoundUrl[] {
	const found = outputsPart(record, keys);
	return found ? collectUrls(found.value, found.key) : [];
}

/** Where the service puts the error text of a failed model run or deployment request, in this order. */
export const ERROR_TEXT_KEYS = ['error', 'error_message', 'message'] as const;

/**
 * The service's error text of a failed request, whatever shape the value has: a string, an object (its
 * `error_message`, `message`, `error` or `detail`, else its JSON) or a list (joined with "; "). The record's
 * top-level `keys` are tried in order.
 */
export function errorTextOf(record: IDataObject, keys: readonly string[] = ERROR_TEXT_KEYS): string | undefined {
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
	for (const key of keys) {
		const text = pick(record[key]);
		if (text !== undefined) return text;
	}
	return undefined;
}

/** Allowed download hosts of the credential, read once per execution (share one instance across items). */
export class DownloadHosts {
	private hosts?: Promise<string[]>;

	constructor(private readonly ctx: IExecuteFunctions) {}

	async get(): Promise<string[]> {
		this.hosts ??= getCredentials(this.ctx).then((c) => c.allowedDownloadHosts);
		return await this.hosts;
	}
}

/**
 * Downloads the allowed output URLs of one item into its binary data; lists the others as
 * `skipped_downloads`. `complete` is true when every URL was fetched (nothing skipped or failed).
 */
export async function attachDownloads(
	ctx: IExecuteFunctions,
	item: INodeExecutionData,
	urls: FoundUrl[],
	maxBytes: number,
	hosts: DownloadHosts,
): Promise<{ item: INodeExecutionData; complete: boolean }> {
	if (!urls.length) return { item, complete: true };
	const { binary, skipped } = await downloadAll(ctx, urls, {
		maxBytes,
		allowedHosts: await hosts.get(),
		fallbackName: 'output',
	});
	const json: IDataObject = { ...item.json };
	if (skipped.length) {
		json.skipped_downloads = skipped.map((s: SkippedFile) => ({ path: s.path, url: s.url, reason: s.reason }));
	}
	const out: INodeExecutionData = { ...item, json };
	if (Object.keys(binary).length) out.binary = { ...(item.binary ?? {}), ...(binary as Record<string, IBinaryData>) };
	return { item: out, complete: skipped.length === 0 };
}

export interface ResultItemOptions {
	/** Only a successful request's outputs are downloaded. */
	succeeded: boolean;
	/** The output URLs to download (e.g. `outputUrlsOf(json, ['output'])`). */
	urls: FoundUrl[];
	/** The node's AI-agent form of the JSON (ids, status, URLs, a one-line summary; never binary). */
	toolJson: (json: IDataObject) => IDataObject;
	hosts: DownloadHosts;
	/** The Download Outputs options, when already read; otherwise they are read for this item. */
	download?: { enabled: boolean; maxBytes: number };
}

/**
 * The output item of a fetched result: the AI-agent form when the node runs as a tool (nothing downloaded);
 * otherwise the JSON, with the output files downloaded when the request succeeded and Download Outputs is on.
 * `downloaded` is set only when downloading was attempted; `complete` says whether every file arrived.
 */
export async function resultItem(
	ctx: IExecuteFunctions,
	itemIndex: number,
	json: IDataObject,
	options: ResultItemOptions,
): Promise<{ item: INodeExecutionData; downloaded?: { complete: boolean } }> {
	if (isToolCall(ctx)) return { item: { json: options.toolJson(json), pairedItem: { item: itemIndex } } };
	const item: INodeExecutionData = { json, pairedItem: { item: itemIndex } };
	const download = options.download ?? readDownloadOptions(ctx, itemIndex);
	if (!options.succeeded || !download.enabled) return { item };
	const attached = await attachDownloads(ctx, item, options.urls, download.maxBytes, options.hosts);
	return { item: attached.item, downloaded: { complete: attached.complete } };
}
