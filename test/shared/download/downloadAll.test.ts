/* eslint-disable @n8n/community-nodes/no-restricted-imports */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'http';
import { readdirSync, statSync } from 'fs';
import type { AddressInfo } from 'net';
import { join } from 'path';

import { DEFAULT_MAX_DOWNLOAD_BYTES, collectUrls, downloadAll, type FoundUrl } from '../../../nodes/shared/download';
import { getRuntime, withExecuteContext, type RunComfyCredentialData } from '../../helpers/engine';

// ---------------------------------------------------------------------------------------------------------
// Pure parts
// ---------------------------------------------------------------------------------------------------------

describe('collectUrls', () => {
	it('finds every http(s) URL with its JSON path, depth-first', () => {
		const result = {
			images: ['https://playgrounds-storage-public.runcomfy.net/a/0.png', 'https://files.runcomfy.net/a/1.png'],
			video: 'https://files.runcomfy.net/v.mp4',
			meta: { seed: 42, note: 'not a url', nested: [{ url: 'http://cdn.example.com/x.webp' }] },
		};
		expect(collectUrls(result, 'output')).toEqual([
			{ path: 'output.images[0]', url: 'https://playgrounds-storage-public.runcomfy.net/a/0.png' },
			{ path: 'output.images[1]', url: 'https://files.runcomfy.net/a/1.png' },
			{ path: 'output.video', url: 'https://files.runcomfy.net/v.mp4' },
			{ path: 'output.meta.nested[0].url', url: 'http://cdn.example.com/x.webp' },
		]);
	});

	it('quotes keys that are not identifiers (ComfyUI node ids)', () => {
		const outputs = {
			'9': { images: [{ filename: 'ComfyUI_00010_.png', url: 'https://serverless-api-storage.runcomfy.net/o/ComfyUI_00010_.png' }] },
			'38:42': { text: [['hello']] },
			'my key': 'https://a.runcomfy.net/k',
		};
		expect(collectUrls(outputs, 'outputs')).toEqual([
			{ path: 'outputs["9"].images[0].url', url: 'https://serverless-api-storage.runcomfy.net/o/ComfyUI_00010_.png' },
			{ path: 'outputs["my key"]', url: 'https://a.runcomfy.net/k' },
		]);
	});

	it('handles a bare string, an empty root, duplicates and non-URLs', () => {
		expect(collectUrls(' https://a.runcomfy.net/x.png ', 'output')).toEqual([{ path: 'output', url: 'https://a.runcomfy.net/x.png' }]);
		expect(collectUrls({ a: 'https://h/1', b: ['https://h/1', 'https://h/2'] }, '')).toEqual([
			{ path: 'a', url: 'https://h/1' },
			{ path: 'b[1]', url: 'https://h/2' },
		]);
		expect(collectUrls(['ftp://h/x', 'see https://h/x', 'http:/broken', 'data:image/png;base64,AA', 5, null, true], 'o')).toEqual([]);
		expect(collectUrls(undefined, 'o')).toEqual([]);
	});
});

// ---------------------------------------------------------------------------------------------------------
// Real downloads in the n8n engine against loopback file hosts
// ---------------------------------------------------------------------------------------------------------

const TOKEN = 'rc-secret-token-never-sent-to-file-hosts';
const MiB = 1024 * 1024;
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

interface Hit {
	url: string;
	headers: IncomingHttpHeaders;
}

/** A file host with scripted routes; records every request and how each response ended. */
class FileHost {
	server!: Server;

	hits: Hit[] = [];

	bytesSent = new Map<string, number>();

	closedEarly = new Set<string>();

	private closeWaiters = new Map<string, () => void>();

	onSlowRequest?: () => void;

	constructor(
		private readonly host: string,
		private readonly other?: () => string,
	) {}

	/** Resolves once the client has hung up on `url` before the response was complete. */
	async hungUp(url: string): Promise<void> {
		if (this.closedEarly.has(url)) return;
		await new Promise<void>((resolve) => this.closeWaiters.set(url, resolve));
	}

	get base(): string {
		return `http://${this.host}:${(this.server.address() as AddressInfo).port}`;
	}

	async start(): Promise<void> {
		this.server = createServer((req, res) => {
			const url = req.url ?? '/';
			this.hits.push({ url, headers: req.headers });
			res.on('close', () => {
				if (res.writableFinished) return;
				this.closedEarly.add(url);
				this.closeWaiters.get(url)?.();
			});
			this.route(url, res);
		});
		await new Promise<void>((resolve) => this.server.listen(0, this.host, resolve));
	}

