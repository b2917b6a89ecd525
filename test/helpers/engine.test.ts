/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals */
/**
 * Proves the in-process harness (./engine.ts) against tiny fake node types defined here, with a
 * loopback HTTP server standing in for the service. Independent of the sandbox and our real nodes.
 */
import { once } from 'events';
import { existsSync } from 'fs';
import http from 'http';
import type { AddressInfo } from 'net';
import type {
	IDataObject,
	IExecuteFunctions,
	JsonObject,
	ILoadOptionsFunctions,
	INodeExecutionData,
	INodeListSearchResult,
	INodePropertyOptions,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
	ResourceMapperFields,
} from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes, NodeOperationError, sleep } from 'n8n-workflow';

import {
	getRuntime,
	listSearch,
	loadOptions,
	poll,
	resourceMapping,
	runNode,
	testCredential,
	withExecuteContext,
	type RunComfyCredentialData,
} from './engine';

// ------------------------------------------------------------------------------------------------
// Loopback server: records requests; routes drive the fake nodes.

interface Seen {
	method: string;
	url: string;
	authorization?: string;
}

const seen: Seen[] = [];
let baseUrl = '';
/** Resolvers waiting for a request to /slow to arrive (lets a test stop mid-request). */
const slowArrivals: Array<() => void> = [];
const openSockets = new Set<import('net').Socket>();

const server = http.createServer((req, res) => {
	seen.push({ method: req.method ?? '', url: req.url ?? '', authorization: req.headers.authorization });
	const url = new URL(req.url ?? '/', 'http://x');
	if (url.pathname === '/echo') {
		res.setHeader('content-type', 'application/json');
		// The echo masks the token: every run doubles as a token scan, which would (rightly) refuse it.
		const masked = req.headers.authorization?.replace('good-token', '<token>') ?? null;
		res.end(JSON.stringify({ authorization: masked, path: url.pathname }));
		return;
	}
	if (url.pathname === '/leak') {
		res.setHeader('content-type', 'application/json');
		res.end(JSON.stringify({ leaked: req.headers.authorization ?? null }));
		return;
	}
	if (url.pathname === '/prod/v2/balance') {
		if (req.headers.authorization === 'Bearer good-token') {
			res.setHeader('content-type', 'application/json');
			res.end(JSON.stringify({ balance: 12.5 }));
		} else {
			res.statusCode = 401;
			res.end(JSON.stringify({ error: 'unauthorized' }));
		}
		return;
	}
	if (url.pathname === '/fail') {
		res.statusCode = 422;
		res.setHeader('content-type', 'application/json');
		res.end(JSON.stringify({ message: 'bad input' }));
		return;
	}
	if (url.pathname === '/file') {
		res.setHeader('content-type', 'image/png');
		res.end(Buffer.alloc(256 * 1024, 7));
		return;
	}
	if (url.pathname === '/slow') {
		// Never answers; the client must abort.
		slowArrivals.splice(0).forEach((resolve) => resolve());
		return;
	}
	if (url.pathname === '/models') {
		const search = url.searchParams.get('search') ?? '';
		const offset = Number(url.searchParams.get('offset') ?? '0');
		const all = ['alpha/one', 'alpha/two', 'beta/three'].filter((m) => m.includes(search));
		res.setHeader('content-type', 'application/json');
		res.end(JSON.stringify({ models: all.slice(offset, offset + 2), next: offset + 2 < all.length ? offset + 2 : null }));
		return;
	}
	if (url.pathname === '/events') {
		const after = Number(url.searchParams.get('after') ?? '0');
		const events = [1, 2, 3].filter((id) => id > after).map((id) => ({ id }));
		res.setHeader('content-type', 'application/json');
		res.end(JSON.stringify({ events }));
		return;
	}
	res.statusCode = 404;
	res.end('{}');
});
server.on('connection', (socket) => {
	openSockets.add(socket);
	socket.on('close', () => openSockets.delete(socket));
});

beforeAll(async () => {
	server.listen(0, '127.0.0.1');
	await once(server, 'listening');
	baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
	openSockets.forEach((s) => s.destroy());
	await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
	seen.length = 0;
});

function creds(token = 'good-token'): RunComfyCredentialData {
	return {
		accessToken: token,
		modelApiBaseUrl: baseUrl,
		serverlessApiBaseUrl: baseUrl,
		trainerApiBaseUrl: baseUrl,
		allowedDownloadHosts: '127.0.0.1',
	};
}

