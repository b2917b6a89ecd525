/**
 * The Deployment node's saved workflow (helpers/graph.ts): reading it from either place, the override fields and
 * their checks.
 */
import {
	fieldId,
	graphOf,
	inputsToFields,
	literalInputs,
	overrideProblems,
	splitFieldId,
} from '../../../nodes/RunComfyDeployment/helpers/graph';
import type { WorkflowGraph } from '../../../nodes/RunComfyDeployment/helpers/graph';

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
		expect(fields.find((f) => f.id === '10.image')).toMatchObject({
			displayName: 'Load Image #10 → image',
			defaultValue: 'example.png',
			removed: true,
		});
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
