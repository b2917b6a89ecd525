/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals */
/**
 * What a user meets on the canvas: each node's Docs link opens its manual in this package, notices are short,
 * a newcomer sees at most 8 fields on Model → Run before opening a collection (workflows saved with version 1
 * keep their fields), and every "Resource → Operation" a node's text names is one the nodes have.
 */
import { existsSync, readFileSync } from 'fs';
import { join } from 'path';
import type { INode, INodeParameters, INodeProperties, INodePropertyOptions, INodeTypeDescription } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { RunComfyModel } from '../../nodes/RunComfyModel/RunComfyModel.node';
import { NODES_BY_FOLDER, NODE_TEXTS, everyEntry } from './codeTexts';

const ROOT = join(__dirname, '..', '..');
const NODES = Object.entries(NODES_BY_FOLDER);
const MANUALS: Record<string, string> = {
	RunComfyModel: 'model',
	RunComfyDeployment: 'deployment',
	RunComfyDataset: 'dataset',
	RunComfyTraining: 'training',
	RunComfyTrigger: 'trigger',
	RunComfyWebhookTrigger: 'webhook-trigger',
};

/** The top-level fields n8n shows for these parameters (notices aside), as the editor decides it. */
function visibleFields(description: INodeTypeDescription, typeVersion: number, set: INodeParameters): INodeProperties[] {
	const node = { name: 'Node', type: description.name, typeVersion, position: [0, 0], parameters: set } as INode;
	const values = NodeHelpers.getNodeParameters(description.properties, set, true, false, node, description) ?? {};
	return description.properties.filter((p) => p.type !== 'notice' && NodeHelpers.displayParameter(values, p, node, description));
}

describe('the node UI', () => {
	it("each node's Docs link opens its manual in this package", () => {
		const { homepage } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { homepage: string };
		for (const [folder, node] of NODES) {
			const url = `${homepage}/blob/main/docs/nodes/${MANUALS[folder]}.md`;
			expect(existsSync(join(ROOT, 'docs', 'nodes', `${MANUALS[folder]}.md`))).toBe(true);
			const codex = JSON.parse(readFileSync(join(ROOT, 'nodes', folder, `${folder}.node.json`), 'utf8')) as {
				resources: { primaryDocumentation: Array<{ url: string }> };
			};
			expect([folder, node.description.documentationUrl]).toEqual([folder, url]);
			expect([folder, codex.resources.primaryDocumentation.map((d) => d.url)]).toEqual([folder, [url]]);
		}
	});

	it('the editor heads each resource mapper with the field\'s own name, not "Values to Send"', () => {
		const mappers = NODES.flatMap(([, node]) => node.description.properties.filter((p) => p.type === 'resourceMapper'));
		expect(mappers.length).toBeGreaterThanOrEqual(2);
		for (const p of mappers) expect([p.displayName, p.typeOptions?.resourceMapper?.valuesLabel]).toEqual([p.displayName, p.displayName]);
	});

	it('every notice is at most 200 characters', () => {
		const long = NODES.flatMap(([folder, node]) =>
			everyEntry(node.description.properties)
				.filter((e): e is INodeProperties => 'type' in e && e.type === 'notice' && e.displayName.length > 200)
				.map((e) => `${folder} ${e.name}: ${e.displayName.length}`),
		);
		expect(long).toEqual([]);
	});

	it('Model → Run shows a newcomer at most 8 fields outside collections', () => {
		const { description } = new RunComfyModel();
		const version = description.defaultVersion as number;
		const fields = visibleFields(description, version, { resource: 'model', operation: 'run' });
		const outside = fields.filter((p) => p.type !== 'collection').map((p) => p.displayName);
		expect(outside.length).toBeLessThanOrEqual(8);
		expect(outside).toEqual(expect.arrayContaining(['Model', 'Input Mode', 'Inputs', 'Wait for Completion', 'Download Outputs']));
	});

	it('a Model → Run saved with version 1 keeps every field where it was', () => {
		const { description } = new RunComfyModel();
		const v1 = visibleFields(description, 1, { resource: 'model', operation: 'run' }).map((p) => p.name);
		expect(v1).toEqual(expect.arrayContaining(['lora', 'outputFiles', 'outputBinaryField', 'maxDownloadSizeMb', 'options']));
		const later = visibleFields(description, description.defaultVersion as number, { resource: 'model', operation: 'run' });
		const inCollections = later.filter((p) => p.type === 'collection').flatMap((p) => (p.options as INodeProperties[]).map((o) => o.name));
		expect(inCollections).toEqual(expect.arrayContaining(['lora', 'outputFiles', 'outputBinaryField', 'maxDownloadSizeMb']));
	});

	it('every "Resource → Operation" a node\'s text names is an operation of that resource', () => {
		const operations = new Map<string, Set<string>>();
		for (const [, node] of NODES) {
			const props = node.description.properties;
			for (const resource of (props.find((p) => p.name === 'resource')?.options ?? []) as INodePropertyOptions[]) {
				const ops = props.filter((p) => p.name === 'operation' && (p.displayOptions?.show?.resource ?? []).includes(resource.value));
				const names = operations.get(resource.name) ?? new Set<string>();
				for (const o of ops.flatMap((p) => (p.options ?? []) as INodePropertyOptions[])) names.add(o.name);
				operations.set(resource.name, names);
			}
		}
		const texts = NODE_TEXTS.map(({ node, text }) => ({ folder: node, text }));
		const named = texts.flatMap(({ folder, text }) =>
			[...text.matchAll(/\b([A-Z][a-z]+) → ([A-Z][A-Za-z]*(?: [A-Z][A-Za-z]*)*)/g)].map((m) => ({
				folder,
				resource: m[1],
				operation: m[2],
			})),
		);
		expect(named.length).toBeGreaterThan(3);
		const wrong = named
			.filter(({ resource }) => operations.has(resource))
			.filter(({ resource, operation }) => !operations.get(resource)?.has(operation))
			.map(({ folder, resource, operation }) => `${folder}: ${resource} → ${operation}`);
		expect(wrong).toEqual([]);
	});
});
