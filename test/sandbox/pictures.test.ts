/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * The sandbox's pictures: a run's PNG outputs are real pictures of its prompt (valid PNG, the requested size,
 * deterministic, different per prompt), for Model API runs and deployment requests alike; its JPEG and WebP
 * outputs are the same picture in those formats (their pixels are compared in a browser by
 * test/e2e/editor.pictures.test.ts).
 */
import { inflateSync } from 'zlib';

import { STABLE_DEPLOYMENTS, STABLE_MODELS } from '../../sandbox';
import { client, pollUntil, useStartedSandbox } from './helpers';

const T2I = STABLE_MODELS.textToImage;

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
	let c = n;
	for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
	return c >>> 0;
});
function crc32(buf: Buffer): number {
	let c = 0xffffffff;
	for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
	return (c ^ 0xffffffff) >>> 0;
}

/** Parses a PNG strictly: signature, every chunk's CRC, IHDR, and the inflated IDAT's length and filters. */
function parsePng(png: Buffer): { width: number; height: number; pixels: Buffer } {
	expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
	const chunks: Array<{ type: string; data: Buffer }> = [];
	let at = 8;
	while (at < png.length) {
		const len = png.readUInt32BE(at);
		const typeAndData = png.subarray(at + 4, at + 8 + len);
		expect(png.readUInt32BE(at + 8 + len)).toBe(crc32(typeAndData));
		chunks.push({ type: typeAndData.subarray(0, 4).toString('ascii'), data: typeAndData.subarray(4) });
		at += 12 + len;
	}
	expect(at).toBe(png.length);
	expect(chunks[0].type).toBe('IHDR');
	expect(chunks[chunks.length - 1]).toEqual({ type: 'IEND', data: Buffer.alloc(0) });
	const ihdr = chunks[0].data;
	const width = ihdr.readUInt32BE(0);
	const height = ihdr.readUInt32BE(4);
	expect([...ihdr.subarray(8)]).toEqual([8, 2, 0, 0, 0]); // 8-bit RGB, deflate, adaptive filters, no interlace
	const pixels = inflateSync(Buffer.concat(chunks.filter((c) => c.type === 'IDAT').map((c) => c.data)));
	expect(pixels.length).toBe((width * 3 + 1) * height);
	for (let y = 0; y < height; y++) expect(pixels[y * (width * 3 + 1)]).toBeLessThanOrEqual(4);
	return { width, height, pixels };
}

/** Width and height from a baseline JPEG's SOF0, after checking SOI, the segment chain and EOI. */
function parseJpeg(jpg: Buffer): { width: number; height: number; components: number } {
	expect([jpg[0], jpg[1]]).toEqual([0xff, 0xd8]);
	expect([jpg[jpg.length - 2], jpg[jpg.length - 1]]).toEqual([0xff, 0xd9]);
	const markers: number[] = [];
	let sof: Buffer | undefined;
	for (let at = 2; ; ) {
		expect(jpg[at]).toBe(0xff);
		const marker = jpg[at + 1];
		markers.push(marker);
		const len = jpg.readUInt16BE(at + 2);
		if (marker === 0xc0) sof = jpg.subarray(at + 4, at + 2 + len);
		if (marker === 0xda) break; // the entropy-coded scan follows
		at += 2 + len;
	}
	expect(markers).toEqual(expect.arrayContaining([0xdb, 0xc0, 0xc4, 0xda]));
	expect(sof).toBeDefined();
	expect(sof![0]).toBe(8); // 8-bit samples
	return { height: sof!.readUInt16BE(1), width: sof!.readUInt16BE(3), components: sof![5] };
}

/** Width and height from a lossless WebP's VP8L header, after checking the RIFF container. */
function parseWebp(webp: Buffer): { width: number; height: number } {
	expect(webp.toString('ascii', 0, 4)).toBe('RIFF');
	expect(webp.readUInt32LE(4)).toBe(webp.length - 8);
	expect(webp.toString('ascii', 8, 16)).toBe('WEBPVP8L');
	expect(webp.readUInt32LE(16)).toBeLessThanOrEqual(webp.length - 20);
	expect(webp[20]).toBe(0x2f); // VP8L signature
	const bits = webp.readUInt32LE(21);
	expect(bits >>> 29).toBe(0); // version 0
	return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
}

/** Distinct colours in a PNG's filtered rows: a picture has many, a flat placeholder a handful. */
const variety = (pixels: Buffer) => new Set(pixels).size;

