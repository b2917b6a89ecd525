import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { internalAddressKind, internalHostProblem } from '../../../shared/addresses';
import { getCredentials, uploadDatasetFile } from '../../../shared/transport';
import { DIRECT_UPLOAD_MAX_BYTES } from '../../../shared/types';
import type { UploadRecord, UploadTask } from '../../helpers/kinds';
import { assertPlainFileName, datasetLocator, readDatasetId, uploadWaitProperties } from '../../helpers/datasets';
import { readParallelUploads, uploadKind } from '../../helpers/kinds';
import { runJobs } from '../../../shared/jobs';
import { contentTypeFor, fileNameFromUrl, fileNameProblem } from '../../helpers/files';

const properties: INodeProperties[] = [
	datasetLocator({}),
	{
		displayName: 'File URL',
		name: 'url',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. https://example.com/images/img_0001.jpg',
		description:
			'Public http(s) URL of the file (up to 150 MB). n8n downloads it without your RunComfy token and uploads it to the dataset. Local paths and internal addresses (localhost, private networks) are refused unless the host is in the credential\'s Allowed Download Hosts: read local files with "Read/Write Files from Disk" and use Upload File.',
	},
	...uploadWaitProperties({}),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'File Name',
				name: 'fileName',
				type: 'string',
				default: '',
				placeholder: 'e.g. img_0001.jpg',
				description: 'Name of the file in the dataset. Default: the last part of the URL path. An existing name is overwritten.',
			},
		],
	},
];

export const description = updateDisplayOptions({ show: { resource: ['dataset'], operation: ['uploadFromUrl'] } }, properties);

/** Refuses anything that is not an absolute http(s) URL (local paths, file:, data:, ftp: ...). */
export function checkPublicUrl(raw: string): { url?: URL; problem?: string } {
	const text = raw.trim();
	if (!text) return { problem: 'No URL was given' };
	if (/^[a-zA-Z]:[\\/]/.test(text) || text.startsWith('\\\\')) {
		return { problem: `"${text}" is a local path, not a URL; only public http(s) URLs can be uploaded` };
	}
	let url: URL;
	try {
		url = new URL(text);
	} catch {
		return {
			problem: `"${text}" is not a URL${/^([a-zA-Z]:[\\/]|[/\\.~])/.test(text) ? ' but a local path' : ''}; only public http(s) URLs can be uploaded`,
		};
	}
	if (url.protocol !== 'http:' && url.protocol !== 'https:') {
		const kind = url.protocol === 'file:' ? 'a local file' : url.protocol === 'data:' ? 'a data: URI' : `a ${url.protocol} URL`;
		return { problem: `The URL is ${kind}; only public http(s) URLs can be uploaded` };
	}
	if (url.username || url.password) return { problem: 'URLs with a user name or password cannot be uploaded' };
	return { url };
}

interface FetchedFile {
	data: Buffer;
	contentType?: string;
	dispositionName?: string;
}

/** Redirects followed per file, each target checked like the URL itself. */
export const MAX_URL_REDIRECTS = 5;

/** The fix for a refused internal address (the URL itself or a redirect). */
export function internalHostFix(host: string): string {
	return `n8n downloads the file itself, so addresses inside your network are refused (otherwise a workflow or an AI agent could make n8n read internal services). Give a public http(s) URL. To use a file server inside your network on purpose, add its host (${host}) to "Allowed Download Hosts" in the RunComfy credential.`;
}

type FetchResponse = {
	body: AsyncIterable<Buffer> & { destroy?: () => void; on?: (event: string, listener: () => void) => unknown };
	headers: Record<string, string | string[] | undefined>;
	statusCode: number;
};

/**
 * GETs a public URL with plain httpRequest (never the token), at most `maxBytes`, aborting as soon as it is over.
 * Redirects (at most 5) are followed here, each target refused like the URL itself when it is internal and not
 * in `allowedHosts` (the credential's Allowed Download Hosts).
 */
