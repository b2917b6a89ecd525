import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, sleep, updateDisplayOptions } from 'n8n-workflow';

import type { OpenUrlOptions, OpenedUrl } from '../../../shared/download';
import { internalAddressKind, internalAddressText } from '../../../shared/net';
import { UrlProblem, fileNameFromUrl, internalHostProblem, isUrlProblem, openUrl, publicHostsPolicy } from '../../../shared/download';
import {
	backoffDelay,
	getCredentials,
	getRetryPolicy,
	httpStatusOf,
	isTransientError,
	retryAfterMsOf,
	uploadDatasetStream,
} from '../../../shared/transport';
import { DIRECT_UPLOAD_MAX_BYTES } from '../../../shared/types';
import type { UploadRecord, UploadTask } from '../../helpers/jobKind';
import { assertPlainFileName, datasetLocator, readDatasetId, uploadWaitProperties } from '../../helpers/datasets';
import { readParallelUploads, uploadKind } from '../../helpers/jobKind';
import { runJobs } from '../../../shared/jobs';
import { contentTypeFor, fileNameProblem } from '../../helpers/files';

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

/** Redirects followed per file, each target checked like the URL itself. */
export const MAX_URL_REDIRECTS = 5;

/** The file host must start answering within this time, and the whole file must arrive within the other. */
export const URL_CONNECT_TIMEOUT_MS = 30_000;
export const URL_TOTAL_TIMEOUT_MS = 15 * 60_000;

/** The fix for a refused internal address (the URL itself or a redirect). */
export function internalHostFix(host: string): string {
	return `n8n downloads the file itself, so addresses inside your network are refused (otherwise a workflow or an AI agent could make n8n read internal services). Give a public http(s) URL. To use a file server inside your network on purpose, add its host (${host}) to "Allowed Download Hosts" in the RunComfy credential.`;
}

const LARGE_FILE_FIX =
	'Upload From URL handles files up to 150 MB. Download the file into n8n (HTTP Request node, binary response) and use Upload File: larger files go through a signed upload URL.';

/** The error for a file that could not be fetched, worded for Upload From URL. */
export function fetchError(ctx: IExecuteFunctions, url: string, problem: UrlProblem, itemIndex: number): NodeOperationError {
	const d = problem.details;
	const fail = (message: string, description: string) => new NodeOperationError(ctx.getNode(), message, { itemIndex, description });
	const lead = `Cannot upload from "${url}"`;
	const where = problem.url === url ? '' : ` for ${problem.url}`;
	const finalUrl = 'Give the final, public http(s) URL of the file.';
	switch (problem.kind) {
		case 'internal-address': {
			const host = new URL(problem.url).hostname;
			const what = internalAddressText(host, d.address ?? host, d.addressKind ?? '', d.resolved === true);
			return d.hop === 0
				? fail(`${lead}: ${what}`, internalHostFix(host))
				: fail(`${lead}: it redirects to ${problem.url}, and ${what}; the redirect was not followed`, internalHostFix(host));
		}
		case 'unresolvable':
			return d.noResolver
				? fail(
						`${lead}: this n8n version cannot check where ${new URL(problem.url).hostname} points`,
						`n8n before 2.41 gives nodes no way to resolve host names, so the node cannot make sure the host is not inside your network. Add the host (or its domain as *.domain) to "Allowed Download Hosts" in the RunComfy credential, or update n8n.`,
					)
				: fail(
						`${lead}: the host ${new URL(problem.url).hostname} could not be found${d.code ? ` (${d.code})` : ''}`,
						'Check the URL for typos.',
					);
		case 'blocked-by-n8n':
			return fail(
				`${lead}: n8n's SSRF protection blocked ${new URL(problem.url).hostname}`,
				d.message || 'Ask the n8n administrator to allow the host.',
			);
		case 'http-status':
			return fail(
				`${lead}: the file host answered HTTP ${d.status}${where}`,
				'Check that the URL opens the file in a browser without logging in; links that expire must be fresh.',
			);
		case 'redirect':
			return d.tooMany !== undefined
				? fail(`${lead}: too many redirects (more than ${d.tooMany})`, finalUrl)
				: fail(`${lead}: the file host answered HTTP ${d.status} without a usable http(s) Location to follow`, finalUrl);
		case 'too-large':
			return fail(
				`The file at ${url} is larger than 150 MB (${d.declaredBytes !== undefined ? `${d.declaredBytes} bytes declared` : `more than ${d.maxBytes} bytes received`})`,
				LARGE_FILE_FIX,
			);
		case 'timeout':
			return fail(
				d.timeout === 'connect'
					? `${lead}: the file host did not answer within ${Math.round((d.timeoutMs ?? 0) / 1000)} s${where}`
					: `${lead}: the file did not arrive within ${Math.round((d.timeoutMs ?? URL_TOTAL_TIMEOUT_MS) / 1000)} s`,
				'Nothing was uploaded. Check that the file host is reachable and fast enough, or download the file into n8n first and use Upload File.',
			);
		case 'stopped':
			return fail(`${lead}: the execution was stopped`, 'Nothing more was uploaded for this item.');
		default:
			return fail(`${lead}: ${problem.message}`, 'Check the URL and the file host, then run again.');
	}
}

