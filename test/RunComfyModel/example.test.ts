/**
 * examples/text-to-image-then-video.json in the in-process engine: its two RunComfy Model nodes run as the example
 * sets them, the second on the items of the first, so the chaining (One Item per File, `{{ $json.file_url }}` as
 * the image-to-video model's Image URL) is proven. The sandbox lists outputs as https URLs, as the live service
 * does (the node refuses http file inputs). The real-n8n run of the whole workflow is the e2e suite's.
 */
import type { INodeParameters } from 'n8n-workflow';

import example from '../../examples/text-to-image-then-video.json';
import { runNode } from '../helpers/engine';
import { FAST, MODELS, credentialsFor, isSubmit, node, useSandbox } from './setup';

const sb = useSandbox();
beforeEach(() => sb.reset({ ...FAST, httpsOutputUrls: true }));

const nodeNamed = (name: string) => {
	const found = example.nodes.find((n) => n.name === name);
	if (!found) throw new Error(`the example has no node "${name}"`);
	return found;
};

/** The example's parameters, with fast polling for the sandbox. */
const paramsOf = (name: string): INodeParameters => ({
	...(nodeNamed(name).parameters as INodeParameters),
	waitOptions: { maxWaitSeconds: 20, pollIntervalSeconds: 0.02, maxPollIntervalSeconds: 0.05 },
});

describe('examples/text-to-image-then-video.json', () => {
	it('is manual trigger → text-to-image (one item per file) → image-to-video on each file URL', () => {
		expect(example.connections).toEqual({
			'When clicking ‘Execute workflow’': { main: [[{ node: 'Generate Start Images', type: 'main', index: 0 }]] },
			'Generate Start Images': { main: [[{ node: 'Animate Each Image', type: 'main', index: 0 }]] },
		});
		const images = nodeNamed('Generate Start Images').parameters as INodeParameters;
		expect(images).toMatchObject({
			operation: 'run',
			model: { value: MODELS.flash },
			outputFiles: 'oneItemPerFile',
			outputBinaryField: 'image',
		});
		const videos = nodeNamed('Animate Each Image').parameters as INodeParameters;
		expect(videos).toMatchObject({
			operation: 'run',
			model: { value: MODELS.imageToVideo },
			inputs: { value: { image_url: '={{ $json.file_url }}' } },
		});
		for (const n of example.nodes.filter((x) => x.type === 'n8n-nodes-runcomfy.runComfyModel')) {
			expect(n.credentials).toEqual({ runComfyApi: { id: null, name: 'RunComfy account' } });
		}
	});

	it('each generated image becomes one image-to-video run, fed with that image’s own URL', async () => {
		const images = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: paramsOf('Generate Start Images'),
			typeVersion: nodeNamed('Generate Start Images').typeVersion,
			nodeName: 'Generate Start Images',
		});
		expect(images.error).toBeUndefined();
		expect(images.items).toHaveLength(2);
		const imageUrls = images.items.map((i) => i.json.file_url as string);
		expect(imageUrls.every((u) => u.startsWith('https://'))).toBe(true);
		expect(new Set(imageUrls).size).toBe(2);

		sb.clearLog();
		const videos = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: paramsOf('Animate Each Image'),
			typeVersion: nodeNamed('Animate Each Image').typeVersion,
			inputItems: images.items.map((i) => ({ json: i.json })),
			nodeName: 'Animate Each Image',
		});
		expect(videos.error).toBeUndefined();
		const submitted = sb.log().filter(isSubmit);
		expect(submitted.map((e) => e.path)).toEqual([`/v1/models/${MODELS.imageToVideo}`, `/v1/models/${MODELS.imageToVideo}`]);
		expect(submitted.map((e) => (e.body as { image_url: string }).image_url).sort()).toEqual([...imageUrls].sort());
		expect(videos.items).toHaveLength(2);
		videos.items.forEach((item, i) => {
			expect(item.pairedItem).toEqual({ item: i });
			expect(item.json).toMatchObject({ model_id: MODELS.imageToVideo, status: 'succeeded' });
			expect((item.json.output_urls as Array<{ url: string }>)[0].url).toMatch(/\.mp4$/);
		});
		// the run of each item used that item's image
		const bodyOf = (requestId: unknown) => submitted.find((e) => e.createdId === requestId)?.body as { image_url: string };
		expect(videos.items.map((item) => bodyOf(item.json.request_id).image_url)).toEqual(imageUrls);
	});
});