// ------------------------------------------------------------------------------------------------
// Fake node types

function describe_(name: string, extra: Partial<INodeTypeDescription> = {}): INodeTypeDescription {
	return {
		displayName: `Fake ${name}`,
		name,
		group: ['transform'],
		version: 1,
		description: 'fake',
		defaults: { name: `Fake ${name}` },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'runComfyApi', required: true }],
		properties: [],
		...extra,
	};
}

/** Calls GET <modelApiBaseUrl><path> with httpRequestWithAuthentication; returns the body per item. */
class FakeHttpNode implements INodeType {
	description = describe_('fakeHttp', {
		properties: [
			{ displayName: 'Path', name: 'path', type: 'string', default: '/echo' },
			{ displayName: 'Label', name: 'label', type: 'string', default: 'none' },
		],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const out: INodeExecutionData[] = [];
		const credentials = await this.getCredentials('runComfyApi');
		for (let i = 0; i < this.getInputData().length; i++) {
			try {
				const path = this.getNodeParameter('path', i) as string;
				const body = (await this.helpers.httpRequestWithAuthentication.call(this, 'runComfyApi', {
					method: 'GET',
					url: `${credentials.modelApiBaseUrl as string}${path}`,
					json: true,
				})) as IDataObject;
				out.push({
					json: { ...body, label: this.getNodeParameter('label', i) as string, tool: this.isToolExecution() },
					pairedItem: { item: i },
				});
			} catch (error) {
				if (this.continueOnFail()) {
					out.push({ json: { error: (error as Error).message }, pairedItem: { item: i } });
					continue;
				}
				// httpRequestWithAuthentication already throws NodeApiError, and re-wrapping one returns
				// the original untouched, so the item index has to be put on it directly.
				const apiError = new NodeApiError(this.getNode(), error as JsonObject, { itemIndex: i });
				apiError.context.itemIndex = i;
				throw apiError;
			}
		}
		return [out];
	}
}

/** Downloads `url` as a stream into binary (plain httpRequest, no token); echoes input binary size. */
class FakeBinaryNode implements INodeType {
	description = describe_('fakeBinary', {
		properties: [{ displayName: 'URL', name: 'url', type: 'string', default: '' }],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const out: INodeExecutionData[] = [];
		for (let i = 0; i < items.length; i++) {
			let inputSize: number | null = null;
			if (items[i].binary?.upload) {
				inputSize = (await this.helpers.getBinaryDataBuffer(i, 'upload')).length;
			}
			const stream = await this.helpers.httpRequest({
				url: this.getNodeParameter('url', i) as string,
				encoding: 'stream',
			});
			const binary = await this.helpers.prepareBinaryData(stream, 'out.png', 'image/png');
			out.push({ json: { inputSize }, binary: { data: binary }, pairedItem: { item: i } });
		}
		return [out];
	}
}

/** Waits with sleep(…, signal); records cancellation; returns what it did. */
const cancelLog: string[] = [];
/** Resolvers waiting for FakeWaitNode to be inside its sleep. */
const sleepArrivals: Array<() => void> = [];
class FakeWaitNode implements INodeType {
	description = describe_('fakeWait', {
		properties: [{ displayName: 'Mode', name: 'mode', type: 'string', default: 'sleep' }],
	});

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const signal = this.getExecutionCancelSignal();
		this.onExecutionCancellation(() => cancelLog.push('cancellation handler ran'));
		const mode = this.getNodeParameter('mode', 0) as string;
		try {
			if (mode === 'http') {
				const base = (await this.getCredentials('runComfyApi')).modelApiBaseUrl as string;
				await this.helpers.httpRequestWithAuthentication.call(this, 'runComfyApi', { url: `${base}/slow` });
			} else {
				cancelLog.push(`started aborted=${String(signal?.aborted)}`);
				const sleeping = sleep(60_000, signal);
				sleepArrivals.splice(0).forEach((resolve) => resolve());
				await sleeping;
			}
		} catch (error) {
			cancelLog.push(`aborted=${String(signal?.aborted)}`);
			if (mode === 'partial') {
				return [[{ json: { partial: true }, pairedItem: { item: 0 } }]];
			}
			throw new NodeOperationError(this.getNode(), 'Stopped', { description: (error as Error).message });
		}
		return [[{ json: { finished: true }, pairedItem: { item: 0 } }]];
	}
}

/** Editor methods + a polling trigger. */
class FakeEditorNode implements INodeType {
	description = describe_('fakeEditor', {
		properties: [
			{ displayName: 'Category', name: 'category', type: 'string', default: 'img' },
			{
				displayName: 'Model',
				name: 'model',
				type: 'resourceLocator',
				default: { mode: 'list', value: '' },
				modes: [{ displayName: 'From List', name: 'list', type: 'list', typeOptions: { searchListMethod: 'searchModels' } }],
			},
		],
	});

