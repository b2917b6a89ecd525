/** Trainer datasets (`{trainerApiBaseUrl}/prod/v1/trainers/datasets...`) and signed uploads. */
import type { IDataObject, IHttpRequestOptions } from 'n8n-workflow';
import { NodeApiError, sleep } from 'n8n-workflow';

import type { Dataset, RunComfyContext, SignedUpload } from '../types';
import { DIRECT_UPLOAD_MAX_BYTES } from '../types';
import { answerShapeError, cancelledError, clip, inputError, secretOf, serviceMessageOf } from '../errors';
import type { ByteStream } from '../http';
import { encodeId } from '../ids';
import type { MultipartBody } from '../multipart';
import { multipartFileBody } from '../multipart';
import type { RetryChoice } from '../request';
import { apiRequest, cancelSignalOf, classifyThrown, getRetryPolicy } from '../request';
import { backoffDelay } from '../retry';
import { asObject, normaliseList, withId } from './common';

const BASE = '/prod/v1/trainers/datasets';

const datasetSegment = (ctx: RunComfyContext, id: string): string => encodeId(id, 'dataset id', ctx.getNode());

const normaliseDataset = (record: unknown): Dataset => withId<Dataset>(record, 'id', 'dataset_id');

/** Create an empty dataset (`DRAFT`). Without a name the service generates one. Not repeated after an unclear failure. */
export const createDataset = async (ctx: RunComfyContext, name?: string): Promise<Dataset> => {
	const trimmed = typeof name === 'string' ? name.trim() : '';
	const body = await apiRequest<unknown>(ctx, {
		family: 'trainer',
		method: 'POST',
		path: BASE,
		body: trimmed ? { name: trimmed } : {},
		retry: 'notAccepted',
		acceptedById: true,
		operation: 'dataset creation',
		checkHint: 'list your datasets (Dataset → Get Many) to see whether it was created.',
	});
	const obj = asObject(body);
	return normaliseDataset(obj.dataset && typeof obj.dataset === 'object' && !obj.id ? obj.dataset : obj);
};

/** All datasets; the answer may be `{ datasets: [...] }` or a bare array. No per-file detail. */
export const listDatasets = async (ctx: RunComfyContext): Promise<Dataset[]> => {
	const body = await apiRequest<unknown>(ctx, { family: 'trainer', method: 'GET', path: BASE, operation: 'dataset list' });
	return normaliseList<Dataset>(ctx, body, 'datasets', 'dataset list').map(normaliseDataset);
};

/** Status and successfully uploaded files. */
export const getDatasetStatus = async (ctx: RunComfyContext, id: string, how: RetryChoice = {}): Promise<Dataset> => {
	const seg = datasetSegment(ctx, id);
	const body = await apiRequest<unknown>(ctx, {
		family: 'trainer',
		method: 'GET',
		path: `${BASE}/${seg}/status`,
		subject: { kind: 'dataset', id: decodeURIComponent(seg) },
		operation: 'dataset status check',
		retry: how.retry,
	});
	const obj = asObject(body);
	return normaliseDataset(obj.dataset && typeof obj.dataset === 'object' && !obj.status ? obj.dataset : obj);
};

/** Permanent deletion. An empty answer becomes `{ id, deleted: true }`. */
export const deleteDataset = async (ctx: RunComfyContext, id: string): Promise<IDataObject> => {
	const seg = datasetSegment(ctx, id);
	const body = await apiRequest<IDataObject | null>(ctx, {
		family: 'trainer',
		method: 'DELETE',
		path: `${BASE}/${seg}`,
		subject: { kind: 'dataset', id: decodeURIComponent(seg) },
		operation: 'dataset deletion',
		expect: 'jsonOrEmpty',
	});
	return body && typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length > 0
		? body
		: { id: decodeURIComponent(seg), deleted: true };
};

function checkFileName(ctx: RunComfyContext, fileName: string): string {
	const name = typeof fileName === 'string' ? fileName.trim() : '';
	if (name === '')
		throw inputError(
			ctx.getNode(),
			'The file name is empty',
			'Give the file a name with an extension, e.g. "img_0001.jpg" or "img_0001.txt".',
		);
	if (/[/\\]/.test(name) || name === '.' || name === '..') {
		throw inputError(
			ctx.getNode(),
			`The file name "${name}" contains a path`,
			'Give only the file name (no folders), e.g. "img_0001.jpg".',
		);
	}
	return name;
}

async function uploadPart(ctx: RunComfyContext, id: string, fileName: string, body: FormData | MultipartBody): Promise<IDataObject> {
	const seg = datasetSegment(ctx, id);
	const streamed = !(body instanceof FormData);
	const answer = await apiRequest<IDataObject | null>(ctx, {
		family: 'trainer',
		method: 'POST',
		path: `${BASE}/${seg}/upload`,
		body: streamed ? body.body : body,
		...(streamed
			? {
					headers: {
						'Content-Type': body.contentType,
						...(body.contentLength !== undefined ? { 'Content-Length': String(body.contentLength) } : {}),
					},
					// A stream is read once: the caller repeats the whole upload if it wants another try.
					retry: 'never' as const,
				}
			: {}),
		subject: { kind: 'dataset', id: decodeURIComponent(seg) },
		acceptedById: true,
		operation: `upload of "${fileName}"`,
		expect: 'jsonOrEmpty',
		timeoutMs: 15 * 60 * 1000,
	});
	return answer && typeof answer === 'object' && Object.keys(answer).length > 0 ? answer : { filename: fileName };
}