/**
 * Opens a public URL for Upload From URL: plain httpRequest (never the token), at most 150 MB, redirects
 * checked at every hop, internal addresses refused unless Allowed Download Hosts names the host exactly.
 */
export async function openPublicFile(
	ctx: IExecuteFunctions,
	url: string,
	itemIndex: number,
	allowedHosts: string[],
	overrides: Partial<OpenUrlOptions> = {},
): Promise<OpenedUrl> {
	try {
		return await openUrl(ctx, url, {
			hostPolicy: publicHostsPolicy(allowedHosts),
			maxBytes: DIRECT_UPLOAD_MAX_BYTES,
			maxRedirects: MAX_URL_REDIRECTS,
			connectTimeoutMs: URL_CONNECT_TIMEOUT_MS,
			totalTimeoutMs: URL_TOTAL_TIMEOUT_MS,
			...overrides,
		});
	} catch (error) {
		throw isUrlProblem(error) ? fetchError(ctx, url, error, itemIndex) : error;
	}
}

/** Whether a failed upload is worth sending again (the file is fetched again for it), and after how long. */
function retryDelay(error: unknown, attempt: number): number | undefined {
	const policy = getRetryPolicy();
	if (attempt >= policy.maxAttempts) return undefined;
	if (httpStatusOf(error) === 429) {
		const asked = retryAfterMsOf(error);
		if (asked !== undefined && asked > policy.maxDelayMs) return undefined;
		return asked ?? backoffDelay(attempt, policy);
	}
	return isTransientError(error) ? backoffDelay(attempt, policy) : undefined;
}

/**
 * Streams the file at `url` into the dataset (never held in memory). An upload that fails on the way (5xx,
 * 429, a dropped connection) is repeated with a fresh fetch, as the service overwrites a file of the same name.
 */
async function uploadFromUrl(
	ctx: IExecuteFunctions,
	task: { url: string; datasetId: string; itemIndex: number; fileName: (dispositionName?: string) => string; allowedHosts: string[] },
): Promise<UploadRecord> {
	const signal = ctx.getExecutionCancelSignal();
	for (let attempt = 1; ; attempt++) {
		const opened = await openPublicFile(ctx, task.url, task.itemIndex, task.allowedHosts);
		const fileName = task.fileName(opened.dispositionName);
		let failure: unknown;
		try {
			const response = await uploadDatasetStream(ctx, task.datasetId, {
				fileName,
				contentType: contentTypeFor(fileName, opened.contentType),
				stream: opened.stream,
				sizeBytes: opened.declaredBytes,
			});
			return {
				dataset_id: task.datasetId,
				file_name: fileName,
				size_bytes: opened.bytesRead(),
				source_url: task.url,
				upload_method: 'direct',
				response,
			};
		} catch (error) {
			failure = error;
		} finally {
			opened.close();
		}
		// The fetch broke off (over 150 MB, too slow, Stop, a dropped file host): say that, not the upload's echo.
		const fetchFailure = opened.failure();
		if (fetchFailure) throw fetchError(ctx, task.url, fetchFailure, task.itemIndex);
		const delay = signal?.aborted ? undefined : retryDelay(failure, attempt);
		if (delay === undefined) throw failure;
		await sleep(delay, signal).catch(() => undefined);
		if (signal?.aborted) throw fetchError(ctx, task.url, new UrlProblem('stopped', task.url, { hop: 0 }), task.itemIndex);
	}
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
		// Internal IP literals and localhost names are refused here, before anything is sent; names are resolved
		// (and refused when internal) when the file is fetched. Only such hosts need the list before the fetch.
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
		const nameFor = (dispositionName?: string): string => {
			const name = override || urlName || dispositionName || 'upload.bin';
			return fileNameProblem(name) ? 'upload.bin' : name;
		};
		return {
			itemIndex,
			datasetId,
			fileNames: [override || urlName || 'upload.bin'],
			run: async (): Promise<UploadRecord> => {
				if (credentialError) throw credentialError;
				return await uploadFromUrl(this, { url: url.href, datasetId, itemIndex, fileName: nameFor, allowedHosts });
			},
		};
	};
	return await runJobs(this, items, uploadKind(this, prepare, readParallelUploads(this, items.length)));
}
