import type { IBinaryData, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { getDatasetUploadUrls, putSignedUpload, uploadDatasetFile, uploadDatasetText } from '../../../shared/transport';
import type { SignedUpload } from '../../../shared/types';
import { DIRECT_UPLOAD_MAX_BYTES } from '../../../shared/types';
import type { UploadRecord, UploadTask } from '../../helpers/jobKind';
import { assertPlainFileName, datasetLocator, readDatasetId, uploadWaitProperties } from '../../helpers/datasets';
import { DEFAULT_PARALLEL_UPLOADS, readParallelUploads, uploadKind } from '../../helpers/jobKind';
import { runJobs } from '../../../shared/jobs';
import { captionFileNameFor, contentTypeFor, extensionOf } from '../../helpers/files';

const show = { resource: ['dataset'], operation: ['uploadFile'] };

/** Read size when streaming a large file from n8n's binary store. */
const STREAM_CHUNK_BYTES = 256 * 1024;

const properties: INodeProperties[] = [
	datasetLocator({}),
	{
		displayName: 'Input Binary Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The name of the input binary field containing the file to upload',
		description:
			'Every input item uploads the file in this binary field. Up to 150 MB it goes through the direct upload; larger files go to a signed upload URL automatically, streamed.',
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
				displayName: 'Caption Field',
				name: 'captionField',
				type: 'string',
				default: '',
				placeholder: 'e.g. caption',
				description:
					'Name of a field of each item (dot notation allowed) whose text is written as the caption file next to the uploaded image or video (same base name, .txt). A list of (image, caption) items becomes a dataset in one node.',
			},
			{
				displayName: 'File Name',
				name: 'fileName',
				type: 'string',
				default: '',
				placeholder: 'e.g. {{ $json.name }}.jpg',
				description:
					"Name of the file in the dataset. Default: the binary's own file name. Uploading a name that exists overwrites that file.",
			},
			{
				displayName: 'Parallel Uploads',
				name: 'parallelUploads',
				type: 'number',
				typeOptions: { minValue: 1, maxValue: 16 },
				default: DEFAULT_PARALLEL_UPLOADS,
				description: 'How many files are uploaded at the same time',
			},
		],
	},
];

export const description = updateDisplayOptions({ show }, properties);

interface UploadOptions {
	captionField?: string;
	fileName?: string;
	parallelUploads?: number;
}

/** Value at a dot/bracket path of an item's JSON (`caption`, `meta.caption`, `captions[0]`). */
export function valueAtPath(data: unknown, path: string): unknown {
	const parts = path
		.replace(/\[(\w+)\]/g, '.$1')
		.split('.')
		.filter((p) => p.length > 0);
	let current: unknown = data;
	for (const part of parts) {
		if (current === null || typeof current !== 'object') return undefined;
		if (!Object.prototype.hasOwnProperty.call(current, part)) return undefined;
		current = (current as Record<string, unknown>)[part];
	}
	return current;
}

const lastSegment = (name: string): string => name.split(/[/\\]/).pop() ?? name;

async function binarySize(ctx: IExecuteFunctions, binary: IBinaryData, itemIndex: number, property: string): Promise<number> {
	if (binary.id) {
		const meta = await ctx.helpers.getBinaryMetadata(binary.id);
		if (Number.isFinite(meta.fileSize)) return meta.fileSize;
	}
	if (typeof binary.bytes === 'number') return binary.bytes;
	return (await ctx.helpers.getBinaryDataBuffer(itemIndex, property)).length;
}

/**
 * Whether a failed signed upload deserves one more try with a fresh URL: the URL expired or was refused (403),
 * or storage closed the connection while the bytes were streaming (it answers early and hangs up: EPIPE/ECONNRESET).
 */
export function isRetryableSignedUpload(error: unknown): boolean {
	const e = error as { httpCode?: string | number | null; statusCode?: number; message?: string; description?: string | null };
	const code = Number(e?.httpCode ?? e?.statusCode);
	const text = `${e?.message ?? ''} ${e?.description ?? ''}`;
	return code === 403 || /expired/i.test(text) || /EPIPE|ECONNRESET|ECONNABORTED|socket hang up/i.test(text);
}

/**
 * Uploads one large file through a signed URL: the exact size is declared, the body comes from `openBody`
 * (a stream from n8n's binary store when possible), no bearer token goes to the URL. If the URL expired, was
 * refused or the connection was closed mid-stream, a fresh URL is requested once and the file is sent again.
 */
