/**
 * `openUrl`: the one way the nodes fetch a file from a URL (output downloads and Upload From URL).
 *
 * - Plain `helpers.httpRequest`: never the credential, never an Authorization header.
 * - Redirects are followed here, hop by hop (at most 5): before each hop the host policy decides and the host
 *   is vetted (resolved; internal addresses refused unless the policy says the host is named exactly), so
 *   nothing connects to a refused host, and the hop connects to the address that was vetted (never resolved
 *   again: a name that answers differently the second time cannot lead elsewhere).
 * - A connect timeout (until the answer's headers) and a total timeout (the whole transfer, body included).
 * - A size cap: a declared Content-Length over it is refused before reading; while streaming, bytes are counted
 *   and the request is aborted (the connection closed) the moment the cap is passed.
 * - The body comes back as a stream, never buffered. Problems are thrown (or the stream errors) with a
 *   UrlProblem whose `kind` lets each caller word its own message.
 */
import type { IExecuteFunctions, IHttpRequestOptions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import type { ByteStream } from '../transport/http';
import { headerOf, networkFactsOf } from '../transport/http';
import type { HostResolver } from './addresses';
import { egressResolverOf, isN8nSsrfError, pinnedTarget, vetHost } from './addresses';
import type { HostPolicy } from './hosts';
import { fileNameFromContentDisposition } from './names';
import { UrlProblem } from './problems';

export const MAX_REDIRECTS = 5;
export const DEFAULT_CONNECT_TIMEOUT_MS = 60_000;
export const DEFAULT_TOTAL_TIMEOUT_MS = 30 * 60_000;
/** The longest delay a timer can hold. */
const MAX_TIMER_MS = 2_147_483_647;

export interface OpenUrlOptions {
	/** Decides each hop's host (0 = the URL as given, then each redirect target). */
	hostPolicy: HostPolicy;
	/** Size cap in bytes. */
	maxBytes: number;
	/** Redirects followed. Default 5. */
	maxRedirects?: number;
	/** Until the answer's headers arrive, per hop (resolving, connecting, waiting). Default 60 s. */
	connectTimeoutMs?: number;
	/** The whole fetch, every hop and the body included. Default 30 min. */
	totalTimeoutMs?: number;
	/** How host names are resolved. Default: n8n's egress filter lookup; `null` means "cannot resolve". */
	resolveHost?: HostResolver | null;
	/** Stops the fetch. Default: the execution's cancel signal. */
	signal?: AbortSignal;
}

export interface OpenedUrl {
	/** The body; errors with a UrlProblem past the cap, on the total timeout or on Stop. */
	stream: ByteStream;
	/** The URL that answered (after redirects). */
	finalUrl: string;
	contentType?: string;
	/** Content-Length as declared by the file host. */
	declaredBytes?: number;
	/** The file name of the Content-Disposition header, made safe. */
	dispositionName?: string;
	/** Bytes read from the body so far. */
	bytesRead(): number;
	/** Why the body stopped early (cap, timeout, Stop, broken connection), once it has. */
	failure(): UrlProblem | undefined;
	/** Closes the connection; safe to call more than once and after the body was read. */
	close(): void;
}

/** The parts of a Node Readable the fetch uses on the body n8n hands out. */
interface SourceStream {
	destroy(error?: Error): unknown;
	on?: (event: string, listener: (...args: unknown[]) => void) => unknown;
	map?: (fn: (chunk: unknown) => unknown, options?: { concurrency?: number }) => ByteStream;
}

interface FullResponse {
	body: unknown;
	headers: unknown;
	statusCode: number;
}

const noop = () => {};

const isStream = (v: unknown): v is SourceStream =>
	typeof v === 'object' && v !== null && typeof (v as SourceStream).destroy === 'function';

/** A one-shot timer on n8n's `sleep` (nodes may not use timers directly); the returned function cancels it. */
function startTimer(ms: number, onFire: () => void): () => void {
	const stop = new AbortController();
	sleep(Math.min(Math.max(0, ms), MAX_TIMER_MS), stop.signal).then(onFire, noop);
	return () => stop.abort();
}

/**
 * Drops a response without reading it and closes its connection. n8n's HTTP layer hands out a wrapper stream
 * whose destroy() does not reach the socket before the first read, so the request's own abort signal is fired
 * as well (axios then closes the request and the socket).
 */
function discard(body: unknown, request: AbortController, reason?: Error): void {
	if (isStream(body)) {
		try {
			body.on?.('error', noop); // the abort makes axios emit an error on the body
			body.destroy(reason); // first, so a reader sees `reason` rather than axios's "canceled"
		} catch {
			// not an emitter, or nothing to clean up
		}
	}
	request.abort(reason);
}

const chunkLength = (chunk: unknown): number =>
	typeof chunk === 'string' ? Buffer.byteLength(chunk) : ((chunk as { length?: number } | null)?.length ?? 0);

function parseHttpUrl(text: string): URL | undefined {
	try {
		const url = new URL(text);
		return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
	} catch {
		return undefined;
	}
}

function resolveLocation(location: string, base: URL): URL | undefined {
	try {
		return parseHttpUrl(new URL(location, base).href);
	} catch {
		return undefined;
	}
}

/** What a failed request turns into, given what this fetch already knows (its own timeouts, Stop). */
function problemOfThrown(error: unknown, url: URL, hop: number, known: UrlProblem | undefined, stopped: boolean): UrlProblem {
	if (known) return known;
	if (stopped) return new UrlProblem('stopped', url.href, { hop }, 'the execution was stopped');
	if (isN8nSsrfError(error)) {
		const message = String((error as { message?: unknown }).message ?? '');
		return new UrlProblem('blocked-by-n8n', url.href, { hop, message }, `n8n's SSRF protection blocked ${url.hostname}`);
	}
	const facts = networkFactsOf(error);
	if (facts.timedOut)
		return new UrlProblem('timeout', url.href, { hop, timeout: 'total', code: facts.code }, 'the file host did not answer in time');
	return new UrlProblem(
		'network',
		url.href,
		{ hop, code: facts.code, message: facts.message },
		`the connection failed: ${facts.code ?? facts.message}`,
	);
}

/**
 * Opens `url` for reading under `options` (see the module comment). Throws a UrlProblem when the file cannot
 * be fetched; otherwise returns the open body, which the caller reads and then closes.
 */
export async function openUrl(ctx: IExecuteFunctions, url: string, options: OpenUrlOptions): Promise<OpenedUrl> {
	const maxRedirects = options.maxRedirects ?? MAX_REDIRECTS;
	const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
	const totalTimeoutMs = options.totalTimeoutMs ?? DEFAULT_TOTAL_TIMEOUT_MS;
	const resolver = options.resolveHost === undefined ? egressResolverOf(ctx) : (options.resolveHost ?? undefined);
	const cancel = options.signal ?? ctx.getExecutionCancelSignal?.();
	const start = parseHttpUrl(url);
	if (!start) throw new UrlProblem('invalid-url', url, { hop: 0 }, 'not an http(s) URL');
	let current: URL = start;

	// What the fetch is doing right now, so a timeout or Stop can close it wherever it is.
	let hop = 0;
	let request = new AbortController();
	let body: SourceStream | undefined;
	let failure: UrlProblem | undefined;
	let settled = false;
	const fail = (problem: UrlProblem) => {
		if (settled || failure) return;
		failure = problem;
		discard(body, request, problem);
	};
	const stopTotal = startTimer(totalTimeoutMs, () =>
		fail(new UrlProblem('timeout', current.href, { hop, timeout: 'total', timeoutMs: totalTimeoutMs }, 'the transfer took too long')),
	);
	const onStop = () => fail(new UrlProblem('stopped', current.href, { hop }, 'the execution was stopped'));
	cancel?.addEventListener('abort', onStop);
	const finish = () => {
		settled = true;
		stopTotal();
		cancel?.removeEventListener('abort', onStop);
	};

	let opened = false;
	try {
		for (; ; hop++) {
			if (cancel?.aborted) throw new UrlProblem('stopped', current.href, { hop }, 'the execution was stopped');
			if (failure) throw failure;
			const address = await vetHost(current, options.hostPolicy(current, hop), resolver, hop);
			if (failure) throw failure;

			request = new AbortController();
			const hopUrl: URL = current;
			let answered = false;
			const stopConnect = startTimer(connectTimeoutMs, () => {
				if (!answered) {
					fail(
						new UrlProblem(
							'timeout',
							hopUrl.href,
							{ hop, timeout: 'connect', timeoutMs: connectTimeoutMs },
							'the file host did not answer in time',
						),
					);
				}
			});
			// n8n refuses a custom `lookup`, so the vetted address goes in the URL and the name in Host / TLS.
			const target = pinnedTarget(hopUrl, address);
			const requestOptions: IHttpRequestOptions = {
				method: 'GET',
				url: target.url,
				// Uncompressed, so the declared length is what arrives and the count is of real bytes.
				headers: { 'Accept-Encoding': 'identity', ...(target.hostHeader ? { Host: target.hostHeader } : {}) },
				...(target.servername ? { agentOptions: { servername: target.servername } } : {}),
				encoding: 'stream',
				returnFullResponse: true,
				disableFollowRedirect: true,
				ignoreHttpStatusErrors: true,
				timeout: Math.min(totalTimeoutMs, MAX_TIMER_MS),
				abortSignal: cancel ? AbortSignal.any([cancel, request.signal]) : request.signal,
			};
			let response: FullResponse;
			try {
				response = (await ctx.helpers.httpRequest(requestOptions)) as FullResponse;
			} catch (error) {
				throw problemOfThrown(error, hopUrl, hop, failure, cancel?.aborted === true);
			} finally {
				answered = true;
				stopConnect();
			}
			if (failure) {
				discard(response.body, request, failure);
				throw failure;
			}

			const status = Number(response.statusCode);
			if (status >= 300 && status < 400) {
				discard(response.body, request);
				const location = headerOf(response.headers, 'location');
				const next: URL | undefined = location ? resolveLocation(location, hopUrl) : undefined;
				if (!location || !next) {
					throw new UrlProblem('redirect', hopUrl.href, { hop, status, location }, `HTTP ${status} without a usable http(s) Location`);
				}
				if (hop >= maxRedirects) {
					throw new UrlProblem(
						'redirect',
						hopUrl.href,
						{ hop, status, location, tooMany: maxRedirects },
						`more than ${maxRedirects} redirects`,
					);
				}
				current = next;
				continue;
			}
			if (status < 200 || status >= 300) {
				discard(response.body, request);
				throw new UrlProblem('http-status', hopUrl.href, { hop, status }, `the file host answered HTTP ${status}`);
			}
			const source = response.body;
			if (!isStream(source) || typeof source.map !== 'function') {
				discard(source, request);
				throw new UrlProblem('no-body', hopUrl.href, { hop, status }, 'the file host returned no readable body');
			}
			const lengthHeader = headerOf(response.headers, 'content-length')?.trim();
			const declared = lengthHeader !== undefined && /^\d+$/.test(lengthHeader) ? Number(lengthHeader) : undefined;
			if (declared !== undefined && declared > options.maxBytes) {
				const problem = new UrlProblem(
					'too-large',
					hopUrl.href,
					{ hop, declaredBytes: declared, maxBytes: options.maxBytes },
					'over the size limit',
				);
				discard(source, request, problem);
				throw problem;
			}
			opened = true;
			return wrapBody(source, {
				request,
				hop,
				url: hopUrl,
				maxBytes: options.maxBytes,
				headers: response.headers,
				declared,
				setBody: (b) => (body = b),
				fail,
				failure: () => failure,
				finish,
			});
		}
	} finally {
		if (!opened) finish();
	}
}

interface WrapContext {
	request: AbortController;
	hop: number;
	url: URL;
	maxBytes: number;
	headers: unknown;
	declared?: number;
	setBody: (body: SourceStream) => void;
	fail: (problem: UrlProblem) => void;
	failure: () => UrlProblem | undefined;
	finish: () => void;
}

/** The open body: counted against the cap, ended or broken connections recorded, one close for everything. */
function wrapBody(source: SourceStream, w: WrapContext): OpenedUrl {
	w.setBody(source);
	let bytes = 0;
	const counted = source.map!(
		(chunk: unknown) => {
			bytes += chunkLength(chunk);
			if (bytes > w.maxBytes) {
				const problem = new UrlProblem('too-large', w.url.href, { hop: w.hop, maxBytes: w.maxBytes }, 'over the size limit');
				w.fail(problem); // aborts the request: the connection closes now, not when the reader gives up
				throw problem;
			}
			return chunk;
		},
		{ concurrency: 1 },
	);
	// A broken connection shows as an error on the source; keep it as the reason (the first one wins).
	source.on?.('error', (error: unknown) => {
		if (!w.failure()) w.fail(error instanceof UrlProblem ? error : problemOfThrown(error, w.url, w.hop, undefined, false));
	});
	counted.on('error', noop); // the reader gets the error; this only keeps an unread stream from crashing n8n
	counted.on('close', w.finish);
	return {
		stream: counted,
		finalUrl: w.url.href,
		contentType: headerOf(w.headers, 'content-type'),
		declaredBytes: w.declared,
		dispositionName: fileNameFromContentDisposition(headerOf(w.headers, 'content-disposition')),
		bytesRead: () => bytes,
		failure: w.failure,
		close: () => {
			w.finish();
			discard(source, w.request);
			if (!counted.destroyed) counted.destroy();
		},
	};
}
