/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals */
/**
 * Proves runNode (./engine.ts) against the fake node types and loopback service of ./engine-fakes.ts: the real
 * engine with credentials and expressions, pairing, modes, errors and Continue on Fail, the token scan, binary
 * data in filesystem mode, Stop, and the agent's tool form.
 */
import { existsSync } from 'fs';
import type { IExecuteFunctions, INodeType } from 'n8n-workflow';

import { getRuntime, runNode } from './engine';
import { FakeBinaryNode, FakeHttpNode, FakeWaitNode, cancelLog, describe_, sleepArrivals, useFakeService } from './engine-fakes';

const { seen, slowArrivals, url, creds } = useFakeService();

describe('engine harness: runNode', () => {
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
		await expect(runNode({ node: new FakeHttpNode(), parameters: { path: '/leak' }, credentials: creds() })).rejects.toThrow(
			'the RunComfy access token appeared in the output or error of this run',
		);
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
			parameters: { url: url('/file') },
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
});
