/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals */
/**
 * n8n's UX guidelines that the linter does not check, over the four action nodes' descriptions: list operations
 * are "Get Many" with Return All and Limit, a binary field that is read is always "Input Binary Field", and every
 * operation that downloads offers the same Output Files and Output Binary Field choices; action names carry no
 * articles ("Run model"), and codex categories come from n8n's list.
 */
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import type { INodeProperties, INodePropertyOptions, INodeType } from 'n8n-workflow';

import { RunComfyDataset } from '../../nodes/RunComfyDataset/RunComfyDataset.node';
import { RunComfyDeployment } from '../../nodes/RunComfyDeployment/RunComfyDeployment.node';
import { RunComfyModel } from '../../nodes/RunComfyModel/RunComfyModel.node';
import { RunComfyTraining } from '../../nodes/RunComfyTraining/RunComfyTraining.node';

const NODES: INodeType[] = [new RunComfyModel(), new RunComfyDeployment(), new RunComfyDataset(), new RunComfyTraining()];

interface Operation {
	node: string;
	resource: string;
	option: INodePropertyOptions;
}

function operationsOf(node: INodeType): Operation[] {
	return node.description.properties
		.filter((p) => p.name === 'operation')
		.flatMap((p) =>
			(p.options as INodePropertyOptions[]).map((option) => ({
				node: node.description.displayName,
				resource: String(p.displayOptions?.show?.resource?.[0]),
				option,
			})),
		);
}

/** The top-level properties shown for one resource/operation (whatever else their display rules ask for). */
function propertiesOf(node: INodeType, resource: string, operation: string): INodeProperties[] {
	return node.description.properties.filter((p) => {
		const show = p.displayOptions?.show ?? {};
		return show.resource?.includes(resource) && show.operation?.includes(operation);
	});
}

/** Every property, also inside collections and fixed collections. */
function allProperties(properties: INodeProperties[]): INodeProperties[] {
	return properties.flatMap((p) => {
		const options = (p.options ?? []) as Array<INodeProperties | INodePropertyOptions | { values?: INodeProperties[] }>;
		const nested = options.flatMap((o) => ('values' in o && o.values ? o.values : 'displayName' in o ? [o as INodeProperties] : []));
		return [p, ...allProperties(nested)];
	});
}

const everyOperation = NODES.flatMap((node) => operationsOf(node).map((op) => ({ ...op, type: node })));

describe('n8n UX conventions', () => {
	it('no operation is called "List": list operations are "Get Many"', () => {
		const lists = everyOperation.filter(({ option }) => /^list/i.test(option.name) || /^list/i.test(String(option.value)));
		expect(lists.map(({ node, option }) => `${node}: ${option.name}`)).toEqual([]);
		const getMany = everyOperation.filter(({ option }) => option.name.startsWith('Get Many'));
		expect(getMany.map(({ node, option }) => `${node}: ${option.name} (${String(option.value)}) ${option.action}`)).toEqual([
			'RunComfy Model: Get Many Categories (getManyCategories) Get many model categories',
			'RunComfy Model: Get Many Models (getManyModels) Get many models',
			'RunComfy Deployment: Get Many (getAll) Get many deployments',
			'RunComfy Dataset: Get Many (getAll) Get many datasets',
		]);
	});

	it('every Get Many has Return All and Limit (Limit only while Return All is off)', () => {
		for (const { type, resource, option } of everyOperation.filter((o) => o.option.name.startsWith('Get Many'))) {
			const shown = propertiesOf(type, resource, String(option.value));
			expect({ op: option.value, returnAll: shown.find((p) => p.name === 'returnAll')?.default }).toEqual({
				op: option.value,
				returnAll: false,
			});
			expect(shown.find((p) => p.name === 'limit')?.displayOptions?.show?.returnAll).toEqual([false]);
		}
	});

	it('a binary field that is read is always called "Input Binary Field"', () => {
		const readers = NODES.flatMap((node) => allProperties(node.description.properties)).filter((p) => p.name === 'binaryPropertyName');
		expect(readers.length).toBeGreaterThanOrEqual(2);
		expect([...new Set(readers.map((p) => p.displayName))]).toEqual(['Input Binary Field']);
	});

	it('every operation that downloads offers Output Files (one item by default) and Output Binary Field (data)', () => {
		const downloading = everyOperation.filter(({ type, resource, option }) =>
			propertiesOf(type, resource, String(option.value)).some((p) => p.name === 'downloadOutputs'),
		);
		expect(downloading.map(({ node, option }) => `${node}: ${String(option.value)}`).sort()).toEqual([
			'RunComfy Deployment: getResult',
			'RunComfy Deployment: run',
			'RunComfy Model: getResult',
			'RunComfy Model: run',
			'RunComfy Training: getResult',
			'RunComfy Training: resume',
			'RunComfy Training: submit',
		]);
		for (const { type, resource, option } of downloading) {
			const shown = propertiesOf(type, resource, String(option.value));
			const layout = shown.find((p) => p.name === 'outputFiles');
			const field = shown.find((p) => p.name === 'outputBinaryField');
			expect({ op: option.value, layout: layout?.default, field: field?.default }).toEqual({
				op: option.value,
				layout: 'allOnOneItem',
				field: 'data',
			});
			expect((layout?.options as INodePropertyOptions[]).map((o) => o.name)).toEqual(['All Files on One Item', 'One Item per File']);
			expect(layout?.displayOptions?.show?.downloadOutputs).toEqual([true]);
			expect(field?.displayOptions?.show?.downloadOutputs).toEqual([true]);
		}
	});

	it('action names carry no articles ("Run model", not "Run a model")', () => {
		const withArticles = everyOperation.filter(({ option }) => /\b(a|an|the)\b/i.test(String(option.action)));
		expect(withArticles.map(({ node, option }) => `${node}: ${option.action}`)).toEqual([]);
		expect(everyOperation.every(({ option }) => typeof option.action === 'string' && /^[A-Z]/.test(option.action))).toBe(true);
	});

	it("every node's codex categories are app categories from n8n's list", () => {
		// docs.n8n.io's codex list with "Marketing & Content" as n8n 2.x names it ("Marketing"); "AI", "Core
		// Nodes" and "HITL" are n8n's own panels, not app categories.
		const allowed = [
			'Analytics',
			'Communication',
			'Data & Storage',
			'Development',
			'Finance & Accounting',
			'Marketing',
			'Miscellaneous',
			'Productivity',
			'Sales',
			'Utility',
		];
		const nodesDir = join(__dirname, '..', '..', 'nodes');
		const codex = readdirSync(nodesDir)
			.filter((dir) => dir.startsWith('RunComfy'))
			.map((dir) => ({ dir, file: join(nodesDir, dir, `${dir}.node.json`) }));
		expect(codex).toHaveLength(6);
		const wrong = codex.flatMap(({ dir, file }) => {
			const { categories } = JSON.parse(readFileSync(file, 'utf8')) as { categories: string[] };
			return categories.length === 0 ? [`${dir}: none`] : categories.filter((c) => !allowed.includes(c)).map((c) => `${dir}: ${c}`);
		});
		expect(wrong).toEqual([]);
	});
});