	async stop(): Promise<void> {
		this.server.closeAllConnections();
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
	}

	private send(res: ServerResponse, status: number, body: Buffer | string, headers: Record<string, string | number> = {}) {
		res.writeHead(status, { 'Content-Length': Buffer.byteLength(body), ...headers });
		res.end(body);
	}

	/** Streams `total` bytes with backpressure, reusing one chunk so the server itself stays small. */
	private stream(res: ServerResponse, url: string, total: number, headers: Record<string, string | number>) {
		res.writeHead(200, headers);
		const chunk = Buffer.alloc(MiB, 7);
		let sent = 0;
		const pump = () => {
			while (sent < total) {
				const n = Math.min(chunk.length, total - sent);
				sent += n;
				this.bytesSent.set(url, sent);
				if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n))) {
					res.once('drain', pump);
					return;
				}
			}
			res.end();
		};
		res.on('close', () => res.removeListener('drain', pump));
		pump();
	}

	private route(url: string, res: ServerResponse) {
		const path = url.split('?')[0];
		if (path.startsWith('/img/') || path.startsWith('/dup/')) {
			return this.send(res, 200, PNG, { 'Content-Type': 'image/png; charset=binary' });
		}
		if (path === '/clip') return this.send(res, 200, 'video-bytes', { 'Content-Type': 'video/mp4' });
		if (path === '/') return this.send(res, 200, 'webp-bytes', { 'Content-Type': 'image/webp' });
		if (path === '/weights/lora.safetensors') {
			return this.send(res, 200, 'weights', { 'Content-Type': 'application/octet-stream' });
		}
		if (path === '/redirect/ok') return this.send(res, 302, '', { Location: '/img/after-redirect.png' });
		if (path === '/redirect/chain') return this.send(res, 301, '', { Location: `${this.base}/redirect/ok` });
		if (path === '/redirect/away') return this.send(res, 302, '', { Location: `${this.other?.()}/img/evil.png` });
		if (path.startsWith('/redirect/loop')) return this.send(res, 307, '', { Location: `/redirect/loop${Math.random()}` });
		if (path === '/missing.png') return this.send(res, 404, 'nope', { 'Content-Type': 'text/plain' });
		if (path === '/declared-huge.mp4') {
			// Claims 3.1 GiB; sends a little and then nothing more until the client hangs up.
			res.writeHead(200, { 'Content-Type': 'video/mp4', 'Content-Length': String(Math.round(3.1 * 1024 ** 3)) });
			res.write(Buffer.alloc(64 * 1024));
			return;
		}
		const chunked = /^\/chunked\/(\d+)\/(.*)$/.exec(path);
		if (chunked) return this.stream(res, url, Number(chunked[1]), { 'Content-Type': 'video/mp4' });
		const sized = /^\/sized\/(\d+)\/(.*)$/.exec(path);
		if (sized) {
			const n = Number(sized[1]);
			return this.stream(res, url, n, { 'Content-Type': 'application/octet-stream', 'Content-Length': String(n) });
		}
		if (path === '/slow.mp4') {
			res.writeHead(200, { 'Content-Type': 'video/mp4' });
			res.write(Buffer.alloc(1024));
			this.onSlowRequest?.();
			return; // never ends
		}
		return this.send(res, 404, 'unknown route');
	}
}

let files: FileHost;
let evil: FileHost;

const credentials = (): RunComfyCredentialData => ({
	accessToken: TOKEN,
	modelApiBaseUrl: `${files.base}/model-api`,
	serverlessApiBaseUrl: `${files.base}/serverless`,
	trainerApiBaseUrl: `${files.base}/trainer`,
	allowedDownloadHosts: '127.0.0.1',
});

const found = (...paths: string[]): FoundUrl[] => paths.map((p, i) => ({ path: `output.images[${i}]`, url: `${files.base}${p}` }));

function listStorage(dir: string): string[] {
	const out: string[] = [];
	const walk = (d: string) => {
		for (const entry of readdirSync(d, { withFileTypes: true })) {
			const full = join(d, entry.name);
			if (entry.isDirectory()) walk(full);
			else out.push(full);
		}
	};
	walk(dir);
	return out;
}

beforeAll(async () => {
	evil = new FileHost('127.0.0.2');
	await evil.start();
	files = new FileHost('127.0.0.1', () => evil.base);
	await files.start();
});

afterAll(async () => {
	await files?.stop();
	await evil?.stop();
});

beforeEach(() => {
	files.hits = [];
	evil.hits = [];
});

