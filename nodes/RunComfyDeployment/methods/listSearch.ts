import type { ILoadOptionsFunctions, INodeListSearchResult } from 'n8n-workflow';

import { listDeployments } from '../../shared/transport';

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
			return String(d.name ?? '').toLowerCase().includes(needle) || String(d.id).toLowerCase().includes(needle);
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