	methods = {
		listSearch: {
			async searchModels(
				this: ILoadOptionsFunctions,
				filter?: string,
				paginationToken?: string,
			): Promise<INodeListSearchResult> {
				const { modelApiBaseUrl } = await this.getCredentials('runComfyApi');
				const body = (await this.helpers.httpRequestWithAuthentication.call(this, 'runComfyApi', {
					url: `${modelApiBaseUrl as string}/models`,
					qs: { search: filter ?? '', offset: paginationToken ?? '0' },
					json: true,
				})) as { models: string[]; next: number | null };
				return {
					results: body.models.map((m) => ({ name: m, value: m })),
					paginationToken: body.next === null ? undefined : String(body.next),
				};
			},
		},
		loadOptions: {
			async getCategory(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
				const category = this.getCurrentNodeParameter('category') as string;
				const model = this.getCurrentNodeParameter('model', { extractValue: true }) as string;
				return [{ name: `${category}:${model}`, value: category }];
			},
		},
		resourceMapping: {
			async getFields(this: ILoadOptionsFunctions): Promise<ResourceMapperFields> {
				const { modelApiBaseUrl } = await this.getCredentials('runComfyApi');
				const body = (await this.helpers.httpRequestWithAuthentication.call(this, 'runComfyApi', {
					url: `${modelApiBaseUrl as string}/echo`,
					json: true,
				})) as { authorization: string };
				return {
					fields: [
						{
							id: 'prompt',
							displayName: `prompt (${body.authorization})`,
							required: true,
							defaultMatch: false,
							display: true,
							type: 'string',
						},
					],
				};
			},
		},
	};
}

class FakeTrigger implements INodeType {
	description = describe_('fakeTrigger', {
		group: ['trigger'],
		polling: true,
		inputs: [],
		properties: [{ displayName: 'Prefix', name: 'prefix', type: 'string', default: 'ev' }],
	});

