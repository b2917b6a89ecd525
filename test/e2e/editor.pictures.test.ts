/**
 * The sandbox's JPEG and WebP outputs, decoded by a real browser (Debian's Chromium, as the editor shows them):
 * each is drawn on a canvas and compared pixel by pixel with the PNG of the same prompt, seed and size. The
 * lossless WebP must match exactly, the JPEG within a small mean error. Named editor.* so that `npm test`
 * provisions Chromium for it (scripts/test-prerequisites.js); it needs no n8n.
 */
import type { Browser, BrowserContext } from 'playwright-core';

import { startSandbox, STABLE_MODELS } from '../../sandbox';
import type { Sandbox } from '../../sandbox';
import * as b from '../../scripts/e2e/browser';
import { client, pollUntil } from '../helpers/sandboxCalls';

/** Largest mean absolute difference per RGB channel (0..255) the JPEG may have from the PNG. */
const JPEG_MEAN_ERROR = 2;

let sandbox: Sandbox;
let browser: Browser;
let context: BrowserContext;

beforeAll(
	async () => {
		sandbox = await startSandbox({ runDurationMs: 0, queueMs: 0 });
		({ browser, context } = await b.launch());
	},
	20 * 60 * 1000,
);

afterAll(async () => {
	await browser?.close();
	await sandbox?.close();
});

/** The first output of a text-to-image run with `body`, downloaded, as a data: URL of its served type. */
async function output(body: Record<string, unknown>): Promise<string> {
	const sub = (await client(sandbox).post(`${sandbox.urls.modelApi}/v1/models/${STABLE_MODELS.textToImage}`, body)).data;
	await pollUntil(
		async () => (await client(sandbox).get(sub.status_url)).data.status,
		(s) => s === 'completed',
	);
	const [url] = (await client(sandbox).get(sub.result_url)).data.output.images as string[];
	const res = await client(sandbox).get(url, { responseType: 'arraybuffer' });
	expect(res.status).toBe(200);
	return `data:${String(res.headers['content-type'])};base64,${Buffer.from(res.data as ArrayBuffer).toString('base64')}`;
}

interface Comparison {
	sizes: Array<[number, number]>;
	/** Per picture after the first: pixels whose RGB differ from the first's, and the mean absolute difference. */
	diffs: Array<{ differing: number; meanError: number }>;
}

/** Decodes the pictures in the browser (an <img> each, drawn on a canvas) and compares each with the first. */
async function compareInBrowser(urls: string[]): Promise<Comparison> {
	return await b.onPage(context, 'pictures', async (page) =>
		page.evaluate(async (sources: string[]) => {
			const pixels = await Promise.all(
				sources.map(async (src) => {
					const img = new Image();
					img.src = src;
					await img.decode();
					const canvas = document.createElement('canvas');
					canvas.width = img.naturalWidth;
					canvas.height = img.naturalHeight;
					const ctx = canvas.getContext('2d')!;
					ctx.drawImage(img, 0, 0);
					return {
						size: [canvas.width, canvas.height] as [number, number],
						data: ctx.getImageData(0, 0, canvas.width, canvas.height).data,
					};
				}),
			);
			const [reference, ...others] = pixels;
			const diffs = others.map(({ data }) => {
				let differing = 0;
				let total = 0;
				for (let p = 0; p < data.length; p += 4) {
					let pixel = 0;
					for (let c = 0; c < 3; c++) pixel += Math.abs(data[p + c] - reference.data[p + c]);
					total += pixel;
					if (pixel) differing++;
				}
				return { differing, meanError: total / ((data.length / 4) * 3) };
			});
			return { sizes: pixels.map((p) => p.size), diffs };
		}, urls),
	);
}

describe('JPEG and WebP outputs in a browser', () => {
	it.each([
		['a red fox in fresh snow', 7, 'square', [512, 512]],
		['a night market under paper lanterns, with a long caption that wraps onto a second line', 12, 'landscape_16_9', [1024, 576]],
	])('%s: the WebP is the PNG exactly, the JPEG close to it', async (prompt, seed, imageSize, size) => {
		const body = { prompt, seed, image_size: imageSize };
		const [png, webp, jpeg] = await Promise.all(['png', 'webp', 'jpeg'].map((format) => output({ ...body, output_format: format })));
		expect(png.startsWith('data:image/png;')).toBe(true);
		expect(webp.startsWith('data:image/webp;')).toBe(true);
		expect(jpeg.startsWith('data:image/jpeg;')).toBe(true);
		const { sizes, diffs } = await compareInBrowser([png, webp, jpeg]);
		expect(sizes).toEqual([size, size, size]);
		expect(diffs[0]).toEqual({ differing: 0, meanError: 0 });
		expect(diffs[1].meanError).toBeLessThan(JPEG_MEAN_ERROR);
	});
});
