/**
 * RunComfy Model → Category Filter / category options (loadOptions) when the editor asks before a credential
 * is selected: an empty list (plus "Any Category") instead of "Error fetching options"; real API errors still fail.
 */
import type { ILoadOptionsFunctions, INode } from 'n8n-workflow';

import { getCategories, getCategoryFilterOptions } from '../../nodes/RunComfyModel/methods/loadOptions';
import { loadOptions } from '../helpers/engine';
import { credentialsFor, node, useSandbox } from './setup';

const sb = useSandbox();
beforeEach(() => sb.clearLog());

/**
 * The context n8n's editor gives a load-options method for a node without credentials. Any attempt to read a
 * credential or send a request fails the test, as n8n fails it ("Node does not have any credentials set").
 */
function editorContext(credentials: INode['credentials']): ILoadOptionsFunctions & { calls: string[] } {
	const calls: string[] = [];
	const refuse = (what: string) => async () => {
		calls.push(what);
		throw new Error('Node does not have any credentials set');
	};
	const ctx = {
		calls,
		getNode: (): INode => ({
			id: 'new-node',
			name: 'RunComfy Model',
			type: 'n8n-nodes-runcomfy.runComfyModel',
			typeVersion: 1,
			position: [0, 0],
			parameters: { resource: 'model', operation: 'run' },
			...(credentials ? { credentials } : {}),
		}),
		getCredentials: refuse('getCredentials'),
		getNodeParameter: () => undefined,
		getCurrentNodeParameter: () => undefined,
		helpers: {
			httpRequestWithAuthentication: refuse('httpRequestWithAuthentication'),
			httpRequest: refuse('httpRequest'),
			requestWithAuthentication: refuse('requestWithAuthentication'),
		},
	};
	return ctx as unknown as ILoadOptionsFunctions & { calls: string[] };
}

describe('category options before a credential is selected', () => {
	it('Category Filter offers only "Any Category" and sends nothing', async () => {
		const ctx = editorContext(undefined);
		await expect(getCategoryFilterOptions.call(ctx)).resolves.toEqual([{ name: 'Any Category', value: '' }]);
		expect(ctx.calls).toEqual([]);
	});

	it('the Get Many Models category list is empty and sends nothing', async () => {
		const ctx = editorContext(undefined);
		await expect(getCategories.call(ctx)).resolves.toEqual([]);
		// An empty credentials object, or one with another type only, counts as "not selected" too.
		const other = editorContext({ httpHeaderAuth: { id: 'x', name: 'Other' } });
		await expect(getCategories.call(other)).resolves.toEqual([]);
		expect(ctx.calls).toEqual([]);
		expect(other.calls).toEqual([]);
	});

	it('with a credential selected, the method does ask the service (the error of a missing one surfaces)', async () => {
		const ctx = editorContext({ runComfyApi: { id: 'cred-1', name: 'RunComfy account' } });
		await expect(getCategoryFilterOptions.call(ctx)).rejects.toThrow();
		expect(ctx.calls.length).toBeGreaterThan(0);
	});
});

describe('category options with a credential (n8n engine, sandbox)', () => {
	it('list the catalog categories after "Any Category"', async () => {
		const options = await loadOptions({
			node,
			method: 'getCategoryFilterOptions',
			credentials: credentialsFor(sb),
			parameters: { resource: 'model', operation: 'run' },
		});
		expect(options[0]).toEqual({ name: 'Any Category', value: '' });
		expect(options.length).toBeGreaterThan(1);
		expect(options.map((o) => o.value)).toContain('text-to-image');
		expect(sb.log().filter((e) => e.path === '/v1/models/categories')).toHaveLength(1);
	});

	it('a wrong token still fails (the editor shows the API error), never an empty list', async () => {
		const wrong = { ...credentialsFor(sb), accessToken: 'wrong-token' };
		for (const method of ['getCategoryFilterOptions', 'getCategories']) {
			await expect(loadOptions({ node, method, credentials: wrong, parameters: { resource: 'model', operation: 'run' } })).rejects.toThrow(
				/401|unauthori[sz]ed|token|credential/i,
			);
		}
		const calls = sb.log().filter((e) => e.path === '/v1/models/categories');
		expect(calls.length).toBeGreaterThanOrEqual(2);
		for (const e of calls) expect(e.authorization).toBe('Bearer wrong-token');
	});
});
