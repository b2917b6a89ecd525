/**
 * RunComfy Deployment node → "Output Files" and "Output Binary Field" on Inference → Run and Get Result: all
 * images of a request on its item (data, data_1, ...) or one item per image (each in the field itself, with
 * the request's JSON and the image's own URL); Delete Request After Download marks every item; bad values are
 * refused before anything is paid.
 */
import { runNode } from '../helpers/engine';
import { FAST, credentialsFor, deploymentId, inferences, isRequestDelete, locator, node, runJson, useSandbox } from './setup';

const sb = useSandbox();
beforeEach(() => sb.reset(FAST));

/** The SDXL deployment's EmptyLatentImage (node 5) makes a batch of three images, saved by node 9. */
const THREE_IMAGES = { 6: { inputs: { text: 'a lighthouse at dusk' } }, 5: { inputs: { batch_size: 3 } } };

const run = async (extra: object) =>
	await runNode({
		node,
		credentials: credentialsFor(sb),
		parameters: runJson(deploymentId(sb, 'sdxl-text-to-image'), THREE_IMAGES, { downloadOutputs: true, ...extra }),
	});

const imageUrls = (json: Record<string, unknown>) =>
	(json.outputs_flat as Array<{ url?: string }>).filter((o) => o.url).map((o) => o.url as string);

describe('Inference → Run: Output Files', () => {
	it('All Files on One Item: the three images in out, out_1, out_2 (Output Binary Field "out")', async () => {
		const result = await run({ outputBinaryField: 'out' });
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		const [item] = result.items;
		expect(Object.keys(item.binary ?? {})).toEqual(['out', 'out_1', 'out_2']);
		expect(Object.values(item.binary ?? {}).map((b) => b.mimeType)).toEqual(['image/png', 'image/png', 'image/png']);
		expect(imageUrls(item.json)).toHaveLength(3);
	});

	it('One Item per File: one item per image, with the request ids and the image URL, each in data', async () => {
		const result = await run({ outputFiles: 'oneItemPerFile' });
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(3);
		const requestId = inferences(sb)[0].createdId;
		const urls = imageUrls(result.items[0].json);
		result.items.forEach((item, i) => {
			expect(item.pairedItem).toEqual({ item: 0 });
			expect(item.json).toMatchObject({
				deployment_id: deploymentId(sb, 'sdxl-text-to-image'),
				request_id: requestId,
				status: 'succeeded',
				file_index: i,
				file_url: urls[i],
				file_path: `outputs["9"].images[${i}].url`,
			});
			expect(Object.keys(item.binary ?? {})).toEqual(['data']);
			expect(item.binary?.data.fileName).toBe(urls[i].split('/').pop());
		});
		expect(inferences(sb)).toHaveLength(1);
	});

	it('Delete Request After Download deletes once, after every file, and says so on every item', async () => {
		const result = await run({ outputFiles: 'oneItemPerFile', options: { deleteRequestAfterDownload: true } });
		expect(result.error).toBeUndefined();
		expect(result.items.map((i) => i.json.request_deleted)).toEqual([true, true, true]);
		const deletes = sb.log().filter(isRequestDelete);
		expect(deletes).toHaveLength(1);
		const lastDownload = Math.max(
			...sb
				.log()
				.filter((e) => e.api === 'files')
				.map((e) => e.seq),
		);
		expect(deletes[0].seq).toBeGreaterThan(lastDownload);
	});

	it('a bad Output Binary Field is refused before the inference is submitted', async () => {
		const result = await run({ outputBinaryField: 'a.b' });
		expect(result.status).toBe('error');
		expect(result.error?.message).toMatch(/"Output Binary Field" of item 0 is not a usable field name: "a\.b"/);
		expect(inferences(sb)).toEqual([]);
	});
});

describe('Inference → Get Result: Output Files', () => {
	it('splits an earlier request into one item per image, in the chosen field', async () => {
		const id = deploymentId(sb, 'sdxl-text-to-image');
		const first = await runNode({ node, credentials: credentialsFor(sb), parameters: runJson(id, THREE_IMAGES) });
		const requestId = first.items[0].json.request_id as string;
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: {
				resource: 'inference',
				operation: 'getResult',
				deploymentId: locator(id),
				requestId,
				outputFiles: 'oneItemPerFile',
				outputBinaryField: 'picture',
			},
		});
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(3);
		expect(result.items.map((i) => i.json.request_id)).toEqual([requestId, requestId, requestId]);
		expect(result.items.map((i) => i.json.file_index)).toEqual([0, 1, 2]);
		expect(result.items.map((i) => Object.keys(i.binary ?? {}))).toEqual([['picture'], ['picture'], ['picture']]);
		expect((await result.readBinary(result.items[1], 'picture')).length).toBeGreaterThan(0);
	});
});
