import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { readLimit, returnAllProperties } from '../../../shared/descriptions';
import { readBoolean } from '../../../shared/params';
import { asChosen, readSimplify, simplifyProperty } from '../../../shared/simplify';
import { listDeployments } from '../../../shared/transport';
import { workflowSummary } from '../../helpers/graph';

const properties: INodeProperties[] = [
	...returnAllProperties(),
	{
		displayName: 'Deployment IDs',
		name: 'ids',
		type: 'string',
		default: '',
		placeholder: 'e.g. 2f6c1e0a-…, 9b1d…',
		description: 'Only these deployments (comma-separated IDs). Empty: every deployment of the account.',
	},
	{
		displayName: 'Include Workflow',
		name: 'includePayload',
		type: 'boolean',
		default: false,
		description:
			"Whether to include each deployment's saved workflow (workflow_api_json: every node ID and input name) and a short summary of its nodes",
	},
	{
		displayName: 'Include Readme',
		name: 'includeReadme',
		type: 'boolean',
		default: false,
		description: "Whether to include each deployment's README text",
	},
	simplifyProperty,
];

export const description = updateDisplayOptions({ show: { resource: ['deployment'], operation: ['getAll'] } }, properties);

export const splitIds = (raw: unknown): string[] =>
	String(raw ?? '')
		.split(/[\s,]+/)
		.map((s) => s.trim())
		.filter(Boolean);

/** Deployment → Get Many: one item per deployment (the service returns them all at once; Limit applies here). */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const limit = readLimit(this, itemIndex);
	const ids = splitIds(this.getNodeParameter('ids', itemIndex, ''));
	const includePayload = readBoolean(this, 'includePayload', itemIndex, false, 'Include Workflow');
	const includeReadme = readBoolean(this, 'includeReadme', itemIndex, false, 'Include Readme');
	const simple = readSimplify(this, itemIndex);
	let deployments = await listDeployments(this, {
		...(ids.length ? { ids } : {}),
		includePayload,
		includeReadme,
	});
	// The ids filter is the service's; checked here too so the output never holds other deployments.
	if (ids.length) deployments = deployments.filter((d) => ids.includes(String(d.id)));
	return deployments
		.slice(0, limit)
		.map((d) => asChosen(simple, 'deployment', includePayload ? { ...d, ...workflowSummary(d) } : { ...d }));
}