function formWith(fileName: string, blob: Blob): FormData {
	const form = new FormData();
	form.append('file', blob, fileName);
	return form;
}

/**
 * Direct multipart upload (one part named `file`), up to 150 MB. Re-uploading a file name overwrites the
 * earlier copy, so a failed upload is repeated like a read.
 */
export const uploadDatasetFile = async (
	ctx: RunComfyContext,
	id: string,
	file: { fileName: string; contentType: string; data: Buffer },
): Promise<IDataObject> => {
	const name = checkFileName(ctx, file.fileName);
	datasetSegment(ctx, id);
	const size = file.data?.length ?? 0;
	if (size > DIRECT_UPLOAD_MAX_BYTES) {
		throw inputError(
			ctx.getNode(),
			`The file "${name}" is ${size} bytes, over the 150 MB direct-upload limit`,
			'Upload it through a signed upload URL instead (Get Upload URLs, then the signed upload).',
		);
	}
	const blob = new Blob([file.data as unknown as BlobPart], { type: file.contentType || 'application/octet-stream' });
	return await uploadPart(ctx, id, name, formWith(name, blob));
};

/**
 * The same direct upload with the file streamed from `stream` (e.g. straight from a file host): never held in
 * memory, sent once (a stream cannot be replayed, so the caller decides about another try). With `sizeBytes`
 * the body has an exact length; the caller caps an unknown size while streaming.
 */
export const uploadDatasetStream = async (
	ctx: RunComfyContext,
	id: string,
	file: { fileName: string; contentType: string; stream: ByteStream; sizeBytes?: number },
): Promise<IDataObject> => {
	const name = checkFileName(ctx, file.fileName);
	datasetSegment(ctx, id);
	if (file.sizeBytes !== undefined && file.sizeBytes > DIRECT_UPLOAD_MAX_BYTES) {
		throw inputError(
			ctx.getNode(),
			`The file "${name}" is ${file.sizeBytes} bytes, over the 150 MB direct-upload limit`,
			'Upload it through a signed upload URL instead (Get Upload URLs, then the signed upload).',
		);
	}
	const body = multipartFileBody(
		file.stream,
		{ field: 'file', fileName: name, contentType: file.contentType || 'application/octet-stream' },
		file.sizeBytes,
	);
	return await uploadPart(ctx, id, name, body);
};

/** A caption or other text file written directly (a `file` part with `text/plain; charset=utf-8`). */
export const uploadDatasetText = async (ctx: RunComfyContext, id: string, fileName: string, text: string): Promise<IDataObject> => {
	const name = checkFileName(ctx, fileName);
	datasetSegment(ctx, id);
	const blob = new Blob([typeof text === 'string' ? text : String(text ?? '')], { type: 'text/plain; charset=utf-8' });
	if (blob.size > DIRECT_UPLOAD_MAX_BYTES) {
		throw inputError(ctx.getNode(), `The text for "${name}" is over the 150 MB direct-upload limit`, 'Shorten the text.');
	}
	return await uploadPart(ctx, id, name, formWith(name, blob));
};

/** Signed upload URLs for local or large files: `{ filename: { upload_url, method, headers } }`. */
export const getDatasetUploadUrls = async (
	ctx: RunComfyContext,
	id: string,
	sizes: Record<string, number>,
): Promise<Record<string, SignedUpload>> => {
	const node = ctx.getNode();
	const seg = datasetSegment(ctx, id);
	const entries = Object.entries(sizes ?? {});
	if (entries.length === 0) throw inputError(node, 'No files to upload', 'Give at least one file name with its size in bytes.');
	const map: Record<string, number> = {};
	for (const [fileName, size] of entries) {
		const name = checkFileName(ctx, fileName);
		if (typeof size !== 'number' || !Number.isInteger(size) || size <= 0) {
			throw inputError(
				node,
				`The size of "${name}" must be a whole number of bytes above 0`,
				'The signature is tied to the exact size: give the file size in bytes.',
			);
		}
		map[name] = size;
	}
	const body = await apiRequest<unknown>(ctx, {
		family: 'trainer',
		method: 'POST',
		path: `${BASE}/${seg}/get-upload-endpoint`,
		body: { filenameToByteSize: map },
		subject: { kind: 'dataset', id: decodeURIComponent(seg) },
		operation: 'upload URL request',
	});
	const obj = asObject(body);
	const uploads = asObject(obj.uploads ?? obj);
	const out: Record<string, SignedUpload> = {};
	for (const [name, entry] of Object.entries(uploads)) {
		const e = asObject(entry);
		if (typeof e.upload_url === 'string' && e.upload_url !== '') out[name] = e as SignedUpload;
	}
	if (Object.keys(out).length === 0) {
		throw answerShapeError(ctx, {
			summary: 'No upload URLs in the answer',
			message: 'RunComfy returned no signed upload URLs',
			description: 'Expected { "uploads": { "<file name>": { "upload_url": ... } } }.',
			body,
		});
	}
	return out;
};