export async function fetchPublicFile(
	ctx: IExecuteFunctions,
	url: string,
	maxBytes: number,
	itemIndex: number,
	allowedHosts: string[] = [],
): Promise<FetchedFile> {
	const tooLarge = (size: string) =>
		new NodeOperationError(ctx.getNode(), `The file at ${url} is larger than 150 MB (${size})`, {
			itemIndex,
			description:
				'Upload From URL handles files up to 150 MB. Download the file into n8n (HTTP Request node, binary response) and use Upload File: larger files go through a signed upload URL.',
		});
	const cancel = ctx.getExecutionCancelSignal();
	let current = url;
	let response: FetchResponse;
	for (let hop = 0; ; hop++) {
		// One controller per request, so a redirect answer's connection can be closed without reading it.
		const own = new AbortController();
		response = (await ctx.helpers.httpRequest({
			method: 'GET',
			url: current,
			encoding: 'stream',
			returnFullResponse: true,
			disableFollowRedirect: true,
			ignoreHttpStatusErrors: true,
			abortSignal: cancel ? AbortSignal.any([cancel, own.signal]) : own.signal,
		})) as FetchResponse;
		const status = Number(response.statusCode);
		if (status >= 200 && status < 300) break;
		response.body?.on?.('error', () => {}); // the abort below makes the body emit an error
		own.abort();
		response.body?.destroy?.();
		const fail = (message: string, description: string) => new NodeOperationError(ctx.getNode(), message, { itemIndex, description });
		if (status < 300 || status >= 400) {
			throw fail(
				`Cannot upload from "${url}": the file host answered HTTP ${status}${current === url ? '' : ` for ${current}`}`,
				'Check that the URL opens the file in a browser without logging in; links that expire must be fresh.',
			);
		}
		const location = response.headers?.location;
		let next: URL | undefined;
		try {
			next = new URL(String(Array.isArray(location) ? location[0] : location ?? ''), current);
		} catch {
			next = undefined;
		}
		if (!location || !next || (next.protocol !== 'http:' && next.protocol !== 'https:')) {
			throw fail(`Cannot upload from "${url}": the file host answered HTTP ${status} without a usable http(s) Location to follow`, 'Give the final, public http(s) URL of the file.');
		}
		const problem = internalHostProblem(next, allowedHosts);
		if (problem) {
			throw fail(`Cannot upload from "${url}": it redirects to ${next.href}, and ${problem}; the redirect was not followed`, internalHostFix(next.hostname));
		}
		if (hop >= MAX_URL_REDIRECTS) {
			throw fail(`Cannot upload from "${url}": too many redirects (more than ${MAX_URL_REDIRECTS})`, 'Give the final, public http(s) URL of the file.');
		}
		current = next.href;
	}
	const header = (name: string) => {
		const value = response.headers?.[name];
		return Array.isArray(value) ? value[0] : value;
	};
	const declared = Number(header('content-length'));
	if (Number.isFinite(declared) && declared > maxBytes) {
		response.body.destroy?.();
		throw tooLarge(`${declared} bytes declared`);
	}
	const chunks: Buffer[] = [];
	let total = 0;
	for await (const chunk of response.body) {
		const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
		total += buffer.length;
		if (total > maxBytes) {
			response.body.destroy?.();
			throw tooLarge(`more than ${maxBytes} bytes received`);
		}
		chunks.push(buffer);
	}
	const disposition = header('content-disposition') ?? '';
	const match = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition);
	return {
		data: Buffer.concat(chunks, total),
		contentType: header('content-type'),
		dispositionName: match ? decodeURIComponent(match[1]) : undefined,
	};
}

export async function executeBatch(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	// The credential's Allowed Download Hosts: read before anything is fetched, for the check of internal hosts.
	let allowedHosts: string[] = [];
	let credentialError: unknown;
	try {
		allowedHosts = (await getCredentials(this)).allowedDownloadHosts;
	} catch (error) {
		credentialError = error;
	}
	const prepare = (itemIndex: number): UploadTask => {
		const datasetId = readDatasetId(this, itemIndex);
		const rawUrl = String(this.getNodeParameter('url', itemIndex, '') ?? '');
		const { url, problem } = checkPublicUrl(rawUrl);
		if (!url) {
			throw new NodeOperationError(this.getNode(), `Cannot upload from "${rawUrl}": ${problem}`, {
				itemIndex,
				description:
					'Give a public http(s) URL. For a file on this machine, read it with "Read/Write Files from Disk" and use the Upload File operation.',
			});
		}
		// Only an internal host needs the list (without it, a broken credential fails at the upload, as before).
		if (credentialError && internalAddressKind(url.hostname)) throw credentialError;
		const internal = internalHostProblem(url, allowedHosts);
		if (internal) {
			throw new NodeOperationError(this.getNode(), `Cannot upload from "${rawUrl}": ${internal}`, {
				itemIndex,
				description: internalHostFix(url.hostname),
			});
		}
		const options = this.getNodeParameter('options', itemIndex, {}) as { fileName?: string };
		const override = String(options.fileName ?? '').trim();
		const urlName = fileNameFromUrl(url.href);
		if (override) assertPlainFileName(this, override, itemIndex);
		return {
			itemIndex,
			datasetId,
			fileNames: [override || urlName || 'upload.bin'],
			run: async (): Promise<UploadRecord> => {
				const fetched = await fetchPublicFile(this, url.href, DIRECT_UPLOAD_MAX_BYTES, itemIndex, allowedHosts);
				let fileName = override || urlName || fetched.dispositionName || 'upload.bin';
				if (fileNameProblem(fileName)) fileName = 'upload.bin';
				const response = await uploadDatasetFile(this, datasetId, {
					fileName,
					contentType: contentTypeFor(fileName, fetched.contentType),
					data: fetched.data,
				});
				return {
					dataset_id: datasetId,
					file_name: fileName,
					size_bytes: fetched.data.length,
					source_url: url.href,
					upload_method: 'direct',
					response,
				};
			},
		};
	};
	return await runJobs(this, items, uploadKind(this, prepare, readParallelUploads(this, items.length)));
}
