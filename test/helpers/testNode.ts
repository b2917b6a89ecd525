/** An INode for code that needs one outside a workflow (fake contexts, errors built in tests). */
import type { INode } from 'n8n-workflow';

/** A RunComfy Model node unless `over` says otherwise. */
export const testNode = (over: Partial<INode> = {}): INode => ({
	id: 'n1',
	name: 'RunComfy Model',
	type: 'n8n-nodes-runcomfy.runComfyModel',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
	...over,
});