const isBuffer = (v: unknown): v is Buffer => typeof Buffer !== 'undefined' && Buffer.isBuffer(v);

/**
 * PUT the bytes to a signed URL with plain `helpers.httpRequest` (never the bearer token): the upload's
 * method (default PUT) and headers, `Content-Length` = the exact size. `body` may be a Buffer (repeated on a
 * dropped connection or 5xx) or a Readable stream (single attempt: a stream cannot be replayed).
 */
export const putSignedUpload = async (ctx: RunComfyContext, upload: SignedUpload, body: unknown, sizeBytes: number): Promise<void> => {
	const node = ctx.getNode();
	let url: URL | undefined;
	try {
		url = new URL(upload?.upload_url);
	} catch {
		url = undefined;
	}
	if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
		throw inputError(
			node,
			'The signed upload URL is not a valid http(s) URL',
			'Request a fresh upload URL (Get Upload URLs) and use it as returned.',
		);
	}
	if (!Number.isInteger(sizeBytes) || sizeBytes < 0) {
		throw inputError(
			node,
			`The upload size ${sizeBytes} is not a whole number of bytes`,
			'Give the exact file size in bytes; the signature is tied to it.',
		);
	}
	if (isBuffer(body) && body.length !== sizeBytes) {
		throw inputError(
			node,
			`The file has ${body.length} bytes but the upload URL was signed for ${sizeBytes}`,
			'Request the upload URL with the exact file size.',
		);
	}
	const method = String(upload.method || 'PUT').toUpperCase() as IHttpRequestOptions['method'];
	const headers: IDataObject = {};
	for (const [k, v] of Object.entries(upload.headers ?? {})) {
		if (/^(authorization|content-length|host)$/i.test(k)) continue;
		headers[k] = v;
	}
	headers['Content-Length'] = String(sizeBytes);
	const signal = cancelSignalOf(ctx);
	const replayable = isBuffer(body) || typeof body === 'string';
	const policy = getRetryPolicy();
	const maxAttempts = replayable ? policy.maxAttempts : 1;
	// Large files: at least 5 minutes, plus one minute per 64 MiB.
	const timeout = 5 * 60 * 1000 + Math.ceil(sizeBytes / (64 * 1024 * 1024)) * 60 * 1000;
	const host = url.host;
	for (let attempt = 1; ; attempt++) {
		if (signal?.aborted) throw cancelledError(node);
		let statusCode = 0;
		let answer: unknown;
		let failure: string | undefined;
		try {
			const response = (await ctx.helpers.httpRequest({
				method,
				url: upload.upload_url,
				headers,
				body: body as IHttpRequestOptions['body'],
				returnFullResponse: true,
				ignoreHttpStatusErrors: true,
				// No redirects: axios's redirect follower keeps a copy of the whole request body for replay.
				disableFollowRedirect: true,
				timeout,
				...(signal ? { abortSignal: signal } : {}),
			})) as { statusCode?: number; body?: unknown };
			statusCode = Number(response?.statusCode ?? 0);
			answer = response?.body;
		} catch (error) {
			const outcome = classifyThrown(error, signal);
			if (outcome.kind === 'aborted') throw cancelledError(node);
			if (outcome.kind === 'answer') {
				statusCode = outcome.statusCode;
				answer = outcome.body;
			} else {
				failure = outcome.failure.code ?? outcome.failure.message;
				if (!outcome.failure.retryable || attempt >= maxAttempts) {
					throw new NodeApiError(
						node,
						{ message: 'Signed upload failed' },
						{
							message: `The signed upload to ${host} failed: ${clip(failure, 120, secretOf(ctx))}`,
							description: replayable
								? `Tried ${attempt} time(s). Check the network, then request a fresh upload URL and upload again.`
								: 'A streamed upload cannot be repeated automatically. Request a fresh upload URL and upload again.',
						},
					);
				}
			}
		}
		if (failure === undefined) {
			if (statusCode >= 200 && statusCode < 300) return;
			const transient = statusCode >= 500 || statusCode === 429;
			if (!transient || attempt >= maxAttempts) {
				const text = answer instanceof Uint8Array ? Buffer.from(answer).toString('utf8') : answer;
				const said = serviceMessageOf(typeof text === 'string' ? text.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ') : text, secretOf(ctx));
				throw new NodeApiError(
					node,
					{ message: 'Signed upload rejected' },
					{
						message: `The storage rejected the signed upload (HTTP ${statusCode})${said ? `: ${clip(said, 200)}` : ''}`,
						description:
							statusCode === 403 || statusCode === 400
								? 'Signed URLs are short-lived and tied to the exact size: request a fresh upload URL with the exact file size and upload again.'
								: 'Request a fresh upload URL and upload again.',
						httpCode: String(statusCode),
					},
				);
			}
		}
		try {
			await sleep(backoffDelay(attempt, policy), signal);
		} catch {
			throw cancelledError(node);
		}
	}
};
