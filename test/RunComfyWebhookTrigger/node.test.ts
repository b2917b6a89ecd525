/**
 * The RunComfy Webhook Trigger's node: its description, what publishing checks, downloads of the delivered
 * outputs (answered before downloading), and duplicates recognised after a restart of n8n.
 */
import type { IDataObject, INodeParameters, IWebhookDescription } from 'n8n-workflow';
import { Workflow, resolveWebhookDescriptionField, webhookDescriptionIsNativelyResolvable } from 'n8n-workflow';

import codex from '../../nodes/RunComfyWebhookTrigger/RunComfyWebhookTrigger.node.json';
import { RunComfyWebhookTrigger } from '../../nodes/RunComfyWebhookTrigger/RunComfyWebhookTrigger.node';
import packageJson from '../../package.json';
import type { Sandbox } from '../../sandbox';
import { HarnessNodeTypes } from '../helpers/engine-runtime';
import { activate, deliver, readBinary } from '../helpers/engine-trigger';
import type { StaticDataStore } from '../helpers/engine-trigger';
import { client, credentialsFor, openSandbox, runReaches, submitInference, webhookTrigger } from './setup';

const ROUTE_SEGMENT = 'Jm3pX8vQ2rT6sW9yB4nC7dF1';
const params: INodeParameters = { event: 'deploymentRequest', pathToken: ROUTE_SEGMENT };

describe('RunComfy Webhook Trigger: the node', () => {
	const { description } = webhookTrigger;

	it('is a webhook trigger of its own: no polling, a POST webhook whose path is the secret token', () => {
		expect(description.name).toBe('runComfyWebhookTrigger');
		expect(description.displayName).toBe('RunComfy Webhook Trigger');
		expect(description.group).toEqual(['trigger']);
		expect(description.inputs).toEqual([]);
		expect(description.polling).toBeUndefined();
		expect('usableAsTool' in description).toBe(false);
		// As the editor receives it (JSON); the path's resolver is checked below.
		expect(JSON.parse(JSON.stringify(description.webhooks))).toEqual([
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				responseData: '',
				path: '={{ $parameter["pathToken"] }}',
			},
		]);
		// Always: every final event is confirmed with the API (downloads also use its Allowed Download Hosts).
		expect(description.credentials).toEqual([{ name: 'runComfyApi', required: true }]);
		expect(description.properties.map((p) => p.name)).toEqual([
			'event',
			'usageNotice',
			'pathToken',
			'includeIntermediate',
			'downloadOutputs',
			'outputFiles',
			'outputBinaryField',
			'maxDownloadSizeMb',
		]);
		expect(codex.node).toBe('n8n-nodes-runcomfy.runComfyWebhookTrigger');
		expect(packageJson.n8n.nodes).toContain('dist/nodes/RunComfyWebhookTrigger/RunComfyWebhookTrigger.node.js');
	});

	it('n8n evaluates no expression for a delivery: not version 1, the path read without the engine', () => {
		// n8n 2.41 evaluates `$parameter["options"]["binaryData"]` for each request to a start node of version 1.
		expect(description.version).toBe(2);
		// As n8n 2.41 builds the node for a webhook request: the stored parameters with the defaults applied.
		const type = 'n8n-nodes-runcomfy.runComfyWebhookTrigger';
		const workflow = new Workflow({
			nodes: [{ id: 'a1', name: 'Trigger', type, typeVersion: 2, position: [0, 0], parameters: params }],
			connections: {},
			active: true,
			nodeTypes: new HarnessNodeTypes({ [type]: webhookTrigger }),
		});
		const [webhook] = description.webhooks as IWebhookDescription[];
		// Otherwise n8n's webhook server evaluates the path expression in an isolate, built for each delivery when
		// none is free: under a burst, deliveries queued behind those builds past RunComfy's 10 s.
		expect(webhookDescriptionIsNativelyResolvable(webhook)).toBe(true);
		expect(resolveWebhookDescriptionField(workflow.getNode('Trigger')!, webhook, 'path')).toEqual({ resolved: true, value: ROUTE_SEGMENT });
	});

	it('publishing refuses a missing or weak Secret Path Token and accepts a good one', async () => {
		for (const pathToken of ['', 'short', 'has spaces in it 0123456789', 'slash/inside/0123456789']) {
			await expect(activate({ node: webhookTrigger, parameters: { ...params, pathToken } })).rejects.toMatchObject({
				message: 'The Secret Path Token is missing or too weak',
			});
		}
		await expect(activate({ node: webhookTrigger, parameters: params })).resolves.toBeUndefined();
	});
});

