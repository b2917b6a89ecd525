/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals */
/**
 * The numeric rows of the bad-input table come from the nodes' descriptions (./numbers.ts). This checks that
 * the table knows every node the package ships that has a numeric option, so a new node cannot slip past it.
 */
import * as path from 'path';

import type { INodeProperties, INodeType } from 'n8n-workflow';

import { numericFields } from './numbers';
import type { NodeKey } from './table';
import { NODES } from './table';

const ROOT = path.join(__dirname, '..', '..', '..');

/**
 * Nodes whose numbers are checked elsewhere, with where. The Webhook Trigger answers RunComfy's POST rather than
 * throwing: a bad Max Download Size becomes `download_error` on its item (test/RunComfyWebhookTrigger/node.test.ts).
 */
const CHECKED_ELSEWHERE = ['runComfyWebhookTrigger'];

function hasNumber(props: INodeProperties[]): boolean {
	return props.some((p) => p.type === 'number' || (p.type === 'collection' && hasNumber((p.options ?? []) as INodeProperties[])));
}

describe('the numeric rows cover every node', () => {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const manifest = require(path.join(ROOT, 'package.json')) as { n8n: { nodes: string[] } };
	const shipped = manifest.n8n.nodes.map((file) => {
		const source = path.join(ROOT, file.replace(/^dist\//, '').replace(/\.js$/, ''));
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const exports = require(source) as Record<string, new () => INodeType>;
		return new (Object.values(exports)[0])();
	});

	it.each(shipped.map((node) => [node.description.name, node] as const))('%s: in the table if it has a numeric option', (name, node) => {
		const tabled = Object.values(NODES).some((n) => n.description.name === name);
		if (!tabled && !CHECKED_ELSEWHERE.includes(name)) expect(hasNumber(node.description.properties)).toBe(false);
	});

	it.each(Object.keys(NODES) as NodeKey[])('%s: its numeric options are found', (key) => {
		expect(numericFields(key).length).toBeGreaterThan(0);
	});
});
