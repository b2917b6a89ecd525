/**
 * The download module: every file n8n fetches from a URL goes through `openUrl` (./openUrl) under a host
 * policy (./hosts) with addresses vetted at every hop (./addresses, by the rules of ../net). `downloadAll`
 * turns the output URLs of a result into binary data; Upload From URL streams `openUrl`'s body to the dataset.
 *
 * Files: urls.ts (finding URLs), hosts.ts (the allow-list and host policies), addresses.ts (vetting
 * each hop, resolving names), openUrl.ts (fetching), problems.ts (UrlProblem), names.ts (names, MIME types).
 */
import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { internalAddressText } from '../net';
import type { HostResolver } from './addresses';
import { listedHostsPolicy } from './hosts';
import type { OpenedUrl } from './openUrl';
import { openUrl } from './openUrl';
import { fileNameFromUrl, formatBytes, mimeTypeFor, sanitizeFileName, withExtension, extensionOf } from './names';
import type { UrlProblem } from './problems';
import { isUrlProblem } from './problems';
import type { FoundUrl } from './urls';

export type { FoundUrl } from './urls';
export { collectUrls, isHttpUrl } from './urls';
export type { HostMatch, HostPermission, HostPolicy } from './hosts';
export { isHostAllowed, listedHostsPolicy, matchAllowedHost, parseAllowedHosts, publicHostsPolicy } from './hosts';
export type { HostResolver } from './addresses';
export { egressResolverOf, internalHostProblem, pinnedTarget, vetHost } from './addresses';
export type { OpenUrlOptions, OpenedUrl } from './openUrl';
export { DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_TOTAL_TIMEOUT_MS, MAX_REDIRECTS, openUrl } from './openUrl';
export type { UrlProblemDetails, UrlProblemKind } from './problems';
export { UrlProblem, isUrlProblem } from './problems';
export { fileNameFromContentDisposition, fileNameFromUrl, formatBytes, mimeTypeFor, sanitizeFileName, withExtension } from './names';

export interface DownloadOptions {
	maxBytes: number;
	allowedHosts: string[];
	/** File name to use when the URL has none. */
	fallbackName?: string;
	/** Redirects followed per file (each hop checked like the URL itself). Default 5. */
	maxRedirects?: number;
	/** Per hop, until the file host's answer arrives. Default 60 s. */
	connectTimeoutMs?: number;
	/** Per file, the whole transfer. Default 30 min. */
	totalTimeoutMs?: number;
	/** How host names are resolved (tests inject one). Default: n8n's egress filter lookup. */
	resolveHost?: HostResolver | null;
	/** Binary property names are `${binaryPropertyPrefix}`, `${binaryPropertyPrefix}_1`, ... Default `data`. */
	binaryPropertyPrefix?: string;
}

export interface DownloadedFile {
	url: string;
	path: string;
	binary: IBinaryData;
	/** The binary property the file was stored under (`data`, `data_1`, ...). */
	property: string;
}

export interface SkippedFile {
	url: string;
	path: string;
	reason: string;
}

/** 2 GiB, the CLI's per-file limit. */
export const DEFAULT_MAX_DOWNLOAD_BYTES = 2 * 1024 * 1024 * 1024;

/** What prepareBinaryData accepts (Buffer | Readable), derived from n8n-workflow so 'stream' is not imported. */
type BinaryInput = Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0];

/** `a.png`, then `a-1.png`, `a-2.png`, ... within one item. */
function uniqueName(name: string, used: Set<string>): string {
	if (!used.has(name.toLowerCase())) {
		used.add(name.toLowerCase());
		return name;
	}
	const ext = extensionOf(name);
	const stem = ext ? name.slice(0, -(ext.length + 1)) : name;
	for (let n = 1; ; n++) {
		const candidate = ext ? `${stem}-${n}.${ext}` : `${stem}-${n}`;
		if (!used.has(candidate.toLowerCase())) {
			used.add(candidate.toLowerCase());
			return candidate;
		}
	}
}

const allowListText = (hosts: string[]) => (hosts.length ? hosts.join(', ') : 'none configured');

