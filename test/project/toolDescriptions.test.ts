/**
 * What an AI agent's model is told about each RunComfy tool: n8n's own resolution (NodeHelpers.getNodeParameters
 * with the tool form's `<name>Tool` type, then getToolDescriptionForNode, as n8n-core does when it hands the node
 * to an agent) must give, for every operation of every node, a text that says what the tool does and what it
 * costs and which arguments it takes. Before, n8n's generic field made it "<action> in RunComfy Model", which says neither.
 */
import type { INode, INodeParameters, INodeProperties, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { RunComfyDataset } from '../../nodes/RunComfyDataset/RunComfyDataset.node';
import { RunComfyDeployment } from '../../nodes/RunComfyDeployment/RunComfyDeployment.node';
import { RunComfyModel } from '../../nodes/RunComfyModel/RunComfyModel.node';
import { RunComfyTraining } from '../../nodes/RunComfyTraining/RunComfyTraining.node';

const NODES: INodeType[] = [new RunComfyModel(), new RunComfyDeployment(), new RunComfyDataset(), new RunComfyTraining()];

/** Operations that submit something billed. */
const PAID = [
	'runComfyModel model run',
	'runComfyDeployment inference run',
	'runComfyDeployment deployment create',
	'runComfyTraining trainingJob submit',
	'runComfyTraining trainingJob resume',
];

function operations(description: INodeTypeDescription): Array<{ resource: string; operation: string; action: string }> {
	const resources = (description.properties.find((p) => p.name === 'resource')?.options ?? []) as Array<{ value: string }>;
	return resources.flatMap(({ value: resource }) => {
		const selector = description.properties.find(
			(p: INodeProperties) => p.name === 'operation' && (p.displayOptions?.show?.resource ?? []).includes(resource),
		);
		return ((selector?.options ?? []) as Array<{ value: string; action?: string }>).map((o) => ({
			resource,
			operation: o.value,
			action: o.action ?? '',
		}));
	});
}

/** The description n8n gives the agent for a node of `type` with these parameters. */
function toolDescriptionOf(description: INodeTypeDescription, parameters: INodeParameters): string {
	const node = { name: 'Tool', type: description.name, typeVersion: 1, position: [0, 0], parameters } as INode;
	const resolved = NodeHelpers.getNodeParameters(description.properties, parameters, true, false, node, description) ?? {};
	return NodeHelpers.getToolDescriptionForNode({ ...node, parameters: resolved }, { description } as INodeType);
}

const cases = NODES.flatMap((nodeType) =>
	operations(nodeType.description).map((op) => ({ node: nodeType.description.name, ...op, description: nodeType.description })),
);

describe('the tool description every RunComfy operation gives an AI agent', () => {
	it('covers the 37 operations of the four action nodes', () => {
		expect(cases).toHaveLength(37);
	});

	it.each(cases.map((c) => [`${c.node} ${c.resource} ${c.operation}`, c] as const))('%s: says what it does and what it costs', (key, c) => {
		const toolForm = { ...c.description, name: `${c.description.name}Tool` };
		const text = toolDescriptionOf(toolForm, { resource: c.resource, operation: c.operation });
		expect(text).not.toBe(`${c.action} in ${String(c.description.defaults.name)}`);
		expect(text).toContain('RunComfy');
		expect(text.length).toBeGreaterThan(60);
		// The arguments, with their types (n8n's schema for the model has no enums, so allowed values are listed).
		expect(text).toMatch(/ Arguments: (none\.|\w+ \((string|number|boolean|object)\b)/);
		if (PAID.includes(key)) expect(text).toContain('Paid: this spends RunComfy credit.');
		else expect(text).toMatch(/Free: nothing is charged\.|spends RunComfy credit/);
		// The field belongs to the tool form only: the ordinary node has no such parameter.
		const plain = NodeHelpers.getNodeParameters(
			c.description.properties,
			{ resource: c.resource, operation: c.operation },
			true,
			false,
			null,
			c.description,
		);
		expect(plain?.toolDescription).toBeUndefined();
	});
});