describe('downloadAll (real n8n engine, filesystem binary mode)', () => {
	it('stores files under data, data_1, ... with names and MIME types; duplicates get -1, -2', async () => {
		const urls = found('/img/cat.png?sig=1', '/dup/a/cat.png', '/dup/b/cat.png', '/clip', '/', '/weights/lora.safetensors');
		const result = await withExecuteContext(
			{ credentials: credentials() },
			async (ctx) => await downloadAll(ctx, urls, { maxBytes: 10 * MiB, allowedHosts: ['127.0.0.1'], fallbackName: 'output' }),
		);
		expect(result.skipped).toEqual([]);
		expect(Object.keys(result.binary)).toEqual(['data', 'data_1', 'data_2', 'data_3', 'data_4', 'data_5']);
		const meta = Object.values(result.binary).map((b) => [b.fileName, b.mimeType]);
		expect(meta).toEqual([
			['cat.png', 'image/png'],
			['cat-1.png', 'image/png'],
			['cat-2.png', 'image/png'],
			['clip.mp4', 'video/mp4'],
			['output.webp', 'image/webp'],
			['lora.safetensors', 'application/octet-stream'],
		]);
		expect(result.downloaded.map((d) => [d.property, d.path])).toEqual(urls.map((u, i) => [i ? `data_${i}` : 'data', u.path]));
		// Streamed into the filesystem store, with the right bytes
		const { binaryDataService } = await getRuntime();
		expect(result.binary.data.id).toMatch(/^filesystem/);
		expect(await binaryDataService.getAsBuffer(result.binary.data)).toEqual(PNG);
		expect(result.binary.data.bytes).toBe(PNG.length);
	});

	it('never sends the bearer token or any Authorization header to a file host', async () => {
		await withExecuteContext(
			{ credentials: credentials() },
			async (ctx) => await downloadAll(ctx, found('/img/a.png', '/redirect/ok'), { maxBytes: MiB, allowedHosts: ['127.0.0.1'] }),
		);
		expect(files.hits.length).toBe(3);
		for (const hit of files.hits) {
			expect(hit.headers.authorization).toBeUndefined();
			expect(JSON.stringify(hit.headers)).not.toContain(TOKEN);
		}
	});

	it('skips hosts that are not allowed, without contacting them', async () => {
		const urls: FoundUrl[] = [
			{ path: 'output.images[0]', url: `${evil.base}/img/x.png` },
			{ path: 'output.images[1]', url: `${files.base}/img/ok.png` },
		];
		const result = await withExecuteContext(
			{ credentials: credentials() },
			async (ctx) => await downloadAll(ctx, urls, { maxBytes: MiB, allowedHosts: ['*.runcomfy.net', '127.0.0.1'] }),
		);
		expect(evil.hits).toEqual([]);
		expect(result.skipped).toEqual([
			{
				url: urls[0].url,
				path: 'output.images[0]',
				reason: expect.stringMatching(/^host not in the allowed download hosts \(\*\.runcomfy\.net, 127\.0\.0\.1\)/),
			},
		]);
		expect(Object.keys(result.binary)).toEqual(['data']);
		expect(result.binary.data.fileName).toBe('ok.png');
	});

	it('follows allowed redirects itself, refuses one to a disallowed host, stops after 5', async () => {
		const result = await withExecuteContext(
			{ credentials: credentials() },
			async (ctx) =>
				await downloadAll(ctx, found('/redirect/chain', '/redirect/away', '/redirect/loop'), {
					maxBytes: MiB,
					allowedHosts: ['127.0.0.1'],
				}),
		);
		expect(Object.keys(result.binary)).toEqual(['data']);
		expect(result.binary.data.fileName).toBe('chain.png'); // named after the URL the output listed
		expect(evil.hits).toEqual([]);
		expect(result.skipped.map((s) => s.path)).toEqual(['output.images[1]', 'output.images[2]']);
		expect(result.skipped[0].reason).toMatch(/redirected to 127\.0\.0\.2:\d+, which is not in the allowed download hosts/);
		expect(result.skipped[1].reason).toMatch(/too many redirects \(more than 5\)/);
		expect(files.hits.filter((h) => h.url.startsWith('/redirect/loop'))).toHaveLength(6);
	});

	it('refuses a file whose Content-Length is over the cap, without reading it', async () => {
		const urls = found('/declared-huge.mp4', '/img/after.png');
		const result = await withExecuteContext(
			{ credentials: credentials() },
			async (ctx) => await downloadAll(ctx, urls, { maxBytes: DEFAULT_MAX_DOWNLOAD_BYTES, allowedHosts: ['127.0.0.1'] }),
		);
		expect(result.skipped).toHaveLength(1);
		expect(result.skipped[0].reason).toBe(
			'The file is 3.1 GiB, over the 2 GiB download limit; raise Max Download Size or turn off Download Outputs',
		);
		// The connection was dropped, and the next file still downloaded
		await files.hungUp('/declared-huge.mp4');
		expect(files.closedEarly.has('/declared-huge.mp4')).toBe(true);
		expect(Object.values(result.binary).map((b) => b.fileName)).toEqual(['after.png']);
	});

	it('aborts a chunked stream that grows past the cap and keeps nothing of it', async () => {
		const { tempDir } = await getRuntime();
		const storage = join(tempDir, 'storage');
		const before = listStorage(storage);
		// 1 GiB, no Content-Length: far more than the socket buffers can take in, so a transfer that goes on after the
		// cap cannot look cut short
		const url = '/chunked/1073741824/big.mp4';
		const result = await withExecuteContext(
			{ credentials: credentials() },
			async (ctx) => await downloadAll(ctx, found(url), { maxBytes: 2 * MiB, allowedHosts: ['127.0.0.1'] }),
		);
		expect(result.binary).toEqual({});
		expect(result.downloaded).toEqual([]);
		expect(result.skipped[0].reason).toMatch(
			/^The file is over the 2 MiB download limit \(the transfer was stopped there and nothing was kept\); raise Max Download Size or turn off Download Outputs$/,
		);
		expect(listStorage(storage)).toEqual(before); // no partial or temp file left behind
		expect(files.bytesSent.get(url) ?? 0).toBeLessThan(1024 * MiB); // the transfer was cut short
	});

	it('keeps going after a failed file (HTTP 404) like the CLI', async () => {
		const result = await withExecuteContext(
			{ credentials: credentials() },
			async (ctx) => await downloadAll(ctx, found('/missing.png', '/img/b.png'), { maxBytes: MiB, allowedHosts: ['127.0.0.1'] }),
		);
		expect(result.skipped[0].reason).toMatch(/the file host answered HTTP 404/);
		expect(Object.keys(result.binary)).toEqual(['data']);
		expect(result.binary.data.fileName).toBe('b.png');
	});

	it('stops everything when the execution is stopped', async () => {
		let stop: (() => void) | undefined;
		files.onSlowRequest = () => stop?.();
		const promise = withExecuteContext(
			{
				credentials: credentials(),
				onStart: (s) => {
					stop = s;
				},
			},
			async (ctx) =>
				await downloadAll(ctx, found('/img/first.png', '/slow.mp4', '/img/never.png'), { maxBytes: MiB, allowedHosts: ['127.0.0.1'] }),
		);
		await expect(promise).rejects.toThrow('The execution was stopped while downloading outputs');
		files.onSlowRequest = undefined;
		expect(files.hits.map((h) => h.url)).toEqual(['/img/first.png', '/slow.mp4']);
	});

	it("streams a 200 MiB file into n8n's binary store while it is still arriving", async () => {
		const size = 200 * MiB;
		const url = `/sized/${size}/large.safetensors`;
		// Where the file host stood when the download was handed to n8n's binary store, and in what form.
		const { binaryDataService } = await getRuntime();
		const handedOver: Array<{ stream: boolean; sentByThen: number }> = [];
		const store = binaryDataService.store.bind(binaryDataService);
		const spy = jest.spyOn(binaryDataService, 'store').mockImplementation(async (location, data, metadata) => {
			handedOver.push({ stream: !Buffer.isBuffer(data), sentByThen: files.bytesSent.get(url) ?? 0 });
			return await store(location, data, metadata);
		});
		let result;
		try {
			result = await withExecuteContext(
				{ credentials: credentials() },
				async (ctx) => await downloadAll(ctx, found(url), { maxBytes: DEFAULT_MAX_DOWNLOAD_BYTES, allowedHosts: ['127.0.0.1'] }),
			);
		} finally {
			spy.mockRestore();
		}
		expect(result.skipped).toEqual([]);
		expect(result.binary.data.bytes).toBe(size);
		expect(result.binary.data.fileName).toBe('large.safetensors');
		expect(statSync(binaryDataService.getPath(result.binary.data.id!)).size).toBe(size);
		// Streamed: the store got a stream while most of the file was still unsent (the host sends with backpressure,
		// so it can be ahead only by the buffers in between). A download held in memory first hands over a Buffer,
		// or a stream only once the host has sent everything. Memory itself is measured in `npm run bench` (Memory).
		expect(handedOver).toHaveLength(1);
		expect(handedOver[0].stream).toBe(true);
		expect(handedOver[0].sentByThen).toBeLessThan(size);
	});
});
