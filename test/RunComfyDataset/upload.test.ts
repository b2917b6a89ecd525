/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals */
/**
 * RunComfy Dataset node uploads: Upload File (direct up to 150 MB, signed and streamed above, captions from a
 * field, names, overwrites, expired signed URLs), Upload Caption, and "Wait Until Ready" on uploads. Real n8n
 * engine, sandbox on loopback. Upload From URL has its own file (uploadFromUrl.test.ts).
 */
import http from 'http';
import type { AddressInfo } from 'net';
import { Readable, Transform } from 'stream';

import { getRuntime, runNode, withExecuteContext } from '../helpers/engine';
import { startMeteringProxy } from '../helpers/meteringProxy';
import { uploadViaSignedUrl } from '../../nodes/RunComfyDataset/actions/dataset/uploadFile.operation';
import {
	FAST,
	PNG,
	createDataset,
	credentialsFor,
	datasetNode,
	datasetParams,
	image,
	isDatasetUpload,
	isSignedPut,
	isUploadEndpoint,
	uploadTexts,
	useSandbox,
} from './setup';

const sb = useSandbox();
beforeEach(() => sb.reset(FAST));

const filesOf = (id: string) =>
	Object.fromEntries((sb.state().datasets.find((d) => d.id === id)?.files ?? []).map((f) => [f.filename, f.size_bytes]));

/** A stream of `total` bytes that never exists in memory as a whole (the harness stores it in n8n's binary store). */
function bigStream(total: number): Readable {
	const chunk = Buffer.alloc(1024 * 1024, 7);
	let left = total;
	return new Readable({
		read() {
			if (left <= 0) {
				this.push(null);
				return;
			}
			const n = Math.min(left, chunk.length);
			left -= n;
			this.push(n === chunk.length ? chunk : chunk.subarray(0, n));
		},
	});
}