describe('sandbox pictures', () => {
	const sb = useStartedSandbox({ runDurationMs: 0, queueMs: 0 });

	async function modelImages(body: Record<string, unknown>): Promise<string[]> {
		const sub = (await client(sb).post(`${sb.urls.modelApi}/v1/models/${T2I}`, body)).data;
		await pollUntil(
			async () => (await client(sb).get(sub.status_url)).data.status,
			(s) => s === 'completed',
		);
		return (await client(sb).get(sub.result_url)).data.output.images as string[];
	}

	async function download(url: string): Promise<{ type: string; body: Buffer }> {
		const res = await client(sb).get(url, { responseType: 'arraybuffer' });
		expect(res.status).toBe(200);
		return { type: String(res.headers['content-type']), body: Buffer.from(res.data as ArrayBuffer) };
	}

	it('serves a Model API image as a PNG of the requested size, with the prompt drawn in', async () => {
		const [url] = await modelImages({ prompt: 'a red fox in fresh snow', seed: 7, image_size: 'landscape_16_9', output_format: 'png' });
		const { type, body } = await download(url);
		expect(type).toBe('image/png');
		const png = parsePng(body);
		expect([png.width, png.height]).toEqual([1024, 576]);
		expect(variety(png.pixels)).toBeGreaterThan(32);
	});

	it('renders the same bytes for the same prompt, seed and size, and different bytes otherwise', async () => {
		const body = { prompt: 'a lighthouse at dusk', seed: 3, image_size: 'square', output_format: 'png' };
		const first = (await download((await modelImages(body))[0])).body;
		const again = (await download((await modelImages(body))[0])).body;
		expect(again.equals(first)).toBe(true);
		const otherPrompt = (await download((await modelImages({ ...body, prompt: 'a robot and a bonsai' }))[0])).body;
		const otherSeed = (await download((await modelImages({ ...body, seed: 4 }))[0])).body;
		expect(otherPrompt.equals(first)).toBe(false);
		expect(otherSeed.equals(first)).toBe(false);
		expect([parsePng(otherPrompt).width, parsePng(otherSeed).height]).toEqual([512, 512]);
	});

	it('gives each image of a batch its own picture', async () => {
		const urls = await modelImages({ prompt: 'four owls', seed: 1, image_size: 'square', num_images: 2, output_format: 'png' });
		const [a, b] = await Promise.all(urls.map(async (u) => (await download(u)).body));
		expect(a.equals(b)).toBe(false);
		expect([a, b].map((png) => parsePng(png).width)).toEqual([512, 512]);
	});

	it("takes the schema's default size when the body gives none", async () => {
		const [url] = await modelImages({ prompt: 'defaults' });
		const png = parsePng((await download(url)).body);
		expect([png.width, png.height]).toEqual([1024, 768]); // FLUX.2 Flash's image_size default, landscape_4_3
	});

	it("draws a deployment's picture from the graph: the sampler's prompt and the latent's size (capped at 1024)", async () => {
		const overrides = { 6: { inputs: { text: 'a castle in the clouds' } }, 5: { inputs: { width: 2048, height: 1536 } } };
		const sub = (
			await client(sb).post(`${sb.urls.serverless}/prod/v2/deployments/${STABLE_DEPLOYMENTS.textToImage}/inference`, { overrides })
		).data;
		const statusUrl = `${sb.urls.serverless}/prod/v2/deployments/${STABLE_DEPLOYMENTS.textToImage}/requests/${sub.request_id}`;
		await pollUntil(
			async () => (await client(sb).get(`${statusUrl}/status`)).data.status,
			(s) => s === 'completed',
		);
		const outputs = (await client(sb).get(`${statusUrl}/result`)).data.outputs as Record<string, { images: Array<{ url: string }> }>;
		const png = parsePng((await download(outputs['9'].images[0].url)).body);
		expect([png.width, png.height]).toEqual([1024, 768]);
		expect(variety(png.pixels)).toBeGreaterThan(32);
	});

	it.each([
		['jpeg', 'image/jpeg', /\/output_0\.jpg$/],
		['webp', 'image/webp', /\/output_0\.webp$/],
	])('serves a %s output as that picture: its type, the requested size, the same bytes every time', async (format, type, name) => {
		const body = { prompt: 'a lighthouse at dusk', seed: 3, image_size: 'landscape_16_9', output_format: format, num_images: 2 };
		const parse = format === 'jpeg' ? parseJpeg : parseWebp;
		const [url, second] = await modelImages(body);
		expect(url).toMatch(name);
		const first = await download(url);
		expect(first.type).toBe(type);
		expect(parse(first.body)).toMatchObject({ width: 1024, height: 576 });
		if (format === 'jpeg') expect(parseJpeg(first.body).components).toBe(3);
		const again = (await download((await modelImages(body))[0])).body;
		expect(again.equals(first.body)).toBe(true);
		const otherPrompt = (await download((await modelImages({ ...body, prompt: 'a robot and a bonsai' }))[0])).body;
		const otherImage = (await download(second)).body;
		expect(otherPrompt.equals(first.body)).toBe(false);
		expect(otherImage.equals(first.body)).toBe(false);
		expect(parse(otherImage)).toMatchObject({ width: 1024, height: 576 });
	});
});
