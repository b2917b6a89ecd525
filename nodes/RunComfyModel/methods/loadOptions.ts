import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';

import { listCategories } from '../../shared/transport';

/**
 * True when the node has no RunComfy credential selected yet. The editor can ask for options right after the
 * node is added, before it assigns the only credential; n8n would then fail with "Node does not have any
 * credentials set" and the field would show "Error fetching options" until the node is reopened.
 */
function hasNoCredential(ctx: ILoadOptionsFunctions): boolean {
	const selected = ctx.getNode().credentials?.runComfyApi;
	return !selected || (!selected.id && !selected.name);
}

/**
 * The categories of the catalog (`GET /v1/models/categories`), for the Get Many Models filter. Empty while no
 * credential is selected; API errors (wrong token, service down) still fail, so the editor shows them.
 */
export async function getCategories(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	if (hasNoCredential(this)) return [];
	const categories = await listCategories(this);
	return [...categories].sort().map((category) => ({ name: category, value: category }));
}

/** The same list with an "any category" entry first, for the optional filter of the model picker. */
export async function getCategoryFilterOptions(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const categories = await getCategories.call(this);
	return [{ name: 'Any Category', value: '' }, ...categories];
}