	async poll(this: IPollFunctions): Promise<INodeExecutionData[][] | null> {
		const data = this.getWorkflowStaticData('node');
		const prefix = this.getNodeParameter('prefix') as string;
		if (prefix === 'fail') throw new NodeOperationError(this.getNode(), 'poll failed', { description: 'fix it' });
		if (this.getMode() === 'manual') return [[{ json: { sample: true, prefix } }]];
		const { modelApiBaseUrl } = await this.getCredentials('runComfyApi');
		const body = (await this.helpers.httpRequestWithAuthentication.call(this, 'runComfyApi', {
			url: `${modelApiBaseUrl as string}/events`,
			qs: { after: (data.lastId as number | undefined) ?? 0 },
			json: true,
		})) as { events: Array<{ id: number }> };
		if (body.events.length === 0) return null;
		data.lastId = body.events[body.events.length - 1].id;
		return [body.events.map((e) => ({ json: { ...e, prefix } }))];
	}
}

// ------------------------------------------------------------------------------------------------

describe('engine harness', () => {
	it('runs a node in the real engine: credentials authenticate, expressions resolve per item', async () => {
		const result = await runNode({
			node: new FakeHttpNode(),
			parameters: { path: '/echo', label: '={{ $json.name }}-{{ $itemIndex }}' },
			credentials: creds(),
			inputItems: [{ json: { name: 'a' } }, { json: { name: 'b' } }],
		});
		expect(result.status).toBe('success');
		expect(result.error).toBeUndefined();
		expect(result.items.map((i) => i.json)).toEqual([
			{ authorization: 'Bearer <token>', path: '/echo', label: 'a-0', tool: false },
			{ authorization: 'Bearer <token>', path: '/echo', label: 'b-1', tool: false },
		]);
		expect(result.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(result.unpairedItems).toBe(0);
		expect(result.nodeDefinition.type).toBe('n8n-nodes-runcomfy.fakeHttp');
		expect(seen.map((s) => s.authorization)).toEqual(['Bearer good-token', 'Bearer good-token']);
		expect((await getRuntime()).expressionEngine).toBe(process.env.N8N_EXPRESSION_ENGINE ?? 'vm');
	});

	it('counts items returned without pairedItem even when n8n fills pairedItem in afterwards', async () => {
		const unpaired: INodeType = {
			description: describe_('fakeUnpaired', { credentials: [] }),
			async execute(this: IExecuteFunctions) {
				return [this.getInputData().map((item) => ({ json: item.json }))];
			},
		};
		const result = await runNode({ node: unpaired, parameters: {}, inputItems: [{ json: { a: 1 } }, { json: { a: 2 } }] });
		expect(result.status).toBe('success');
		expect(result.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(result.unpairedItems).toBe(2);
	});

	it('runs in manual mode by default and in trigger mode on request', async () => {
		const modeNode: INodeType = {
			description: describe_('fakeMode', { credentials: [] }),
			async execute(this: IExecuteFunctions) {
				return [[{ json: { mode: this.getMode() }, pairedItem: { item: 0 } }]];
			},
		};
		const manual = await runNode({ node: modeNode, parameters: {} });
		const trigger = await runNode({ node: modeNode, parameters: {}, mode: 'trigger' });
		expect([manual.items[0].json.mode, trigger.items[0].json.mode]).toEqual(['manual', 'trigger']);
	});

	it('a node fed no items does not run, as in n8n', async () => {
		const result = await runNode({ node: new FakeHttpNode(), parameters: {}, credentials: creds(), inputItems: [] });
		expect(result).toMatchObject({ status: 'success', ran: false, items: [] });
		expect(seen).toEqual([]);
	});

	it('reports a node error with message, httpCode and itemIndex', async () => {
		const result = await runNode({
			node: new FakeHttpNode(),
			parameters: { path: '={{ $json.path }}' },
			credentials: creds(),
			inputItems: [{ json: { path: '/echo' } }, { json: { path: '/fail' } }],
		});
		expect(result.status).toBe('error');
		expect(result.items).toEqual([]);
		expect(result.error).toMatchObject({ httpCode: '422', itemIndex: 1, name: 'NodeApiError' });
		expect(result.error?.message).toBeTruthy();
	});

	it('continueOnFail sets onError so the node yields error items', async () => {
		const result = await runNode({
			node: new FakeHttpNode(),
			parameters: { path: '={{ $json.path }}' },
			credentials: creds(),
			continueOnFail: true,
			inputItems: [{ json: { path: '/fail' } }, { json: { path: '/echo' } }],
		});
		expect(result.status).toBe('success');
		expect(result.nodeDefinition.onError).toBe('continueRegularOutput');
		expect(result.items[0].json.error).toEqual(expect.any(String));
		expect(result.items[1].json.authorization).toBe('Bearer <token>');
	});

	it('every run is a token scan: a run whose output carries the access token is refused', async () => {
		await expect(
			runNode({ node: new FakeHttpNode(), parameters: { path: '/leak' }, credentials: creds() }),
		).rejects.toThrow('the RunComfy access token appeared in the output or error of this run');
		const clean = await runNode({ node: new FakeHttpNode(), parameters: { path: '/echo' }, credentials: creds() });
		expect(clean.items[0].json.authorization).toBe('Bearer <token>');
	});

	it('refuses a token pasted with "Bearer " via the credential class authenticate', async () => {
		const result = await runNode({
			node: new FakeHttpNode(),
			parameters: {},
			credentials: creds('Bearer abc'),
		});
		expect(result.status).toBe('error');
		expect(result.error?.message).toMatch(/Bearer/);
		expect(seen).toEqual([]);
	});

	it('stores binary in filesystem mode (input via prepareBinaryData, output streamed) and reads it back', async () => {
		const upload = Buffer.from('hello upload');
		const result = await runNode({
			node: new FakeBinaryNode(),
			parameters: { url: `${baseUrl}/file` },
			credentials: creds(),
			inputItems: [{ json: {}, binary: { upload: { data: upload, mimeType: 'text/plain', fileName: 'u.txt' } } }],
		});
		expect(result.status).toBe('success');
		const item = result.items[0];
		expect(item.json.inputSize).toBe(upload.length);
		expect(item.binary?.data).toMatchObject({ mimeType: 'image/png', fileName: 'out.png', bytes: 256 * 1024 });
		expect(item.binary?.data.id).toMatch(/^filesystem-v2:/);
		expect(existsSync(result.binaryPath(item))).toBe(true);
		const bytes = await result.readBinary(item);
		expect(bytes.equals(Buffer.alloc(256 * 1024, 7))).toBe(true);
	});

	it('stop() cancels like the Stop button: the signal aborts, handlers run, status is canceled', async () => {
		cancelLog.length = 0;
		const sleeping = new Promise<void>((resolve) => sleepArrivals.push(resolve));
		const result = await runNode({
			node: new FakeWaitNode(),
			parameters: { mode: 'sleep' },
			credentials: creds(),
			onStart: (stop) => {
				void sleeping.then(stop);
			},
		});
		expect(result.status).toBe('canceled');
		expect(result.stopped).toBe(true);
		expect(result.items).toEqual([]);
		expect(result.error?.message).toBe('Stopped');
		expect(cancelLog).toEqual(['started aborted=false', 'cancellation handler ran', 'aborted=true']);
	});

	it('stop() called synchronously in onStart: the node starts with an already-aborted signal', async () => {
		cancelLog.length = 0;
		const result = await runNode({
			node: new FakeWaitNode(),
			parameters: { mode: 'sleep' },
			credentials: creds(),
			onStart: (stop) => stop(),
		});
		expect(result.status).toBe('canceled');
		expect(cancelLog).toEqual(['started aborted=true', 'aborted=true']);
	});

	it('stop() mid-request aborts httpRequestWithAuthentication and keeps the partial output', async () => {
		cancelLog.length = 0;
		const arrived = new Promise<void>((resolve) => slowArrivals.push(resolve));
		const result = await runNode({
			node: new FakeWaitNode(),
			parameters: { mode: 'http' },
			credentials: creds(),
			onStart: (stop) => {
				void arrived.then(stop);
			},
		});
		expect(result.status).toBe('canceled');
		expect(cancelLog).toEqual(['cancellation handler ran', 'aborted=true']);

		cancelLog.length = 0;
		const sleeping = new Promise<void>((resolve) => sleepArrivals.push(resolve));
		const partial = await runNode({
			node: new FakeWaitNode(),
			parameters: { mode: 'partial' },
			credentials: creds(),
			onStart: (stop) => {
				void sleeping.then(stop);
			},
		});
		expect(partial.status).toBe('canceled');
		expect(cancelLog).toContain('aborted=true');
		expect(partial.items.map((i) => i.json)).toEqual([{ partial: true }]);
	});

	it('asTool makes isToolExecution() true and passes the tool arguments as the input item', async () => {
		const result = await runNode({
			node: new FakeHttpNode(),
			parameters: { path: '/echo', label: '={{ $json.topic }}' },
			credentials: creds(),
			inputItems: [{ json: { topic: 'cats' } }],
			asTool: true,
		});
		expect(result.status).toBe('success');
		expect(result.items[0].json).toMatchObject({ tool: true, label: 'cats', authorization: 'Bearer <token>' });
	});

	it('withExecuteContext gives a real execute context and rethrows the callback error unchanged', async () => {
		const auth = await withExecuteContext(
			{ credentials: creds(), parameters: { x: '={{ 1 + 2 }}' }, inputItems: [{ json: { a: 1 } }] },
			async (ctx) => {
				const body = (await ctx.helpers.httpRequestWithAuthentication.call(ctx, 'runComfyApi', {
					url: `${baseUrl}/echo`,
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
		const aborted = await withExecuteContext(
			{ credentials: creds(), onStart: (stop) => stop() },
			async (ctx) => {
				await sleep(60_000, ctx.getExecutionCancelSignal()).catch(() => undefined);
				return ctx.getExecutionCancelSignal()?.aborted;
			},
		);
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

		await expect(
			listSearch({ node: new FakeEditorNode(), method: 'nope', parameters: {}, credentials: creds() }),
		).rejects.toThrow(/no listSearch method "nope"/);
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
