/** The deployment picker, shared by the Deployment and Trigger nodes: the property and its list search. */
import type { ILoadOptionsFunctions, INodeListSearchResult, INodeProperties } from 'n8n-workflow';

import { listDeployments } from '../transport';

/** The deployment picker: the account's deployments (name, status, enabled), or an ID typed in. */
export const deploymentLocatorProperty: INodeProperties = {
	displayName: 'Deployment',
	name: 'deploymentId',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description: 'The serverless deployment of a ComfyUI workflow on your RunComfy account',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select a deployment...',
			typeOptions: {
				searchListMethod: 'searchDeployments',
				searchable: true,
			},
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. 2f6c1e0a-5b7d-4c1e-9a3f-0d8e7b6a5c4d',
		},
	],
};

/**
 * The deployment picker: every deployment of the account, shown as "name — status, enabled/paused",
 * filtered by name or ID on the client (the list has no server-side search).
 */
export async function searchDeployments(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const deployments = await listDeployments(this);
	const needle = (filter ?? '').trim().toLowerCase();
	const results = deployments
		.filter((d) => {
			if (!needle) return true;
			return (
				String(d.name ?? '')
					.toLowerCase()
					.includes(needle) || String(d.id).toLowerCase().includes(needle)
			);
		})
		.map((d) => {
			const name = String(d.name ?? d.id);
			const parts = d.status ? [String(d.status)] : [];
			const enabled = d.is_enabled === false ? 'paused' : 'enabled';
			if (!parts.includes(enabled)) parts.push(enabled);
			const state = parts.join(', ');
			return { name: `${name} — ${state}`, value: String(d.id) };
		})
		.sort((a, b) => a.name.localeCompare(b.name));
	return { results };
}
