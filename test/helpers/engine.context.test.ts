/**
 * Proves the harness's other entry points (./engine.ts) against the fake node types and loopback service of
 * ./engine-fakes.ts: withExecuteContext, the editor methods through LoadOptionsContext, a polling trigger's
 * poll() and the credential's test request.
 */
import type { IDataObject } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import { listSearch, loadOptions, poll, resourceMapping, testCredential, withExecuteContext } from './engine';
import { FakeEditorNode, FakeTrigger, useFakeService } from './engine-fakes';

const { seen, url, creds } = useFakeService();

describe('engine harness: contexts, editor methods, poll and credential test', () => {
	it('withExecuteContext gives a real execute context and rethrows the callback error unchanged', async () => {
		const auth = await withExecuteContext(
			{ credentials: creds(), parameters: { x: '={{ 1 + 2 }}' }, inputItems: [{ json: { a: 1 } }] },
			async (ctx) => {
				const body = (await ctx.helpers.httpRequestWithAuthentication.call(ctx, 'runComfyApi', {
					url: url('/echo'),
					json: true,
				})) as IDataObject;
				return { body, x: ctx.getNodeParameter('x', 0), input: ctx.getInputData()[0].json };
			},
		);
		expect(auth).toEqual({ body: { authorization: 'Bearer <token>', path: '/echo' }, x: 3, input: { a: 1 } });

		class Marker extends Error {}
		await expect(
			withExecuteContext({ credentials: creds() }, async () => {
				throw new Marker('boom');
			}),
		).rejects.toBeInstanceOf(Marker);
	});

	it('withExecuteContext onStart stop aborts the cancel signal', async () => {
		const aborted = await withExecuteContext({ credentials: creds(), onStart: (stop) => stop() }, async (ctx) => {
			await sleep(60_000, ctx.getExecutionCancelSignal()).catch(() => undefined);
			return ctx.getExecutionCancelSignal()?.aborted;
		});
		expect(aborted).toBe(true);
	});

	it('listSearch, loadOptions and resourceMapping run through LoadOptionsContext with credentials', async () => {
		const first = await listSearch({
			node: new FakeEditorNode(),
			method: 'searchModels',
			parameters: {},
			credentials: creds(),
			filter: 'alpha',
		});
		expect(first).toEqual({
			results: [
				{ name: 'alpha/one', value: 'alpha/one' },
				{ name: 'alpha/two', value: 'alpha/two' },
			],
			paginationToken: undefined,
		});
		const paged = await listSearch({
			node: new FakeEditorNode(),
			method: 'searchModels',
			parameters: {},
			credentials: creds(),
			paginationToken: '2',
		});
		expect(paged.results).toEqual([{ name: 'beta/three', value: 'beta/three' }]);

		const options = await loadOptions({
			node: new FakeEditorNode(),
			method: 'getCategory',
			parameters: { model: { __rl: true, mode: 'list', value: 'alpha/one' } },
			credentials: creds(),
		});
		expect(options).toEqual([{ name: 'img:alpha/one', value: 'img' }]);

		const fields = await resourceMapping({
			node: new FakeEditorNode(),
			method: 'getFields',
			parameters: {},
			credentials: creds(),
		});
		expect(fields.fields[0].displayName).toBe('prompt (Bearer <token>)');

		await expect(listSearch({ node: new FakeEditorNode(), method: 'nope', parameters: {}, credentials: creds() })).rejects.toThrow(
			/no listSearch method "nope"/,
		);
	});

	it('poll keeps its cursor in the static data object across calls; manual mode returns a sample', async () => {
		const staticData: IDataObject = {};
		const first = await poll({ node: new FakeTrigger(), parameters: {}, credentials: creds(), staticData });
		expect(first).toEqual([[{ json: { id: 1, prefix: 'ev' } }, { json: { id: 2, prefix: 'ev' } }, { json: { id: 3, prefix: 'ev' } }]]);
		expect(staticData.lastId).toBe(3);
		const second = await poll({ node: new FakeTrigger(), parameters: {}, credentials: creds(), staticData });
		expect(second).toBeNull();
		expect(seen.map((s) => s.url)).toEqual(['/events?after=0', '/events?after=3']);

		const sample = await poll({
			node: new FakeTrigger(),
			parameters: { prefix: 'x' },
			credentials: creds(),
			staticData: {},
			mode: 'manual',
		});
		expect(sample).toEqual([[{ json: { sample: true, prefix: 'x' } }]]);

		for (const mode of ['trigger', 'manual'] as const) {
			await expect(
				poll({ node: new FakeTrigger(), parameters: { prefix: 'fail' }, credentials: creds(), staticData: {}, mode }),
			).rejects.toMatchObject({ message: 'poll failed', description: 'fix it' });
		}
	});

	it('testCredential runs the credential test request with the bearer token', async () => {
		await expect(testCredential(creds())).resolves.toEqual({ status: 'OK', message: 'Connection successful!' });
		expect(seen.map((s) => [s.url, s.authorization])).toEqual([['/prod/v2/balance', 'Bearer good-token']]);
		seen.length = 0;
		const bad = await testCredential(creds('wrong'));
		expect(bad.status).toBe('Error');
		// n8n re-sends once after a 401 (its pre-authentication refresh path), with the same token.
		expect(seen.length).toBeGreaterThanOrEqual(1);
		expect(seen.every((s) => s.url === '/prod/v2/balance' && s.authorization === 'Bearer wrong')).toBe(true);
		await expect(testCredential(creds('Bearer xyz'))).resolves.toMatchObject({
			status: 'Error',
			message: expect.stringMatching(/Bearer/),
		});
	});
});
