/**
 * What a finished request becomes in output items, for every node: where its outputs are, its error text,
 * the allowed download hosts of the credential, the downloads of its output files into binary data (through
 * the one download path, `./download`) and how those files are laid out on items ("Output Files"). How a node shapes its JSON (result record, AI-agent form)
 * stays in the node.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { isToolCall } from './items';
import { readDownloadOptions } from './params';
import type { DownloadChoice } from './params';
import { collectUrls, downloadAll } from './download';
import type { DownloadedFile, FoundUrl, SkippedFile } from './download';
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

/** The files of one result after downloading: what arrived (with its binary) and what did not, and why. */
export interface FetchedFiles {
	/** Every URL that was to be fetched, in order. */
	urls: FoundUrl[];
	downloaded: DownloadedFile[];
	skipped: SkippedFile[];
}

/** Downloads the URLs of one result through the one download path, under the item's download options. */
export async function fetchFiles(
	ctx: IExecuteFunctions,
	urls: FoundUrl[],
	choice: DownloadChoice,
	hosts: DownloadHosts,
	fallbackName = 'output',
): Promise<FetchedFiles> {
	if (!urls.length) return { urls, downloaded: [], skipped: [] };
	const { downloaded, skipped } = await downloadAll(ctx, urls, {
		maxBytes: choice.maxBytes,
		allowedHosts: await hosts.get(),
		fallbackName,
		binaryPropertyPrefix: choice.binaryField,
	});
	return { urls, downloaded, skipped };
}

/** What a node reports about the files it handled on an item (e.g. `skipped_downloads`); `{}` for nothing. */
export type FilesNote = (files: { downloaded: DownloadedFile[]; skipped: SkippedFile[] }) => IDataObject;

/** The usual note: the files that were not downloaded, with the reason (nothing when all arrived). */
export const skippedDownloadsNote: FilesNote = ({ skipped }) =>
	skipped.length ? { skipped_downloads: skipped.map((s) => ({ path: s.path, url: s.url, reason: s.reason })) } : {};

/**
 * Lays the fetched files of one result out on output items, as "Output Files" says:
 * - all on one item: `item` with every file (binary fields `data`, `data_1`, ... after the chosen field name);
 * - one item per file, in URL order: each a copy of `item`'s JSON (ids, status, ...) plus the file's own
 *   `file_index`, `file_url` and `file_path`, its binary in the chosen field itself, paired with the same input
 *   item. A file that was not downloaded still gets its item (the note says why). No files: `item` alone.
 */
export function filesOnItems(
	item: INodeExecutionData,
	fetched: FetchedFiles,
	choice: DownloadChoice,
	note: FilesNote,
): INodeExecutionData[] {
	const { urls, downloaded, skipped } = fetched;
	if (choice.layout === 'allOnOneItem' || urls.length === 0) {
		const out: INodeExecutionData = { ...item, json: { ...item.json, ...note({ downloaded, skipped }) } };
		if (downloaded.length) {
			out.binary = { ...(item.binary ?? {}), ...Object.fromEntries(downloaded.map((d) => [d.property, d.binary])) };
		}
		return [out];
	}
	const sameFile = (found: FoundUrl) => (f: { url: string; path: string }) => f.url === found.url && f.path === found.path;
	return urls.map((found, index) => {
		const file = downloaded.find(sameFile(found));
		const missed = file ? [] : skipped.filter(sameFile(found));
		const json: IDataObject = {
			...item.json,
			...note({ downloaded: file ? [file] : [], skipped: missed }),
			file_index: index,
			file_url: found.url,
			file_path: found.path,
		};
		const out: INodeExecutionData = { json, pairedItem: item.pairedItem };
		if (file) out.binary = { ...(item.binary ?? {}), [choice.binaryField]: file.binary };
		return out;
	});
}

/**
 * Downloads the allowed output URLs of one result and lays them out on items ("Output Files"); the others are
 * listed as `skipped_downloads`. `complete` is true when every URL was fetched (nothing skipped or failed).
 */
export async function attachDownloads(
	ctx: IExecuteFunctions,
	item: INodeExecutionData,
	urls: FoundUrl[],
	choice: DownloadChoice,
	hosts: DownloadHosts,
): Promise<{ items: INodeExecutionData[]; complete: boolean }> {
	const fetched = await fetchFiles(ctx, urls, choice, hosts);
	return { items: filesOnItems(item, fetched, choice, skippedDownloadsNote), complete: fetched.skipped.length === 0 };
}

export interface ResultItemOptions {
	/** Only a successful request's outputs are downloaded. */
	succeeded: boolean;
	/** The output URLs to download (e.g. `outputUrlsOf(json, ['output'])`). */
	urls: FoundUrl[];
	/** The node's AI-agent form of the JSON (ids, status, URLs, a one-line summary; never binary). */
	toolJson: (json: IDataObject) => IDataObject;
	hosts: DownloadHosts;
	/** The download options, when already read (before anything was paid); otherwise they are read for this item. */
	download?: DownloadChoice;
}

/**
 * The output item(s) of a fetched result: the AI-agent form when the node runs as a tool (nothing downloaded);
 * otherwise the JSON, with the output files downloaded when the request succeeded and Download Outputs is on
 * (one item, or one per file). `downloaded` is set only when downloading was attempted; `complete` says whether
 * every file arrived.
 */
export async function resultItem(
	ctx: IExecuteFunctions,
	itemIndex: number,
	json: IDataObject,
	options: ResultItemOptions,
): Promise<{ items: INodeExecutionData[]; downloaded?: { complete: boolean } }> {
	if (isToolCall(ctx)) return { items: [{ json: options.toolJson(json), pairedItem: { item: itemIndex } }] };
	const item: INodeExecutionData = { json, pairedItem: { item: itemIndex } };
	const download = options.download ?? readDownloadOptions(ctx, itemIndex);
	if (!options.succeeded || !download.enabled) return { items: [item] };
	const attached = await attachDownloads(ctx, item, options.urls, download, options.hosts);
	return { items: attached.items, downloaded: { complete: attached.complete } };
}
