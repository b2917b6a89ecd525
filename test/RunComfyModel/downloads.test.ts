/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * RunComfy Model node → Run outputs into binary data: allow-list (foreign host skipped, no token sent), MIME
 * types and file names, streaming into n8n's filesystem binary store, the size cap.
 */
import { statSync } from 'fs';

import { runNode } from '../helpers/engine';
import { FAST, MODELS, credentialsFor, node, runParams, useSandbox } from './setup';

const sb = useSandbox();
beforeEach(() => sb.reset(FAST));

const fileRequests = () => sb.log().filter((e) => e.api === 'files' || e.api === 'foreign');

describe('downloads', () => {
	it('fetches allowed hosts only, without the token, and lists the foreign one as skipped', async () => {
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: runParams(MODELS.mixedHosts, { prompt: 'x' }),
		});
		expect(result.error).toBeUndefined();
		const [item] = result.items;
		const output = item.json.output as { images: string[]; thumbnail: string };
		expect(new URL(output.thumbnail).hostname).toBe('localhost');
		expect(Object.keys(item.binary ?? {})).toEqual(['data']);
		expect(item.json.skipped_downloads).toEqual([
			{ path: 'output.thumbnail', url: output.thumbnail, reason: expect.stringMatching(/allow/i) },
		]);
		expect(item.json.output_urls).toEqual([
			{ path: 'output.images[0]', url: output.images[0] },
			{ path: 'output.thumbnail', url: output.thumbnail },
		]);
		const files = fileRequests();
		expect(files.filter((e) => e.api === 'foreign')).toHaveLength(0);
		expect(files.length).toBeGreaterThan(0);
		expect(files.every((e) => !e.authorization)).toBe(true);
	});

	it.each([
		[MODELS.flash, { prompt: 'x', output_format: 'jpeg' }, /^image\/jpeg$/, /\.jpg$/],
		[MODELS.flash, { prompt: 'x', output_format: 'webp' }, /^image\/webp$/, /\.webp$/],
		[MODELS.imageToVideo, { prompt: 'x', image_url: 'https://example.com/start.png' }, /^video\/mp4$/, /\.mp4$/],
		['elevenlabs/eleven-v3/text-to-audio', { text: 'hello there' }, /^audio\/(x-)?wav$/, /\.wav$/],
	])('%s gives the right MIME type and a file name from the URL', async (model, body, mime, name) => {
		const result = await runNode({ node, credentials: credentialsFor(sb), parameters: runParams(model, body) });
		expect(result.error).toBeUndefined();
		const binary = result.items[0].binary?.data;
		expect(binary?.mimeType).toMatch(mime);
		expect(binary?.fileName).toMatch(name);
		expect(binary?.fileName).not.toMatch(/[/\\?#]/);
		// streamed into the filesystem store, not kept inline in the item
		expect(binary?.id).toBeDefined();
		const bytes = await result.readBinary(result.items[0]);
		expect(bytes.length).toBeGreaterThan(0);
		expect(statSync(result.binaryPath(result.items[0])).size).toBe(bytes.length);
	});

	it('a file above Max Download Size is not kept; the run still succeeds and says why', async () => {
		sb.configure({ largeOutputBytes: 3 * 1024 * 1024 });
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: runParams(MODELS.large, { prompt: 'x' }, { downloadOptions: { maxDownloadSizeMb: 1 } }),
		});
		expect(result.error).toBeUndefined();
		const [item] = result.items;
		expect(item.json.status).toBe('succeeded');
		expect(item.binary?.data).toBeUndefined();
		const skipped = item.json.skipped_downloads as Array<{ reason: string; url: string }>;
		expect(skipped).toHaveLength(1);
		expect(skipped[0].reason).toMatch(/MB|size|large/i);
	});

	it('a large file under the cap is streamed to disk whole', async () => {
		const size = 5 * 1024 * 1024 + 17;
		sb.configure({ largeOutputBytes: size });
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: runParams(MODELS.large, { prompt: 'x' }, { downloadOptions: { maxDownloadSizeMb: 10 } }),
		});
		expect(result.error).toBeUndefined();
		expect(statSync(result.binaryPath(result.items[0])).size).toBe(size);
	});

	it('Download Outputs off returns URLs only', async () => {
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: runParams(MODELS.flash, { prompt: 'x' }, { downloadOutputs: false }),
		});
		expect(result.items[0].binary).toBeUndefined();
		expect(result.items[0].json.output_urls).toHaveLength(1);
		expect(fileRequests()).toHaveLength(0);
	});
});