describe('RunComfy Webhook Trigger: downloads and restarts', () => {
	let sb: Sandbox;
	let dep: string;
	let succeeded: IDataObject;
	let requestId: string;
	beforeAll(async () => {
		sb = await openSandbox();
		dep = sb.stable.deployments.textToImage;
		requestId = await submitInference(sb, dep);
		await runReaches(sb, requestId, 'completed');
		succeeded = (await client(sb).get(`${sb.urls.serverless}/prod/v2/deployments/${dep}/requests/${requestId}/result`)).data;
	});
	afterAll(async () => await sb.close());

	const delivery = (extra: IDataObject = {}): IDataObject => ({
		...succeeded,
		request_id: requestId,
		deployment_id: dep,
		status: 'succeeded',
		...extra,
	});

	it('answers RunComfy first, then downloads the allowed files of the confirmed result into binary data', async () => {
		const allowedUrl = (((succeeded.outputs as IDataObject)['9'] as IDataObject).images as IDataObject[])[0].url as string;
		sb.clearLog();
		let fileRequestsWhenAnswered = -1;
		const result = await deliver({
			node: webhookTrigger,
			parameters: { ...params, downloadOutputs: true },
			credentials: credentialsFor(sb),
			store: { data: {} },
			body: delivery(),
			workflowId: 'webhook-downloads',
			onAnswer: () => {
				fileRequestsWhenAnswered = sb.log().filter((e) => e.api === 'files' || e.api === 'foreign').length;
			},
		});
		expect(result).toMatchObject({ status: 200, started: true, body: { received: true, started: true, request_id: requestId } });
		expect(fileRequestsWhenAnswered).toBe(0);

		const item = result.items[0];
		expect(item.binary?.data).toMatchObject({ mimeType: 'image/png' });
		const expected = Buffer.from((await client(sb).get(allowedUrl, { responseType: 'arraybuffer' })).data as ArrayBuffer);
		expect((await readBinary(item)).equals(expected)).toBe(true);
		expect(item.json.skipped_downloads).toBeUndefined();
	});

	it('files on hosts the credential does not allow are listed, never fetched', async () => {
		const url = (((succeeded.outputs as IDataObject)['9'] as IDataObject).images as IDataObject[])[0].url as string;
		sb.clearLog();
		const result = await deliver({
			node: webhookTrigger,
			parameters: { ...params, downloadOutputs: true },
			// Only the sandbox's "foreign" host: its own file host is not allowed.
			credentials: credentialsFor(sb, { allowedDownloadHosts: new URL(sb.urls.foreignFiles).hostname }),
			store: { data: {} },
			body: delivery(),
			workflowId: 'webhook-downloads-skipped',
		});
		expect(result.started).toBe(true);
		expect(result.items[0].binary).toBeUndefined();
		expect(result.items[0].json.skipped_downloads).toEqual([
			{ path: 'outputs["9"].images[0].url', url, reason: expect.stringMatching(/not in the allowed download hosts/) },
		]);
		expect(sb.log().filter((e) => e.api === 'files')).toHaveLength(0);
	});

	it('"One Item per File" starts the workflow with one item per output file, in the chosen binary field', async () => {
		const allowedUrl = (((succeeded.outputs as IDataObject)['9'] as IDataObject).images as IDataObject[])[0].url as string;
		const result = await deliver({
			node: webhookTrigger,
			parameters: { ...params, downloadOutputs: true, outputFiles: 'oneItemPerFile', outputBinaryField: 'image' },
			credentials: credentialsFor(sb),
			store: { data: {} },
			body: delivery(),
			workflowId: 'webhook-per-file',
		});
		expect(result.started).toBe(true);
		expect(result.items.map((i) => i.json.file_url)).toEqual([allowedUrl]);
		expect(result.items[0].binary?.image).toMatchObject({ mimeType: 'image/png' });
		expect(result.items[0].json).toMatchObject({ request_id: requestId, event: 'request.succeeded' });
	});

	it('a Max Download Size that is not a number downloads nothing and says so; the workflow still starts', async () => {
		const result = await deliver({
			node: webhookTrigger,
			parameters: { ...params, downloadOutputs: true, maxDownloadSizeMb: 'abc' },
			credentials: credentialsFor(sb),
			store: { data: {} },
			body: delivery(),
			workflowId: 'webhook-bad-size',
		});
		expect(result.started).toBe(true);
		expect(result.items[0].binary).toBeUndefined();
		expect(result.items[0].json.download_error).toMatch(/"Max Download Size \(MB\)" must be a number from 1 to 2048/);
	});

	it('a duplicate that arrives after n8n restarted is recognised from the saved static data', async () => {
		const store: StaticDataStore = { data: {} };
		const send = async (node: RunComfyWebhookTrigger) =>
			await deliver({ node, parameters: params, credentials: credentialsFor(sb), store, body: delivery(), workflowId: 'webhook-restart' });
		expect((await send(webhookTrigger)).started).toBe(true);

		// A new n8n process: the node's module loaded afresh (nothing in memory), the static data as saved.
		const Restarted = freshNodeClass();
		expect(Restarted).toBeDefined();
		expect(Restarted).not.toBe(RunComfyWebhookTrigger);
		const afterRestart = await send(new Restarted!());
		expect(afterRestart).toMatchObject({ status: 200, started: false, body: { reason: 'already delivered' } });

		// Without the saved copy, the fresh process would have started it again.
		const Unsaved = freshNodeClass();
		const fresh = await deliver({
			node: new Unsaved!(),
			parameters: params,
			credentials: credentialsFor(sb),
			store: { data: {} },
			body: delivery(),
			workflowId: 'webhook-restart',
		});
		expect(fresh.started).toBe(true);
	});
});

/** The node's class from its module loaded afresh (nothing in memory), as a new n8n process loads it. */
function freshNodeClass(): typeof RunComfyWebhookTrigger | undefined {
	let fresh: typeof RunComfyWebhookTrigger | undefined;
	jest.isolateModules(() => {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const loaded = require('../../nodes/RunComfyWebhookTrigger/RunComfyWebhookTrigger.node') as {
			RunComfyWebhookTrigger: typeof RunComfyWebhookTrigger;
		};
		fresh = loaded.RunComfyWebhookTrigger;
	});
	return fresh;
}
