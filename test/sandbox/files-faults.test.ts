/* eslint-disable @n8n/community-nodes/no-restricted-imports */
import { EventEmitter } from 'events';
import type { Readable } from 'stream';

import { startSandbox, STABLE_MODELS, type Sandbox } from '../../sandbox';
import { client, pollUntil } from './helpers';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { parseMultipart } = require('../../sandbox/multipart') as {
	parseMultipart: (
		req: EventEmitter & { resume(): void },
		boundary: string,
		h: { onPart(info: { name?: string; filename?: string; contentType?: string }): { data(c: Buffer): void; end(): void } },
	) => Promise<void>;
};

describe('sandbox file host', () => {
	let sb: Sandbox;
	beforeAll(async () => {
		sb = await startSandbox({ runDurationMs: 0, queueMs: 0 });
	});
	afterAll(async () => sb.close());
	beforeEach(() => sb.reset());

	const get = (url: string) => client(sb, null).get(url, { responseType: 'arraybuffer' });

	it('serves small valid media files with type and length', async () => {
		const F = sb.urls.files;
		const png = await get(`${F}/files/a/picture.png`);
		expect(png.headers['content-type']).toBe('image/png');
		const pb = Buffer.from(png.data);
		expect(pb.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
		expect(pb.readUInt32BE(16)).toBe(8); // IHDR width
		expect(Number(png.headers['content-length'])).toBe(pb.length);
		const jpg = Buffer.from((await get(`${F}/files/x.jpg`)).data);
		expect([jpg[0], jpg[1], jpg[jpg.length - 2], jpg[jpg.length - 1]]).toEqual([0xff, 0xd8, 0xff, 0xd9]);
		const wav = Buffer.from((await get(`${F}/files/x.wav`)).data);
		expect(wav.toString('ascii', 0, 4)).toBe('RIFF');
		expect(wav.toString('ascii', 8, 12)).toBe('WAVE');
		expect(wav.readUInt32LE(4)).toBe(wav.length - 8);
		const mp4 = await get(`${F}/files/x.mp4`);
		expect(mp4.headers['content-type']).toBe('video/mp4');
		expect(Buffer.from(mp4.data).toString('ascii', 4, 8)).toBe('ftyp');
		const webp = Buffer.from((await get(`${F}/files/x.webp`)).data);
		expect(webp.toString('ascii', 8, 12)).toBe('WEBP');
		expect((await get(`${F}/files/noextension`)).status).toBe(404);
		expect((await get(`${F}/nothing`)).status).toBe(404);
	});

	it('serves run outputs on the allowed host and logs foreign-host fetches as api "foreign"', async () => {
		const id = (await client(sb).post(`${sb.urls.modelApi}/v1/models/${STABLE_MODELS.mixedHosts}`, { prompt: 'x' })).data.request_id;
		const out = (await client(sb).get(`${sb.urls.modelApi}/v1/requests/${id}/result`)).data.output;
		sb.clearLog();
		expect((await get(out.images[0])).status).toBe(200);
		expect((await get(out.thumbnail)).status).toBe(200);
		const apis = sb.log().map((e) => e.api);
		expect(apis).toEqual(['files', 'foreign']);
		expect(sb.log().every((e) => e.authorization === undefined)).toBe(true);
		expect((await get(`${sb.urls.files}/files/outputs/00000000-0000-0000-0000-000000000000/x.png`)).status).toBe(404);
	});

	it('serves exact sizes with Content-Length (and HEAD) or chunked without it', async () => {
		const F = sb.urls.files;
		const head = await client(sb, null).head(`${F}/files/gen/3000000000/big.mp4`);
		expect(head.status).toBe(200);
		expect(head.headers['content-length']).toBe('3000000000');
		const withLen = await get(`${F}/files/gen/100000/a.bin`);
		expect(withLen.headers['content-length']).toBe('100000');
		expect(Buffer.from(withLen.data).length).toBe(100000);
		const chunked = await get(`${F}/files/chunked/100001/a.bin`);
		expect(chunked.headers['content-length']).toBeUndefined();
		expect(chunked.headers['transfer-encoding']).toBe('chunked');
		expect(Buffer.from(chunked.data).length).toBe(100001);
	});

	it('streams a 64 GiB file: its first 64 MiB arrive although no process could hold the whole', async () => {
		const size = 64 * 1024 ** 3;
		const res = await client(sb, null).get(`${sb.urls.files}/files/gen/${size}/huge.mp4`, { responseType: 'stream' });
		expect(res.headers['content-length']).toBe(String(size));
		const body = res.data as Readable;
		let bytes = 0;
		for await (const chunk of body) {
			bytes += (chunk as Buffer).length;
			if (bytes >= 64 * 1024 * 1024) break; // leaving the loop destroys the response: the client hangs up
		}
		expect(bytes).toBeGreaterThanOrEqual(64 * 1024 * 1024);
		expect(body.destroyed).toBe(true);
	});
});

describe('sandbox faults and control API', () => {
	let sb: Sandbox;
	beforeAll(async () => {
		sb = await startSandbox({ runDurationMs: 0, queueMs: 0 });
	});
	afterAll(async () => sb.close());
	beforeEach(() => sb.reset());

	const models = () => client(sb).get(`${sb.urls.modelApi}/v1/models/categories`);
	const submit = () => client(sb).post(`${sb.urls.modelApi}/v1/models/${STABLE_MODELS.textToImage}`, { prompt: 'x' });

	it('answers 5xx with 500001 and 429 with Retry-After', async () => {
		sb.configure({ faults: { rate5xx: 1 } });
		const e = await models();
		expect(e.status).toBe(500);
		expect(e.data.error_code).toBe(500001);
		sb.configure({ faults: { rate5xx: 0, rate429: 1, retryAfterSeconds: 7 } });
		const r = await models();
		expect(r.status).toBe(429);
		expect(r.headers['retry-after']).toBe('7');
		expect(sb.log().map((x) => x.fault)).toEqual(['5xx', '429']);
	});

	it('drops connections without an answer', async () => {
		sb.configure({ faults: { rateDrop: 1 } });
		await expect(models()).rejects.toMatchObject({ code: expect.stringMatching(/ECONNRESET|socket hang up/i) });
		expect(sb.log()[0]).toMatchObject({ fault: 'drop', status: 0 });
	});

	it('delays slow responses and still answers', async () => {
		sb.configure({ faults: { rateSlow: 1, slowMs: 20 } });
		const res = await models();
		expect(res.status).toBe(200);
		expect(sb.log()[0].fault).toBe('slow');
	});

	it('rolls the same faults for the same seed', async () => {
		const pattern = async () => {
			sb.reset({ faults: { rate5xx: 0.5, seed: 42 } });
			const out: number[] = [];
			for (let i = 0; i < 20; i++) out.push((await models()).status);
			return out;
		};
		const a = await pattern();
		const b = await pattern();
		expect(a).toEqual(b);
		expect(new Set(a)).toEqual(new Set([200, 500]));
	});

	it('does not inject faults into the control API or the file host unless pathPrefixes says so', async () => {
		sb.configure({ faults: { rate5xx: 1 } });
		expect((await client(sb, null).get(`${sb.urls.modelApi}/__sandbox/state`)).status).toBe(200);
		expect((await client(sb, null).get(`${sb.urls.files}/files/x.png`)).status).toBe(200);
		sb.configure({ faults: { pathPrefixes: ['/files/'] } });
		expect((await client(sb, null).get(`${sb.urls.files}/files/x.png`)).status).toBe(500);
		expect((await models()).status).toBe(200);
	});

	it('methods narrows faults to those HTTP methods (a model submit, not its catalog entry on the same path)', async () => {
		sb.configure({ faults: { rate5xx: 1, methods: ['POST'], pathPrefixes: [`/v1/models/${STABLE_MODELS.textToImage}`] } });
		expect((await client(sb).get(`${sb.urls.modelApi}/v1/models/${STABLE_MODELS.textToImage}`)).status).toBe(200);
		expect((await submit()).status).toBe(500);
		expect(sb.log().map((e) => [e.method, e.fault])).toEqual([
			['GET', undefined],
			['POST', '5xx'],
		]);
	});

	it('paid faults "before": nothing is created', async () => {
		sb.configure({ faults: { rate5xx: 1, paidFaultTiming: 'before' } });
		expect((await submit()).status).toBe(500);
		expect(sb.state().runs).toHaveLength(0);
		expect(sb.log()[0].createdId).toBeUndefined();
		expect(sb.state().walletMicrodollars).toBe(5_000_000);
	});

	it('paid faults "after": the run is created and charged, the answer is lost, the log shows createdId', async () => {
		sb.configure({ faults: { rate5xx: 1, paidFaultTiming: 'after' } });
		expect((await submit()).status).toBe(500);
		sb.configure({ faults: { rate5xx: 0, rateDrop: 1 } });
		await expect(submit()).rejects.toBeTruthy();
		const runs = sb.state().runs;
		expect(runs).toHaveLength(2);
		expect(sb.log().map((e) => e.createdId)).toEqual(runs.map((r) => r.id));
		expect(sb.log().map((e) => e.fault)).toEqual(['5xx', 'drop']);
		expect(sb.state().walletMicrodollars).toBe(5_000_000 - 2 * 40_000);
		// a 429 always means "not accepted", even with timing "after"
		sb.configure({ faults: { rateDrop: 0, rate429: 1 } });
		expect((await submit()).status).toBe(429);
		expect(sb.state().runs).toHaveLength(2);
	});

	it('exposes config, state, log and reset over HTTP on every port', async () => {
		for (const base of [sb.urls.modelApi, sb.urls.serverless, sb.urls.trainer, sb.urls.files]) {
			const info = await client(sb, null).get(`${base}/__sandbox/info`);
			expect(info.data.urls).toEqual(sb.urls);
		}
		const c = client(sb, null);
		const cfg = await c.post(`${sb.urls.trainer}/__sandbox/config`, { walletMicrodollars: 1234, quirks: { americanCanceled: true } });
		expect(cfg.data.config).toMatchObject({ walletMicrodollars: 1234, quirks: { americanCanceled: true, wrappedDatasetList: true } });
		expect(sb.state().walletMicrodollars).toBe(1234);
		await models();
		const log = (await c.get(`${sb.urls.files}/__sandbox/log`)).data;
		expect(log).toHaveLength(1);
		expect(log[0].path).toBe('/v1/models/categories');
		expect((await c.get(`${sb.urls.files}/__sandbox/log`, { params: { since: log[0].seq } })).data).toHaveLength(0);
		const state = (await c.get(`${sb.urls.serverless}/__sandbox/state`)).data;
		expect(state.walletMicrodollars).toBe(1234);
		expect(state.deployments.length).toBeGreaterThan(0);
		await c.post(`${sb.urls.modelApi}/__sandbox/reset`);
		expect(sb.state().walletMicrodollars).toBe(5_000_000);
		expect(sb.log()).toHaveLength(0);
		await pollUntil(
			async () => (await c.get(`${sb.urls.modelApi}/__sandbox/config`)).data.quirks.americanCanceled,
			(v) => v === false,
			1,
		);
	});
});

describe('sandbox multipart parser', () => {
	it('parses parts across arbitrary chunk boundaries', async () => {
		const boundary = 'b0undary';
		const payload = Buffer.alloc(40_000);
		for (let i = 0; i < payload.length; i++) payload[i] = (i * 7 + 13) & 0xff;
		payload.write('\r\n--b0undar', 1000, 'ascii'); // a near-delimiter inside the data
		const body = Buffer.concat([
			Buffer.from(`preamble\r\n--${boundary}\r\nContent-Disposition: form-data; name="filename"\r\n\r\nrenamed.bin\r\n`),
			Buffer.from(
				`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a b.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
			),
			payload,
			Buffer.from(`\r\n--${boundary}--\r\nepilogue`),
		]);
		let seed = 1;
		const rand = () => {
			seed = (seed * 16807) % 2147483647;
			return seed;
		};
		for (const maxChunk of [1, 7, 64, 4096, 100_000]) {
			const req = Object.assign(new EventEmitter(), { resume() {} });
			const parts: Array<{ name?: string; filename?: string; contentType?: string; data: Buffer[] }> = [];
			const done = parseMultipart(req, boundary, {
				onPart(info) {
					const p = { ...info, data: [] as Buffer[] };
					parts.push(p);
					return { data: (c) => p.data.push(Buffer.from(c)), end() {} };
				},
			});
			let off = 0;
			while (off < body.length) {
				const n = maxChunk === 1 ? 1 : 1 + (rand() % maxChunk);
				req.emit('data', body.subarray(off, off + n));
				off += n;
			}
			req.emit('end');
			await done;
			expect(parts.map((p) => [p.name, p.filename, p.contentType])).toEqual([
				['filename', undefined, undefined],
				['file', 'a b.bin', 'application/octet-stream'],
			]);
			expect(Buffer.concat(parts[0].data).toString()).toBe('renamed.bin');
			expect(Buffer.concat(parts[1].data).equals(payload)).toBe(true);
		}
	});

	it('rejects a body without the closing boundary', async () => {
		const req = Object.assign(new EventEmitter(), { resume() {} });
		const done = parseMultipart(req, 'x', { onPart: () => ({ data() {}, end() {} }) });
		req.emit('data', Buffer.from('--x\r\nContent-Disposition: form-data; name="file"\r\n\r\nabc'));
		req.emit('end');
		await expect(done).rejects.toThrow(/closing boundary/);
	});
});
