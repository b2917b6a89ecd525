/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * What the harness's own tests (./engine.*.test.ts) run against: a loopback HTTP server standing in for the
 * service, and tiny fake node types that exercise one harness feature each. Independent of the sandbox and our
 * real nodes. Not a test file itself.
 */
import { once } from 'events';
import http from 'http';
import type { AddressInfo, Socket } from 'net';
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

import type { RunComfyCredentialData } from './engine';

// ------------------------------------------------------------------------------------------------
// Loopback server: records requests; routes drive the fake nodes.

export interface Seen {
	method: string;
	url: string;
	authorization?: string;
}

export interface FakeService {
	/** Every request since the current test started. */
	seen: Seen[];
	/** Resolvers waiting for a request to /slow to arrive (lets a test stop mid-request). */
	slowArrivals: Array<() => void>;
	url(path: string): string;
	/** Credentials whose base URLs all point at the service. */
	creds(token?: string): RunComfyCredentialData;
}

/** The fake service of a test file: listening from `beforeAll` on, its log cleared before each test. */
export function useFakeService(): FakeService {
	const seen: Seen[] = [];
	const slowArrivals: Array<() => void> = [];
	const openSockets = new Set<Socket>();
	let baseUrl = '';
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

	return {
		seen,
		slowArrivals,
		url: (path) => `${baseUrl}${path}`,
		creds: (token = 'good-token') => ({
			accessToken: token,
			modelApiBaseUrl: baseUrl,
			serverlessApiBaseUrl: baseUrl,
			trainerApiBaseUrl: baseUrl,
			allowedDownloadHosts: '127.0.0.1',
		}),
	};
}

// ------------------------------------------------------------------------------------------------
// Fake node types

export function describe_(name: string, extra: Partial<INodeTypeDescription> = {}): INodeTypeDescription {
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
export class FakeHttpNode implements INodeType {
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
export class FakeBinaryNode implements INodeType {
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
export const cancelLog: string[] = [];
/** Resolvers waiting for FakeWaitNode to be inside its sleep. */
export const sleepArrivals: Array<() => void> = [];
export class FakeWaitNode implements INodeType {
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
export class FakeEditorNode implements INodeType {
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
			async searchModels(this: ILoadOptionsFunctions, filter?: string, paginationToken?: string): Promise<INodeListSearchResult> {
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

export class FakeTrigger implements INodeType {
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