describe('Upload File', () => {
	it('uploads every item directly, writes captions from a field, waits until READY and warns about the missing caption', async () => {
		const id = await createDataset(sb, 'captioned');
		const result = await runNode({
			node: datasetNode,
			credentials: credentialsFor(sb),
			parameters: datasetParams('uploadFile', id, { options: { captionField: 'meta.caption' } }),
			inputItems: [
				image('img_0001.png', { meta: { caption: 'a photo of p3r5on, smiling' } }),
				image('img_0002.png', { meta: { caption: 'p3r5on — ünïcødé' } }),
				image('img_0003.png', { meta: {} }),
			],
		});
		expect(result.error).toBeUndefined();
		expect(result.unpairedItems).toBe(0);
		expect(result.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(result.items.map((i) => i.json)).toEqual([
			expect.objectContaining({
				dataset_id: id,
				file_name: 'img_0001.png',
				size_bytes: PNG.length,
				upload_method: 'direct',
				caption_file: 'img_0001.txt',
				dataset_status: 'READY',
				dataset_name: 'captioned',
			}),
			expect.objectContaining({ file_name: 'img_0002.png', caption_file: 'img_0002.txt', dataset_status: 'READY' }),
			expect.objectContaining({ file_name: 'img_0003.png', dataset_status: 'READY' }),
		]);
		expect(result.items[0].json.warnings).toBeUndefined();
		expect(result.items[1].json.warnings).toBeUndefined();
		expect(result.items[2].json.warnings).toEqual([
			'Item has no caption in field "meta.caption", so no caption file was written for img_0003.png',
			expect.stringContaining('img_0003.png has no caption file (img_0003.txt) in the dataset'),
		]);
		expect(filesOf(id)).toEqual({
			'img_0001.png': PNG.length,
			'img_0002.png': PNG.length,
			'img_0003.png': PNG.length,
			'img_0001.txt': Buffer.byteLength('a photo of p3r5on, smiling'),
			'img_0002.txt': Buffer.byteLength('p3r5on — ünïcødé'),
		});
		const uploads = sb.log().filter(isDatasetUpload);
		expect(uploads.map((e) => (e.body as { file: { filename: string; contentType: string } }).file.contentType).sort()).toEqual([
			'image/png',
			'image/png',
			'image/png',
			'text/plain; charset=utf-8',
			'text/plain; charset=utf-8',
		]);
		expect(sb.log().filter(isSignedPut)).toHaveLength(0);
	});

	it('names files with the File Name option (an expression per item); re-uploading a name overwrites it', async () => {
		const id = await createDataset(sb, 'renamed');
		const big = Buffer.concat([PNG, Buffer.alloc(100)]);
		const result = await runNode({
			node: datasetNode,
			credentials: credentialsFor(sb),
			parameters: datasetParams('uploadFile', id, {
				waitForCompletion: false,
				options: { fileName: '={{ $json.name }}.png', parallelUploads: 4 },
			}),
			inputItems: [
				image('camera-001.png', { name: 'face_1' }),
				{ json: { name: 'face_2' }, binary: { data: { data: big, mimeType: 'image/png', fileName: 'camera-002.png' } } },
				image('camera-003.png', { name: 'face_2' }),
			],
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((i) => i.json.file_name)).toEqual(['face_1.png', 'face_2.png', 'face_2.png']);
		// the later item wins, whatever the parallelism
		expect(filesOf(id)).toEqual({ 'face_1.png': PNG.length, 'face_2.png': PNG.length });
		expect(result.items[1].json.warnings).toEqual([
			'face_2.png was uploaded again by a later item (item 2), which overwrote this copy',
			expect.stringContaining('face_2.png has no caption file'),
		]);
		// no waiting: one status snapshot for the caption check, no polling
		expect(sb.log().filter((e) => e.path.endsWith('/status'))).toHaveLength(1);
	});

	it('refuses items without a usable file name before uploading anything', async () => {
		const id = await createDataset(sb, 'names');
		sb.clearLog();
		const noName = await runNode({
			node: datasetNode,
			credentials: credentialsFor(sb),
			parameters: datasetParams('uploadFile', id),
			inputItems: [image('ok.png'), { json: {}, binary: { data: { data: PNG, mimeType: 'image/png', fileName: '' } } }],
		});
		expect(noName.status).toBe('error');
		expect(noName.error?.message).toBe('The file in binary field "data" has no file name');
		expect(noName.error?.itemIndex).toBe(1);
		const withPath = await runNode({
			node: datasetNode,
			credentials: credentialsFor(sb),
			parameters: datasetParams('uploadFile', id, { options: { fileName: 'sub/dir.png' } }),
			inputItems: [image('ok.png')],
		});
		expect(withPath.error?.message).toMatch(/contains a path separator/);
		const noBinary = await runNode({
			node: datasetNode,
			credentials: credentialsFor(sb),
			parameters: datasetParams('uploadFile', id, { binaryPropertyName: 'photo' }),
			inputItems: [image('ok.png')],
		});
		expect(noBinary.error?.message).toMatch(/photo/);
		expect(sb.log().filter(isDatasetUpload)).toHaveLength(0);
	});

	it('with Continue on Fail uploads the good items and returns the bad one as an error item', async () => {
		const id = await createDataset(sb, 'partial');
		const result = await runNode({
			node: datasetNode,
			credentials: credentialsFor(sb),
			continueOnFail: true,
			parameters: datasetParams('uploadFile', id),
			inputItems: [image('good.png'), { json: {} }, image('good2.png')],
		});
		expect(result.items.map((i) => [i.json.file_name ?? null, typeof i.json.error, i.pairedItem])).toEqual([
			['good.png', 'undefined', { item: 0 }],
			[null, 'string', { item: 1 }],
			['good2.png', 'undefined', { item: 2 }],
		]);
		expect(Object.keys(filesOf(id)).sort()).toEqual(['good.png', 'good2.png']);
	});

	// Heavy by nature (200 MB written to n8n's binary store, then streamed): a generous timeout for loaded machines.
	it("sends a 200 MB file through a signed URL, streamed from n8n's binary store: exact size, no token, sending before the file is read", async () => {
		const id = await createDataset(sb, 'big-files');
		const size = 200 * 1024 * 1024;
		// Bytes the node has read from n8n's binary store, and how far it had read when storage got its first byte.
		const { binaryDataService } = await getRuntime();
		let readFromStore = 0;
		let readAtFirstByte: number | undefined;
		const getAsStream = binaryDataService.getAsStream.bind(binaryDataService);
		const spy = jest.spyOn(binaryDataService, 'getAsStream').mockImplementation(async (...args) => {
			const counting = new Transform({
				transform(chunk: Buffer, _encoding, done) {
					readFromStore += chunk.length;
					done(null, chunk);
				},
			});
			return (await getAsStream(...args)).pipe(counting);
		});
		// Storage behind a metering proxy; the trainer API's signed URLs are rewritten to point at it.
		const storage = await startMeteringProxy(sb.urls.files, {
			onBody: (r) => {
				if (r.method === 'PUT' && readAtFirstByte === undefined) readAtFirstByte = readFromStore;
			},
		});
		const trainer = await startMeteringProxy(sb.urls.trainer, { rewrite: (text) => text.split(sb.urls.files).join(storage.url) });
		let result;
		try {
			result = await runNode({
				node: datasetNode,
				credentials: credentialsFor(sb, { trainerApiBaseUrl: trainer.url }),
				parameters: datasetParams('uploadFile', id),
				// The harness hands `data` to n8n's prepareBinaryData, which also takes a stream.
				inputItems: [{ json: {}, binary: { data: { data: bigStream(size), mimeType: 'video/mp4', fileName: 'clip.mp4' } } }],
			});
		} finally {
			spy.mockRestore();
			await storage.close();
			await trainer.close();
		}
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toMatchObject({
			file_name: 'clip.mp4',
			size_bytes: size,
			upload_method: 'signed',
			dataset_status: 'READY',
		});
		expect(filesOf(id)).toEqual({ 'clip.mp4': size });
		expect(
			sb
				.log()
				.filter(isUploadEndpoint)
				.map((e) => e.body),
		).toEqual([{ filenameToByteSize: { 'clip.mp4': size } }]);
		const puts = sb.log().filter(isSignedPut);
		expect(puts).toHaveLength(1);
		expect(puts[0].authorization).toBeUndefined();
		expect(puts[0].body).toEqual({ file: { filename: 'clip.mp4', size, contentType: 'video/mp4' } });
		expect(sb.log().filter(isDatasetUpload)).toHaveLength(0);
		// Streamed: the whole file came out of the binary store as a stream, and storage had its first byte while
		// most of the file was still unread (the node can be ahead only by the buffers in between). A node that
		// holds the file first has read all of it by then, or reads it without the stream (0 here). Memory itself
		// is measured in `npm run bench` (Memory).
		expect(storage.requests.filter((r) => r.method === 'PUT').map((r) => r.received)).toEqual([size]);
		expect(readFromStore).toBe(size);
		expect(readAtFirstByte).toBeDefined();
		expect(readAtFirstByte!).toBeLessThan(size);
	}, 240_000);
});

describe('signed upload URL that expired', () => {
	/**
	 * A loopback proxy in front of the trainer API that hands out the first `expiring` signed URLs only once they
	 * have expired (the sandbox signs them with a 0 ms lifetime), so the node meets a genuinely expired URL.
	 */
	async function expiringProxy(expiring: number): Promise<{ url: string; close: () => Promise<void> }> {
		let handedOut = 0;
		const server = http.createServer((req, res) => {
			const endpoint = req.method === 'POST' && req.url?.endsWith('/get-upload-endpoint');
			const expire = endpoint && handedOut++ < expiring;
			if (endpoint) sb.configure({ signedUrlTtlMs: expire ? 0 : 900_000 });
			const upstream = http.request(new URL(req.url ?? '/', sb.urls.trainer), { method: req.method, headers: req.headers }, (answer) => {
				const chunks: Buffer[] = [];
				answer.on('data', (c: Buffer) => chunks.push(c));
				answer.on('end', () => {
					const body = Buffer.concat(chunks);
					const send = () => {
						res.writeHead(answer.statusCode ?? 502, answer.headers);
						res.end(body);
					};
					if (!expire) return send();
					const expires = Number(/expires=(\d+)/.exec(body.toString())?.[1]);
					// hand the URL out only once its expiry time has passed
					const whenExpired = () => (Date.now() > expires ? send() : setImmediate(whenExpired));
					whenExpired();
				});
			});
			req.pipe(upstream);
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const { port } = server.address() as AddressInfo;
		return { url: `http://127.0.0.1:${port}`, close: async () => await new Promise<void>((r) => server.close(() => r())) };
	}

	/** Calls the node's signed-upload step in a real n8n execute context (credentials pointing at the proxy). */
	async function signedUpload(proxyUrl: string, datasetId: string, size: number, body: () => unknown) {
		return await withExecuteContext(
			{ credentials: credentialsFor(sb, { trainerApiBaseUrl: proxyUrl }) },
			async (ctx) => await uploadViaSignedUrl(ctx, datasetId, 'long.mp4', size, async () => body()),
		);
	}

	it('requests a fresh URL once and succeeds (storage hung up on the streaming expired upload)', async () => {
		const id = await createDataset(sb, 'expiry-ok');
		const proxy = await expiringProxy(1);
		try {
			// 32 MB streamed: storage answers 403 "Request has expired" and closes while the bytes still flow
			const size = 32 * 1024 * 1024;
			await expect(signedUpload(proxy.url, id, size, () => bigStream(size))).resolves.toEqual({ attempts: 2 });
			expect(sb.log().filter(isUploadEndpoint)).toHaveLength(2);
			expect(
				sb
					.log()
					.filter(isSignedPut)
					.map((e) => e.status),
			).toEqual([403, 200]);
			expect(
				sb
					.log()
					.filter(isSignedPut)
					.every((e) => e.authorization === undefined),
			).toBe(true);
			expect(filesOf(id)).toEqual({ 'long.mp4': size });
		} finally {
			await proxy.close();
		}
	});

	it('gives up after one fresh URL, telling the user what happened', async () => {
		const id = await createDataset(sb, 'expiry-bad');
		const proxy = await expiringProxy(5);
		try {
			const error = await signedUpload(proxy.url, id, 1000, () => Buffer.alloc(1000)).catch(
				(e: Error & { description?: string; httpCode?: string }) => e,
			);
			expect(error).toBeInstanceOf(Error);
			const failure = error as Error & { description?: string; httpCode?: string };
			expect(failure.message).toMatch(/^Uploading long\.mp4 through a signed URL failed twice: .*HTTP 403.*Request has expired/);
			expect(failure.description).toMatch(/a fresh upload URL did not help/);
			expect(failure.httpCode).toBe('403');
			expect(sb.log().filter(isUploadEndpoint)).toHaveLength(2);
			expect(
				sb
					.log()
					.filter(isSignedPut)
					.map((e) => e.status),
			).toEqual([403, 403]);
			expect(filesOf(id)).toEqual({});
		} finally {
			await proxy.close();
		}
	});
});

describe('Upload Caption', () => {
	it('writes the caption next to its image (same base name, .txt) and keeps a .txt name as given', async () => {
		const id = await createDataset(sb, 'captions');
		await uploadTexts(sb, id, { 'img_0001.jpg': 'x', 'clip.mp4': 'x' });
		const result = await runNode({
			node: datasetNode,
			credentials: credentialsFor(sb),
			parameters: datasetParams('uploadCaption', id, { fileName: '={{ $json.file }}', text: '={{ $json.caption }}' }),
			inputItems: [
				{ json: { file: 'img_0001.jpg', caption: 'a photo of p3r5on' } },
				{ json: { file: 'clip.txt', caption: 'p3r5on walking' } },
			],
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((i) => [i.json.file_name, i.json.caption_for ?? null, i.json.warnings ?? null])).toEqual([
			['img_0001.txt', 'img_0001.jpg', null],
			['clip.txt', null, null],
		]);
		expect(filesOf(id)).toMatchObject({
			'img_0001.txt': Buffer.byteLength('a photo of p3r5on'),
			'clip.txt': Buffer.byteLength('p3r5on walking'),
		});
	});
});