/** Why an output file was not downloaded, worded for the `skipped_downloads` list. */
export function downloadReason(problem: UrlProblem, allowedHosts: string[]): string {
	const d = problem.details;
	const list = allowListText(allowedHosts);
	const fix = 'raise Max Download Size or turn off Download Outputs';
	switch (problem.kind) {
		case 'host-not-allowed':
			return d.hop === 0
				? `host not in the allowed download hosts (${list}); add it to "Allowed Download Hosts" in the RunComfy credential to download it`
				: `redirected to ${problem.host}, which is not in the allowed download hosts (${list}); the redirect was not followed`;
		case 'internal-address': {
			const host = new URL(problem.url).hostname;
			const what = internalAddressText(host, d.address ?? host, d.addressKind ?? '', d.resolved === true);
			const where = d.hop === 0 ? '' : ` (a redirect target)`;
			return `${what}${where}; internal addresses are downloaded only from a host named exactly in "Allowed Download Hosts" (a wildcard is not enough)`;
		}
		case 'unresolvable':
			return d.noResolver
				? `this n8n version cannot resolve ${problem.host} to check that it is not an internal address; name the host (or its domain as *.domain) in "Allowed Download Hosts", or update n8n`
				: `the host name ${problem.host} could not be resolved${d.code ? ` (${d.code})` : ''}`;
		case 'blocked-by-n8n':
			return `n8n's SSRF protection blocked ${problem.host}${d.hop ? ' (a redirect target)' : ''}; ask the n8n administrator to allow it`;
		case 'http-status':
			return `the file host answered HTTP ${d.status}${
				d.status === 403 || d.status === 404 || d.status === 410
					? ' (output links expire after some days; fetch the result again for fresh links)'
					: ''
			}`;
		case 'redirect':
			return d.tooMany !== undefined
				? `too many redirects (more than ${d.tooMany})`
				: `the file host answered HTTP ${d.status} without a usable Location to follow${d.location ? ` (${d.location})` : ''}`;
		case 'too-large':
			return d.declaredBytes !== undefined
				? `The file is ${formatBytes(d.declaredBytes)}, over the ${formatBytes(d.maxBytes ?? 0)} download limit; ${fix}`
				: `The file is over the ${formatBytes(d.maxBytes ?? 0)} download limit (the transfer was stopped there and nothing was kept); ${fix}`;
		case 'timeout':
			return d.timeout === 'connect'
				? `the file host did not answer within ${Math.round((d.timeoutMs ?? 0) / 1000)} s`
				: `the download did not finish in time${d.timeoutMs ? ` (${Math.round(d.timeoutMs / 1000)} s)` : ''}; nothing was kept`;
		default:
			return problem.message;
	}
}

const messageOf = (error: unknown): string => {
	if (error instanceof Error) return error.message;
	return typeof error === 'string' ? error : JSON.stringify(error);
};

/**
 * Downloads every allowed URL into binary properties `data`, `data_1`, ... (in order). A URL whose host is not
 * allowed, or whose download fails, is listed in `skipped` with the reason, and the rest continue. A stopped
 * execution (the cancel signal) throws and stops everything.
 */
export async function downloadAll(
	ctx: IExecuteFunctions,
	urls: FoundUrl[],
	options: DownloadOptions,
): Promise<{ binary: Record<string, IBinaryData>; downloaded: DownloadedFile[]; skipped: SkippedFile[] }> {
	const binary: Record<string, IBinaryData> = {};
	const downloaded: DownloadedFile[] = [];
	const skipped: SkippedFile[] = [];
	const usedNames = new Set<string>();
	const prefix = options.binaryPropertyPrefix ?? 'data';
	const signal = ctx.getExecutionCancelSignal?.();
	const allowedHosts = options.allowedHosts ?? [];
	const hostPolicy = listedHostsPolicy(allowedHosts);
	const stopped = () =>
		new NodeOperationError(ctx.getNode(), 'The execution was stopped while downloading outputs', {
			description: `Downloaded ${downloaded.length} of ${urls.length} file(s) before the stop. The output URLs stay valid for a few days; run Get Result to fetch them again.`,
		});

	for (const found of urls) {
		if (signal?.aborted) throw stopped();
		let opened: OpenedUrl | undefined;
		try {
			opened = await openUrl(ctx, found.url, {
				hostPolicy,
				maxBytes: options.maxBytes,
				maxRedirects: options.maxRedirects,
				connectTimeoutMs: options.connectTimeoutMs,
				totalTimeoutMs: options.totalTimeoutMs,
				resolveHost: options.resolveHost,
				signal,
			});
			const baseName =
				fileNameFromUrl(found.url) || fileNameFromUrl(opened.finalUrl) || sanitizeFileName(options.fallbackName ?? 'output') || 'output';
			const mimeType = mimeTypeFor(opened.contentType, baseName);
			const fileName = uniqueName(withExtension(baseName, mimeType), usedNames);
			const stored = await ctx.helpers.prepareBinaryData(opened.stream as BinaryInput, fileName, mimeType);
			const property = downloaded.length === 0 ? prefix : `${prefix}_${downloaded.length}`;
			binary[property] = stored;
			downloaded.push({ url: found.url, path: found.path, binary: stored, property });
		} catch (error) {
			if (signal?.aborted) throw stopped();
			const problem = isUrlProblem(error) ? error : opened?.failure();
			skipped.push({ url: found.url, path: found.path, reason: problem ? downloadReason(problem, allowedHosts) : messageOf(error) });
		} finally {
			opened?.close();
		}
	}
	return { binary, downloaded, skipped };
}
