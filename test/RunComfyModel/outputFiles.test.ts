/**
 * RunComfy Model node → "Output Files" and "Output Binary Field": all files on the run's item (data, data_1, ...)
 * or one item per file (each file in the field itself, with the run's JSON, the file's own URL and its input
 * item), for Run (in Download Options from version 1.1) and Get Result; bad values are refused before anything is paid.
 */
import type { INodeExecutionData } from 'n8n-workflow';

import { runNode } from '../helpers/engine';
import { FAST, MODELS, credentialsFor, node, paidCalls, runParams, useSandbox } from './setup';

const sb = useSandbox();
beforeEach(() => sb.reset(FAST));

const run = async (body: object, extra: Parameters<typeof runParams>[2] = {}, inputItems?: Array<{ json: object }>) =>
	await runNode({
		node,
		credentials: credentialsFor(sb),
		parameters: runParams(MODELS.flash, body, extra),
		...(inputItems ? { inputItems: inputItems.map((i) => ({ json: { ...i.json } })) } : {}),
	});

const urlsOf = (item: INodeExecutionData) => (item.json.output_urls as Array<{ path: string; url: string }>).map((u) => u.url);

describe('Model → Run: Output Files', () => {
	it('All Files on One Item (the default): one item, files in data, data_1, data_2', async () => {
		const result = await run({ prompt: 'three foxes', num_images: 3 });
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		const [item] = result.items;
		expect(Object.keys(item.binary ?? {})).toEqual(['data', 'data_1', 'data_2']);
		expect(urlsOf(item)).toHaveLength(3);
		expect(item.json.file_url).toBeUndefined();
		// each binary is the file of its URL, in order
		const names = urlsOf(item).map((u) => u.split('/').pop());
		expect(Object.values(item.binary ?? {}).map((b) => b.fileName)).toEqual(names);
	});

	it('the binary fields follow Output Binary Field on one item: image, image_1, image_2', async () => {
		const result = await run({ prompt: 'x', num_images: 3 }, { downloadOptions: { outputBinaryField: 'image' } });
		expect(result.error).toBeUndefined();
		expect(Object.keys(result.items[0].binary ?? {})).toEqual(['image', 'image_1', 'image_2']);
		expect((await result.readBinary(result.items[0], 'image_2')).length).toBeGreaterThan(0);
	});

	it('One Item per File: one item per image, each with the run JSON, its own URL and its file in the field', async () => {
		const result = await run({ prompt: 'three foxes', num_images: 3 }, { downloadOptions: { outputFiles: 'oneItemPerFile' } });
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(3);
		const urls = urlsOf(result.items[0]);
		const requestId = result.items[0].json.request_id;
		expect(typeof requestId).toBe('string');
		result.items.forEach((item, i) => {
			expect(item.pairedItem).toEqual({ item: 0 });
			expect(item.json).toMatchObject({
				model_id: MODELS.flash,
				request_id: requestId,
				status: 'succeeded',
				file_index: i,
				file_url: urls[i],
				file_path: `output.images[${i}]`,
			});
			expect(Object.keys(item.binary ?? {})).toEqual(['data']);
			expect(item.binary?.data.fileName).toBe(urls[i].split('/').pop());
		});
		// one run paid for, not three
		expect(paidCalls(sb)).toBe(1);
	});

	it('One Item per File keeps every file in the chosen field and pairs it with its own input item', async () => {
		const result = await run(
			{},
			{
				inputsJson: '={{ JSON.stringify({ prompt: $json.prompt, num_images: $json.n }) }}',
				downloadOptions: { outputFiles: 'oneItemPerFile', outputBinaryField: 'image' },
			},
			[{ json: { prompt: 'a', n: 2 } }, { json: { prompt: 'b', n: 1 } }],
		);
		expect(result.error).toBeUndefined();
		expect(result.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 0 }, { item: 1 }]);
		expect(result.items.map((i) => i.json.file_index)).toEqual([0, 1, 0]);
		expect(new Set(result.items.map((i) => i.json.request_id)).size).toBe(2);
		for (const item of result.items) expect(Object.keys(item.binary ?? {})).toEqual(['image']);
		expect((await result.readBinary(result.items[2], 'image')).length).toBeGreaterThan(0);
	});

	it('a file that was not downloaded still gets its item, without binary, saying why', async () => {
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: runParams(MODELS.mixedHosts, { prompt: 'x' }, { downloadOptions: { outputFiles: 'oneItemPerFile' } }),
		});
		expect(result.error).toBeUndefined();
		const [image, thumbnail] = result.items;
		expect(result.items).toHaveLength(2);
		expect(image.json.file_path).toBe('output.images[0]');
		expect(image.binary?.data).toBeDefined();
		expect(image.json.skipped_downloads).toBeUndefined();
		expect(thumbnail.json.file_path).toBe('output.thumbnail');
		expect(thumbnail.binary).toBeUndefined();
		expect(thumbnail.json.skipped_downloads).toEqual([
			{ path: 'output.thumbnail', url: thumbnail.json.file_url, reason: expect.stringMatching(/allow/i) },
		]);
	});

	it.each([
		[
			{ downloadOptions: { outputFiles: 'everyOther' } },
			/"Output Files" of item 0 must be one of allOnOneItem, oneItemPerFile, but is "everyOther"/,
		],
		[{ downloadOptions: { outputBinaryField: 'my file' } }, /"Output Binary Field" of item 0 is not a usable field name: "my file"/],
		[{ downloadOptions: { outputBinaryField: '  ' } }, /"Output Binary Field" of item 0 is not a usable field name/],
	])('a bad %j is refused before anything is paid', async (bad, message) => {
		const result = await run({ prompt: 'x' }, bad);
		expect(result.status).toBe('error');
		expect(result.error?.message).toMatch(message);
		expect(result.error?.description).toMatch(/Nothing was submitted/);
		expect(paidCalls(sb)).toBe(0);
	});

	it('a Model → Run saved with version 1 keeps its Output Files and Output Binary Field (top-level fields there)', async () => {
		const result = await runNode({
			node,
			typeVersion: 1,
			credentials: credentialsFor(sb),
			parameters: runParams(MODELS.flash, { prompt: 'x', num_images: 2 }, { outputFiles: 'oneItemPerFile', outputBinaryField: 'image' }),
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((i) => Object.keys(i.binary ?? {}))).toEqual([['image'], ['image']]);
	});

	it('Download Outputs off: one item with the URLs, whatever Output Files says', async () => {
		const result = await run(
			{ prompt: 'x', num_images: 2 },
			{ downloadOutputs: false, downloadOptions: { outputFiles: 'oneItemPerFile' } },
		);
		expect(result.items).toHaveLength(1);
		expect(result.items[0].binary).toBeUndefined();
		expect(urlsOf(result.items[0])).toHaveLength(2);
	});
});

describe('Model → Get Result: Output Files', () => {
	it('gives the same two shapes for an earlier run', async () => {
		const first = await run({ prompt: 'x', num_images: 2 }, { downloadOutputs: false });
		const requestId = first.items[0].json.request_id as string;
		const getResult = (extra: object) =>
			runNode({ node, credentials: credentialsFor(sb), parameters: { resource: 'model', operation: 'getResult', requestId, ...extra } });

		const together = await getResult({ outputBinaryField: 'frame' });
		expect(together.items).toHaveLength(1);
		expect(Object.keys(together.items[0].binary ?? {})).toEqual(['frame', 'frame_1']);

		const split = await getResult({ outputFiles: 'oneItemPerFile' });
		expect(split.items).toHaveLength(2);
		expect(split.items.map((i) => i.json.request_id)).toEqual([requestId, requestId]);
		expect(split.items.map((i) => i.json.file_url)).toEqual(urlsOf(together.items[0]));
		expect(split.items.map((i) => Object.keys(i.binary ?? {}))).toEqual([['data'], ['data']]);
		expect(split.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 0 }]);
	});
});