export async function uploadViaSignedUrl(
	ctx: IExecuteFunctions,
	datasetId: string,
	fileName: string,
	sizeBytes: number,
	openBody: () => Promise<unknown>,
): Promise<{ attempts: number }> {
	let firstFailure: string | undefined;
	for (let attempt = 1; ; attempt++) {
		const uploads = await getDatasetUploadUrls(ctx, datasetId, { [fileName]: sizeBytes });
		const entries = Object.entries(uploads ?? {});
		const upload: SignedUpload | undefined = uploads?.[fileName] ?? (entries.length === 1 ? entries[0][1] : undefined);
		if (!upload?.upload_url) {
			throw new NodeOperationError(ctx.getNode(), `RunComfy returned no upload URL for ${fileName}`, {
				description: 'Run the node again; if it keeps happening, check the dataset ID (Get Status) and the RunComfy service status.',
			});
		}
		const body = await openBody();
		let failure: unknown;
		try {
			await putSignedUpload(ctx, upload, body, sizeBytes);
			return { attempts: attempt };
		} catch (error) {
			failure = error;
		}
		(body as { destroy?: () => void } | undefined)?.destroy?.();
		if (ctx.getExecutionCancelSignal()?.aborted) throw failure;
		const message = (failure as Error)?.message ?? String(failure);
		if (attempt === 1 && isRetryableSignedUpload(failure)) {
			firstFailure = message;
			continue;
		}
		const httpCode = (failure as { httpCode?: string | null })?.httpCode ?? undefined;
		throw new NodeApiError(
			ctx.getNode(),
			{ message },
			{
				message: `Uploading ${fileName} through a signed URL failed${firstFailure ? ' twice' : ''}: ${message}`,
				description: firstFailure
					? `The first attempt failed too (${firstFailure}), and a fresh upload URL did not help. Check the network and that the file did not change size, then run the node again.`
					: ((failure as { description?: string })?.description ?? 'Run the node again to request a fresh upload URL.'),
				...(httpCode ? { httpCode: String(httpCode) } : {}),
			},
		);
	}
}

export async function executeBatch(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const prepare = (itemIndex: number): UploadTask => {
		const datasetId = readDatasetId(this, itemIndex);
		const property = String(this.getNodeParameter('binaryPropertyName', itemIndex, 'data')).trim() || 'data';
		const options = this.getNodeParameter('options', itemIndex, {}) as UploadOptions;
		const binary = this.helpers.assertBinaryData(itemIndex, property);
		const override = String(options.fileName ?? '').trim();
		const fileName = override || lastSegment(binary.fileName ?? '');
		if (!fileName) {
			throw new NodeOperationError(this.getNode(), `The file in binary field "${property}" has no file name`, {
				itemIndex,
				description: 'Set Options → File Name (e.g. {{ $json.name }}.jpg); captions pair with files by name.',
			});
		}
		assertPlainFileName(this, fileName, itemIndex);
		const warnings: string[] = [];
		let caption: { fileName: string; text: string } | undefined;
		const captionField = String(options.captionField ?? '').trim();
		if (captionField && extensionOf(fileName) !== 'txt') {
			const value = valueAtPath(items[itemIndex].json, captionField);
			if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
				warnings.push(`Item has no caption in field "${captionField}", so no caption file was written for ${fileName}`);
			} else {
				caption = {
					fileName: captionFileNameFor(fileName),
					text: typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value),
				};
			}
		}
		return {
			itemIndex,
			datasetId,
			fileNames: caption ? [fileName, caption.fileName] : [fileName],
			run: async (): Promise<UploadRecord> => {
				const sizeBytes = await binarySize(this, binary, itemIndex, property);
				if (sizeBytes <= 0) {
					throw new NodeOperationError(this.getNode(), `${fileName} is empty (0 bytes)`, {
						itemIndex,
						description: 'Check the node that produced the binary data.',
					});
				}
				const record: UploadRecord = { dataset_id: datasetId, file_name: fileName, size_bytes: sizeBytes };
				if (sizeBytes <= DIRECT_UPLOAD_MAX_BYTES) {
					const data = await this.helpers.getBinaryDataBuffer(itemIndex, property);
					const response = await uploadDatasetFile(this, datasetId, {
						fileName,
						contentType: contentTypeFor(fileName, binary.mimeType),
						data,
					});
					record.upload_method = 'direct';
					record.response = response;
				} else {
					const { attempts } = await uploadViaSignedUrl(this, datasetId, fileName, sizeBytes, async () =>
						binary.id
							? await this.helpers.getBinaryStream(binary.id, STREAM_CHUNK_BYTES)
							: await this.helpers.getBinaryDataBuffer(itemIndex, property),
					);
					record.upload_method = 'signed';
					if (attempts > 1) record.signed_url_requests = attempts;
				}
				if (caption) {
					await uploadDatasetText(this, datasetId, caption.fileName, caption.text);
					record.caption_file = caption.fileName;
				}
				if (warnings.length) record.warnings = warnings;
				return record;
			},
		};
	};
	return await runJobs(this, items, uploadKind(this, prepare, readParallelUploads(this, items.length)));
}
