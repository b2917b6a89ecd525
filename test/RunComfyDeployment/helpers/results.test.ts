/**
 * The Deployment node's results (helpers/results.ts): flattening result outputs (ComfyUI `outputs` and LoRA
 * deployments' `output`) and the agent's form of a result.
 */
import { flattenOutputs, toolJson } from '../../../nodes/RunComfyDeployment/helpers/results';

describe('outputs_flat', () => {
	it('ComfyUI outputs: files with their fields, text lists of lists as text', () => {
		const flat = flattenOutputs({
			status: 'succeeded',
			outputs: {
				'58': { images: [{ filename: 'a.png', subfolder: '', type: 'output', url: 'https://x.runcomfy.net/a.png' }] },
				'38:42': { text: [['first', 'second']] },
				'60': {
					gifs: [{ filename: 'v.mp4', subfolder: 'vid', type: 'output', format: 'video/h264-mp4', url: 'https://x.runcomfy.net/v.mp4' }],
				},
			},
		});
		// in the order of the record (JSON objects list integer-like keys first)
		expect(flat).toEqual([
			{ node_id: '58', channel: 'images', url: 'https://x.runcomfy.net/a.png', filename: 'a.png', subfolder: '', type: 'output' },
			{ node_id: '60', channel: 'gifs', url: 'https://x.runcomfy.net/v.mp4', filename: 'v.mp4', subfolder: 'vid', type: 'output' },
			{ node_id: '38:42', channel: 'text', text: 'first' },
			{ node_id: '38:42', channel: 'text', text: 'second' },
		]);
	});

	it('LoRA deployments answer `output`: as a node map, as channels, or as a plain URL', () => {
		expect(
			flattenOutputs({ status: 'succeeded', output: { '9': { images: [{ url: 'https://x.runcomfy.net/l.png', filename: 'l.png' }] } } }),
		).toEqual([{ node_id: '9', channel: 'images', url: 'https://x.runcomfy.net/l.png', filename: 'l.png' }]);
		expect(
			flattenOutputs({
				status: 'succeeded',
				output: { images: ['https://x.runcomfy.net/1.png', 'https://x.runcomfy.net/2.png'], caption: 'a cat' },
			}),
		).toEqual([
			{ node_id: null, channel: 'images', url: 'https://x.runcomfy.net/1.png' },
			{ node_id: null, channel: 'images', url: 'https://x.runcomfy.net/2.png' },
			{ node_id: null, channel: 'caption', text: 'a cat' },
		]);
		expect(flattenOutputs({ status: 'succeeded', output: 'https://x.runcomfy.net/only.png' })).toEqual([
			{ node_id: null, channel: 'output', url: 'https://x.runcomfy.net/only.png' },
		]);
		expect(flattenOutputs({ status: 'in_progress' })).toEqual([]);
	});

	it('the AI-tool form keeps ids, status, URLs, texts and a one-line summary', () => {
		const json = {
			deployment_id: 'd1',
			request_id: 'r1',
			status: 'succeeded',
			outputs: { big: 'not kept' },
			outputs_flat: [
				{ node_id: '9', channel: 'images', url: 'https://x.runcomfy.net/a.png' },
				{ node_id: '13', channel: 'text', text: 'tags' },
			],
		};
		expect(toolJson(json)).toEqual({
			deployment_id: 'd1',
			request_id: 'r1',
			status: 'succeeded',
			output_urls: ['https://x.runcomfy.net/a.png'],
			output_texts: ['tags'],
			summary: 'Request r1 on deployment d1 is succeeded; 1 output file: https://x.runcomfy.net/a.png; 1 text output.',
		});
	});
});
