/**
 * CONTRACT STUB (download work implements): the one download path every node uses.
 * Finds URLs in an output, checks them against the credential's allow-list, and streams allowed ones into
 * n8n's binary store with plain `helpers.httpRequest` (never the bearer token), with a size cap.
 */
import type { IBinaryData, IExecuteFunctions } from 'n8n-workflow';

export interface FoundUrl {
	/** JSON path inside the searched value, e.g. `output.images[0]`. */
	path: string;
	url: string;
}

/** Every http(s) URL anywhere in `value`, depth-first, with its JSON path rooted at `rootPath`. */
export function collectUrls(_value: unknown, _rootPath: string): FoundUrl[] {
	throw new Error('not implemented yet');
}

/** `*.example.com` matches example.com and any subdomain; other patterns match the host exactly. */
export function isHostAllowed(_url: string, _allowedHosts: string[]): boolean {
	throw new Error('not implemented yet');
}

export interface DownloadOptions {
	maxBytes: number;
	allowedHosts: string[];
	/** File name to use when the URL has none. */
	fallbackName?: string;
}

export interface DownloadedFile {
	url: string;
	path: string;
	binary: IBinaryData;
}

export interface SkippedFile {
	url: string;
	path: string;
	reason: string;
}

/** Downloads every allowed URL into binary properties `data`, `data_1`, ... One failure does not stop the rest. */
export async function downloadAll(
	_ctx: IExecuteFunctions,
	_urls: FoundUrl[],
	_options: DownloadOptions,
): Promise<{ binary: Record<string, IBinaryData>; downloaded: DownloadedFile[]; skipped: SkippedFile[] }> {
	throw new Error('not implemented yet');
}
