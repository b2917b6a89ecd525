/**
 * The pure parts of the Deployment node: reading the saved workflow from either place, the override fields
 * and their checks, and flattening result outputs (ComfyUI `outputs` and LoRA deployments' `output`).
 */
import {
	fieldId,
	graphOf,
	inputsToFields,
	literalInputs,
	overrideProblems,
	splitFieldId,
} from '../../nodes/RunComfyDeployment/helpers/graph';
import type { WorkflowGraph } from '../../nodes/RunComfyDeployment/helpers/graph';
import { flattenOutputs, toolJson } from '../../nodes/RunComfyDeployment/helpers/results';

const graph: WorkflowGraph = {
	'10': { class_type: 'LoadImage', inputs: { image: 'example.png', upload: 'image' }, _meta: { title: 'Load Image' } },
	'2': { class_type: 'CLIPTextEncode', inputs: { text: 'hi', clip: ['4', 1] } },
	'38:42': { class_type: 'Sub', inputs: { strength: 0.5, flags: [1, 2, 3], opts: { a: 1 }, on: true } },
};

describe('the saved workflow', () => {
	it('is read from payload.workflow_api_json (live) or the top-level workflow_api_json (contract), also as a JSON string', () => {
		expect(graphOf({ id: 'd', payload: { workflow_api_json: graph } })).toBe(graph);
		expect(graphOf({ id: 'd', workflow_api_json: graph })).toBe(graph);
		expect(graphOf({ id: 'd', payload: { workflow_api_json: JSON.stringify(graph) } })).toEqual(graph);
		expect(graphOf({ id: 'd', payload: { overrides: {} } })).toBeUndefined();
		expect(graphOf({ id: 'd', workflow_api_json: {} })).toBeUndefined();
	});

	it('literal inputs only, by node id order; a class type stands in for a missing title; arrays that are not links stay', () => {
		expect(literalInputs(graph).map((i) => [fieldId(i.nodeId, i.input), i.nodeLabel, i.type])).toEqual([
			['2.text', 'CLIPTextEncode #2', 'string'],
			['10.image', 'Load Image #10', 'string'],
			['10.upload', 'Load Image #10', 'string'],
			['38:42.strength', 'Sub #38:42', 'number'],
			['38:42.flags', 'Sub #38:42', 'array'],
			['38:42.opts', 'Sub #38:42', 'object'],
			['38:42.on', 'Sub #38:42', 'boolean'],
		]);
		const fields = inputsToFields(graph);
		expect(fields.find((f) => f.id === '38:42.opts')?.defaultValue).toBe('{"a":1}');
		expect(fields.find((f) => f.id === '10.image')).toMatchObject({ displayName: 'Load Image #10 → image', defaultValue: 'example.png', removed: true });
		expect(splitFieldId('38:42.strength')).toEqual({ nodeId: '38:42', input: 'strength' });
		expect(splitFieldId('nodot')).toBeUndefined();
	});

	it('override problems name what is missing and what exists', () => {
		expect(overrideProblems({ '2': { inputs: { text: 'x', clip: ['9', 0] } } }, graph)).toEqual([]);
		expect(overrideProblems({ '7': { inputs: {} } }, graph)).toEqual([
			'node "7" is not in the deployment\'s workflow (its nodes: 2 (CLIPTextEncode), 10 (Load Image), 38:42 (Sub))',
		]);
		expect(overrideProblems({ '10': { inputs: { img: 'x', image: 'y' } } }, graph)).toEqual([
			'Load Image #10 has no input "img" (its inputs: image, upload)',
		]);
		expect(overrideProblems({ '10': { image: 'x' } }, graph)).toEqual([
			'the override for node "10" must look like {"inputs": {"<input name>": <value>}}',
		]);
		// without a saved workflow only the shape can be checked
		expect(overrideProblems({ '7': { inputs: { any: 1 } } }, undefined)).toEqual([]);
	});
});

describe('outputs_flat', () => {
	it('ComfyUI outputs: files with their fields, text lists of lists as text', () => {
		const flat = flattenOutputs({
			status: 'succeeded',
			outputs: {
				'58': { images: [{ filename: 'a.png', subfolder: '', type: 'output', url: 'https://x.runcomfy.net/a.png' }] },
				'38:42': { text: [['first', 'second']] },
				'60': { gifs: [{ filename: 'v.mp4', subfolder: 'vid', type: 'output', format: 'video/h264-mp4', url: 'https://x.runcomfy.net/v.mp4' }] },
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
		expect(flattenOutputs({ status: 'succeeded', output: { '9': { images: [{ url: 'https://x.runcomfy.net/l.png', filename: 'l.png' }] } } })).toEqual([
			{ node_id: '9', channel: 'images', url: 'https://x.runcomfy.net/l.png', filename: 'l.png' },
		]);
		expect(flattenOutputs({ status: 'succeeded', output: { images: ['https://x.runcomfy.net/1.png', 'https://x.runcomfy.net/2.png'], caption: 'a cat' } })).toEqual([
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
