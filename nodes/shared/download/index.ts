/**
 * The one download path every node uses.
 *
 * Finds URLs in an output, checks them against the credential's allow-list, and streams allowed ones into
 * n8n's binary store with plain `helpers.httpRequest` (never the bearer token, never an Authorization
 * header), following at most 5 redirects itself and re-checking the allow-list on every hop, with a size cap
 * checked against Content-Length before reading and counted while streaming (the stream errors past the cap,
 * so n8n's binary store keeps nothing partial). Like the CLI, one failed file does not stop the others; a
 * stopped execution stops everything.
 */
import type { IBinaryData, IDataObject, IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

export interface FoundUrl {
	/** JSON path inside the searched value, e.g. `output.images[0]`. */
	path: string;
	url: string;
}

export interface DownloadOptions {
	maxBytes: number;
	allowedHosts: string[];
	/** File name to use when the URL has none. */
	fallbackName?: string;
	/** Redirects followed per file (each hop re-checked against the allow-list). Default 5. */
	maxRedirects?: number;
	/** Milliseconds to wait for the file host to answer (headers). Default 120000. */
	timeoutMs?: number;
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
export const DEFAULT_ALLOWED_DOWNLOAD_HOSTS = ['*.runcomfy.net', '*.runcomfy.com'];
export const MAX_REDIRECTS = 5;
const DEFAULT_TIMEOUT_MS = 120_000;
const MAX_FILE_NAME_LENGTH = 200;

// ---------------------------------------------------------------------------------------------------------
// Finding URLs
// ---------------------------------------------------------------------------------------------------------

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function isHttpUrl(text: string): boolean {
	if (!/^https?:\/\//i.test(text)) return false;
	try {
		const url = new URL(text);
		return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
	} catch {
		return false;
	}
}

/** Every http(s) URL anywhere in `value`, depth-first, with its JSON path rooted at `rootPath`. Identical
 * URLs are listed once (at their first path). */
export function collectUrls(value: unknown, rootPath: string): FoundUrl[] {
	const found: FoundUrl[] = [];
	const seen = new Set<string>();
	const visiting = new Set<unknown>();
	const walk = (v: unknown, path: string, depth: number) => {
		if (depth > 64) return;
		if (typeof v === 'string') {
			const text = v.trim();
			if (isHttpUrl(text) && !seen.has(text)) {
				seen.add(text);
				found.push({ path, url: text });
			}
			return;
		}
		if (typeof v !== 'object' || v === null || visiting.has(v)) return;
		visiting.add(v);
		if (Array.isArray(v)) {
			v.forEach((entry, i) => walk(entry, `${path}[${i}]`, depth + 1));
		} else {
			for (const [key, entry] of Object.entries(v as IDataObject)) {
				const segment = IDENTIFIER.test(key) ? (path ? `.${key}` : key) : `[${JSON.stringify(key)}]`;
				walk(entry, `${path}${segment}`, depth + 1);
			}
		}
		visiting.delete(v);
	};
	walk(value, rootPath, 0);
	return found;
}

// ---------------------------------------------------------------------------------------------------------
// The allow-list
// ---------------------------------------------------------------------------------------------------------

/** Splits the credential's comma/space/newline separated host list. */
export function parseAllowedHosts(value: string | string[] | undefined | null): string[] {
	const list = Array.isArray(value) ? value : String(value ?? '').split(/[\s,;]+/);
	return list.map((h) => String(h).trim()).filter(Boolean);
}

function normaliseHost(host: string): string {
	let h = host.trim().toLowerCase();
	if (h.includes('://')) {
		try {
			h = new URL(h).hostname;
		} catch {
			return '';
		}
	}
	h = h.replace(/\/.*$/, '');
	if (h.startsWith('[')) {
		const end = h.indexOf(']');
		return end > 0 ? h.slice(0, end + 1) : h;
	}
	if ((h.match(/:/g) ?? []).length === 1) h = h.slice(0, h.indexOf(':')); // strip a port
	return h.replace(/\.$/, '');
}

/**
 * `*.example.com` matches example.com and any subdomain; other patterns match the host exactly (IP addresses
 * too); a lone `*` allows every host. Ports in patterns are ignored. Non-http(s) URLs are never allowed.
 */
export function isHostAllowed(url: string, allowedHosts: string[]): boolean {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		return false;
	}
	if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return false;
	const host = parsed.hostname.toLowerCase().replace(/\.$/, '');
	if (!host) return false;
	for (const raw of allowedHosts ?? []) {
		if (typeof raw !== 'string') continue;
		const pattern = raw.trim().toLowerCase();
		if (pattern === '*') return true;
		if (pattern.startsWith('*.')) {
			const base = normaliseHost(pattern.slice(2));
			if (base && (host === base || host.endsWith(`.${base}`))) return true;
		} else {
			const exact = normaliseHost(pattern);
			if (exact && host === exact) return true;
		}
	}
	return false;
}

// ---------------------------------------------------------------------------------------------------------
// Names and types
// ---------------------------------------------------------------------------------------------------------

const MIME_BY_EXTENSION: Record<string, string> = {
	png: 'image/png',
	jpg: 'image/jpeg',
	jpeg: 'image/jpeg',
	webp: 'image/webp',
	gif: 'image/gif',
	bmp: 'image/bmp',
	tif: 'image/tiff',
	tiff: 'image/tiff',
	svg: 'image/svg+xml',
	mp4: 'video/mp4',
	webm: 'video/webm',
	mov: 'video/quicktime',
	mkv: 'video/x-matroska',
	avi: 'video/x-msvideo',
	wav: 'audio/wav',
	mp3: 'audio/mpeg',
	flac: 'audio/flac',
	ogg: 'audio/ogg',
	m4a: 'audio/mp4',
	safetensors: 'application/octet-stream',
	ckpt: 'application/octet-stream',
	bin: 'application/octet-stream',
	yaml: 'application/yaml',
	yml: 'application/yaml',
	txt: 'text/plain',
	json: 'application/json',
	zip: 'application/zip',
};

const EXTENSION_BY_MIME: Record<string, string> = {
	'image/png': 'png',
	'image/jpeg': 'jpg',
	'image/jpg': 'jpg',
	'image/webp': 'webp',
	'image/gif': 'gif',
	'image/bmp': 'bmp',
	'image/tiff': 'tiff',
	'image/svg+xml': 'svg',
	'video/mp4': 'mp4',
	'video/webm': 'webm',
	'video/quicktime': 'mov',
	'video/x-matroska': 'mkv',
	'video/x-msvideo': 'avi',
	'audio/wav': 'wav',
	'audio/x-wav': 'wav',
	'audio/wave': 'wav',
	'audio/mpeg': 'mp3',
	'audio/mp3': 'mp3',
	'audio/flac': 'flac',
	'audio/x-flac': 'flac',
	'audio/ogg': 'ogg',
	'audio/mp4': 'm4a',
	'application/yaml': 'yaml',
	'application/x-yaml': 'yaml',
	'text/yaml': 'yaml',
	'text/plain': 'txt',
	'application/json': 'json',
	'application/zip': 'zip',
};

const extensionOf = (name: string): string | undefined => {
	const m = /\.([A-Za-z0-9]{1,12})$/.exec(name);
	return m ? m[1].toLowerCase() : undefined;
};

/** MIME type from Content-Type (parameters stripped), else from the file extension, else octet-stream. */
export function mimeTypeFor(contentType: unknown, fileName: string): string {
	const fromHeader = typeof contentType === 'string' ? contentType.split(';')[0].trim().toLowerCase() : '';
	if (fromHeader && fromHeader !== 'application/octet-stream' && fromHeader !== 'binary/octet-stream') return fromHeader;
	const ext = extensionOf(fileName);
	if (ext && MIME_BY_EXTENSION[ext]) return MIME_BY_EXTENSION[ext];
	return fromHeader || 'application/octet-stream';
}

/** The last path segment of the URL, decoded and made safe as a file name ('' when there is none). */
export function fileNameFromUrl(url: string): string {
	let pathname: string;
	try {
		pathname = new URL(url).pathname;
	} catch {
		return '';
	}
	const segment = pathname.split('/').filter(Boolean).pop() ?? '';
	let decoded = segment;
	try {
		decoded = decodeURIComponent(segment);
	} catch {
		// keep the raw segment
	}
	return sanitizeFileName(decoded);
}

/** No path separators, no control characters, no leading dots, at most ~200 characters (extension kept). */
export function sanitizeFileName(name: string): string {
	let clean = name
		// eslint-disable-next-line no-control-regex
		.replace(/[\u0000-\u001f\u007f-\u009f]/g, '')
		.replace(/[/\\:*?"<>|]/g, '_')
		.trim()
		.replace(/^\.+/, '')
		.trim();
	if (clean === '' || /^[._\s]*$/.test(clean)) return '';
	if (clean.length > MAX_FILE_NAME_LENGTH) {
		const ext = extensionOf(clean);
		const suffix = ext ? `.${ext}` : '';
		clean = clean.slice(0, MAX_FILE_NAME_LENGTH - suffix.length) + suffix;
	}
	return clean;
}

function withExtension(name: string, mimeType: string): string {
	if (extensionOf(name)) return name;
	const ext = EXTENSION_BY_MIME[mimeType];
	return ext ? `${name}.${ext}` : name;
}

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

/** `2 GiB`, `3.1 GiB`, `512 MiB`, `900 KiB`, `12 bytes`. */
export function formatBytes(bytes: number): string {
	const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
	let value = bytes;
	let unit = 0;
	while (value >= 1024 && unit < units.length - 1) {
		value /= 1024;
		unit++;
	}
	if (unit === 0) return `${bytes} bytes`;
	const rounded = Math.round(value * 10) / 10;
	return `${Number.isInteger(rounded) ? rounded.toFixed(0) : rounded.toFixed(1)} ${units[unit]}`;
}

// ---------------------------------------------------------------------------------------------------------
// Streaming
// ---------------------------------------------------------------------------------------------------------

/** What prepareBinaryData accepts (Buffer | Readable), derived from n8n-workflow so 'stream' is not imported. */
type BinaryInput = Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0];

/** The parts of a Node Readable the download path uses. */
interface ResponseStream {
	destroy(error?: Error): unknown;
	on?: (event: string, listener: (...args: unknown[]) => void) => unknown;
	map?: (fn: (chunk: unknown) => unknown, options?: { concurrency?: number }) => ResponseStream;
	resume?: () => unknown;
}

interface FullResponse {
	body: unknown;
	headers: Record<string, unknown>;
	statusCode: number;
}

class DownloadProblem extends Error {}

const isStream = (v: unknown): v is ResponseStream =>
	typeof v === 'object' && v !== null && typeof (v as ResponseStream).destroy === 'function';

const noop = () => {};

/**
 * Drops a response without reading it and closes its connection. n8n's HTTP layer hands out a wrapper
 * stream (axios `Readable.from`) whose destroy() does not reach the socket before the first read, so the
 * request's own abort signal is fired as well (axios then closes the request and the socket).
 */
function discard(body: unknown, request: AbortController): void {
	if (isStream(body)) {
		try {
			body.on?.('error', noop); // the abort makes axios emit an error on the body
		} catch {
			// not an emitter
		}
	}
	request.abort();
	if (isStream(body)) {
		try {
			body.destroy();
		} catch {
			// nothing to clean up
		}
	}
}

function headerOf(headers: unknown, name: string): string | undefined {
	if (typeof headers !== 'object' || headers === null) return undefined;
	const h = headers as Record<string, unknown>;
	let value: unknown;
	if (typeof h.get === 'function') {
		try {
			value = (h.get as (n: string) => unknown).call(h, name);
		} catch {
			value = undefined;
		}
	}
	if (value === undefined || value === null) {
		const key = Object.keys(h).find((k) => k.toLowerCase() === name);
		value = key === undefined ? undefined : h[key];
	}
	if (Array.isArray(value)) value = value[0];
	return value === undefined || value === null ? undefined : String(value);
}

const hostOf = (url: string): string => {
	try {
		return new URL(url).host;
	} catch {
		return url;
	}
};

const allowListText = (hosts: string[]) => (hosts.length ? hosts.join(', ') : 'none configured');

function notAllowedReason(hosts: string[]): string {
	return `host not in the allowed download hosts (${allowListText(hosts)}); add it to "Allowed Download Hosts" in the RunComfy credential to download it`;
}

function overLimit(size: number | undefined, maxBytes: number): string {
	const fix = 'raise Max Download Size or turn off Download Outputs';
	if (size !== undefined) return `The file is ${formatBytes(size)}, over the ${formatBytes(maxBytes)} download limit; ${fix}`;
	return `The file is over the ${formatBytes(maxBytes)} download limit (the transfer was stopped there and nothing was kept); ${fix}`;
}

/** Counts bytes as they flow; the returned stream errors (and the source is destroyed) past `maxBytes`. */
function capStream(map: NonNullable<ResponseStream['map']>, maxBytes: number): ResponseStream {
	let bytes = 0;
	return map(
		(chunk: unknown) => {
			const length =
				typeof chunk === 'string' ? Buffer.byteLength(chunk) : ((chunk as { length?: number })?.length ?? 0);
			bytes += length;
			if (bytes > maxBytes) throw new DownloadProblem(overLimit(undefined, maxBytes));
			return chunk;
		},
		{ concurrency: 1 },
	);
}

function resolveUrl(location: string, base: string): string | undefined {
	try {
		return new URL(location, base).toString();
	} catch {
		return undefined;
	}
}

interface OpenedDownload {
	stream: ResponseStream;
	contentType?: string;
	finalUrl: string;
	/** Closes the connection (no-op once the body was read to the end). */
	close: () => void;
}

async function openDownload(
	ctx: IExecuteFunctions,
	url: string,
	options: DownloadOptions,
	signal: AbortSignal | undefined,
): Promise<OpenedDownload> {
	const maxRedirects = options.maxRedirects ?? MAX_REDIRECTS;
	let current = url;
	for (let hop = 0; ; hop++) {
		// One controller per request, so this download's connection can be closed on its own; the execution
		// cancel signal still aborts it.
		const own = new AbortController();
		const request: IHttpRequestOptions = {
			method: 'GET',
			url: current,
			encoding: 'stream',
			returnFullResponse: true,
			disableFollowRedirect: true,
			ignoreHttpStatusErrors: true,
			timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
			abortSignal: signal ? AbortSignal.any([signal, own.signal]) : own.signal,
		};
		const response = (await ctx.helpers.httpRequest(request)) as FullResponse;
		const status = Number(response.statusCode);
		if (status >= 300 && status < 400) {
			discard(response.body, own);
			const location = headerOf(response.headers, 'location');
			if (!location) throw new DownloadProblem(`the file host answered HTTP ${status} without a Location to follow`);
			if (hop >= maxRedirects) throw new DownloadProblem(`too many redirects (more than ${maxRedirects})`);
			const next = resolveUrl(location, current);
			if (!next) throw new DownloadProblem(`the file host redirected to an invalid address (${location})`);
			if (!isHostAllowed(next, options.allowedHosts)) {
				throw new DownloadProblem(
					`redirected to ${hostOf(next)}, which is not in the allowed download hosts (${allowListText(options.allowedHosts)}); the redirect was not followed`,
				);
			}
			current = next;
			continue;
		}
		if (status < 200 || status >= 300) {
			discard(response.body, own);
			const hint =
				status === 403 || status === 404 || status === 410
					? ' (output links expire after some days; fetch the result again for fresh links)'
					: '';
			throw new DownloadProblem(`the file host answered HTTP ${status}${hint}`);
		}
		if (!isStream(response.body)) {
			own.abort();
			throw new DownloadProblem('the file host returned no readable body');
		}
		const lengthHeader = headerOf(response.headers, 'content-length');
		const declared = lengthHeader !== undefined && /^\d+$/.test(lengthHeader.trim()) ? Number(lengthHeader) : undefined;
		if (declared !== undefined && declared > options.maxBytes) {
			discard(response.body, own);
			throw new DownloadProblem(overLimit(declared, options.maxBytes));
		}
		const body = response.body;
		const map = body.map;
		if (typeof map !== 'function') {
			discard(body, own);
			throw new DownloadProblem('the file host returned a body that cannot be streamed');
		}
		return {
			stream: capStream(map.bind(body), options.maxBytes),
			contentType: headerOf(response.headers, 'content-type'),
			finalUrl: current,
			close: () => discard(body, own),
		};
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
	const stopped = () =>
		new NodeOperationError(ctx.getNode(), 'The execution was stopped while downloading outputs', {
			description: `Downloaded ${downloaded.length} of ${urls.length} file(s) before the stop. The output URLs stay valid for a few days; run Get Result to fetch them again.`,
		});

	for (const found of urls) {
		if (signal?.aborted) throw stopped();
		if (!isHostAllowed(found.url, allowedHosts)) {
			skipped.push({ url: found.url, path: found.path, reason: notAllowedReason(allowedHosts) });
			continue;
		}
		let opened: OpenedDownload | undefined;
		try {
			opened = await openDownload(ctx, found.url, { ...options, allowedHosts }, signal);
			const baseName = fileNameFromUrl(found.url) || fileNameFromUrl(opened.finalUrl) || sanitizeFileName(options.fallbackName ?? 'output') || 'output';
			const mimeType = mimeTypeFor(opened.contentType, baseName);
			const fileName = uniqueName(withExtension(baseName, mimeType), usedNames);
			const stored = await ctx.helpers.prepareBinaryData(opened.stream as unknown as BinaryInput, fileName, mimeType);
			const property = downloaded.length === 0 ? prefix : `${prefix}_${downloaded.length}`;
			binary[property] = stored;
			downloaded.push({ url: found.url, path: found.path, binary: stored, property });
		} catch (error) {
			if (signal?.aborted) throw stopped();
			skipped.push({ url: found.url, path: found.path, reason: messageOf(error) });
		} finally {
			opened?.close();
		}
	}
	return { binary, downloaded, skipped };
}
