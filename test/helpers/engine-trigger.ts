/**
 * In-process harness of the two trigger nodes, built on the engine harness's runtime: real n8n-core PollContext /
 * PollTriggerExecutor and WebhookContext, with the WORKFLOW's static data under the test's control, so node names
 * and ids, renames and what n8n saves between executions can be exercised.
 *
 * `pollWorkflow()` keeps the static data object it is given (as n8n's long-lived active workflow does); `poll()`
 * is the same for one node's static data. `deliver()` behaves like a webhook request in n8n 2.41
 * (LiveWebhooks.executeWebhook): it loads a copy of the static data from the `store` ("the database row") when the
 * request arrives, runs webhook(), and writes the whole static data back only after the answer, so parallel
 * deliveries see stale copies exactly as in n8n. It answers the way n8n's WebhookHelpers do for responseMode
 * "onReceived". Tests import these through ./engine.ts or directly.
 */
import { HookContext, PollContext, PollTriggerExecutor, WebhookContext } from 'n8n-core';
import type {
	IDataObject,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	IPollFunctions,
	IVersionedNodeType,
	IWebhookData,
	IWebhookResponseData,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';
import { UnexpectedError, Workflow } from 'n8n-workflow';

import {
	HarnessNodeTypes,
	createAdditionalData,
	defaultTypeVersion,
	getRuntime,
	getService,
	qualifiedTypeName,
	registerCleanup,
} from './engine-runtime';
import type { PollOptions, RunComfyCredentialData } from './engine-types';
import { NODE_CREDENTIALS, credentialsHelperFor, defaultNodeName, readBinaryOf } from './engine-workflow';

registerCleanup();

interface NodeOptions {
	node: INodeType | IVersionedNodeType;
	parameters: INodeParameters;
	/** Default: the node's default name. */
	nodeName?: string;
	/** Default: 'trigger-node'. */
	nodeId?: string;
	workflowId?: string;
	typeVersion?: number;
}

function nodeOf(opts: NodeOptions, extra: Partial<INode> = {}): INode {
	return {
		id: opts.nodeId ?? 'trigger-node',
		name: opts.nodeName ?? defaultNodeName(opts.node),
		type: qualifiedTypeName(opts.node),
		typeVersion: opts.typeVersion ?? defaultTypeVersion(opts.node),
		position: [0, 0],
		parameters: structuredClone(opts.parameters),
		credentials: structuredClone(NODE_CREDENTIALS),
		...extra,
	};
}

// ------------------------------------------------------------------------------------------------------------
// poll

export interface PollRun extends NodeOptions {
	credentials: RunComfyCredentialData;
	/** The workflow's static data (all of it); pass the same object to later polls. */
	workflowStaticData: IDataObject;
	/** 'trigger' (default): a poll of a published workflow. 'manual': "Fetch Test Event". */
	mode?: 'trigger' | 'manual';
}

/**
 * Runs poll() through n8n-core's PollTriggerExecutor with a real PollContext; resolves with what it emitted
 * (null for nothing) and rejects with the poll's error (in manual mode n8n throws it instead of emitting it).
 */
export async function pollWorkflow(opts: PollRun): Promise<INodeExecutionData[][] | null> {
	await getRuntime();
	const mode = opts.mode ?? 'trigger';
	const node = nodeOf(opts);
	const workflow = new Workflow({
		id: opts.workflowId ?? 'harness-poll-workflow',
		name: 'RunComfy harness poll workflow',
		nodes: [node],
		connections: {},
		active: mode === 'trigger',
		nodeTypes: new HarnessNodeTypes({ [node.type]: opts.node }),
		staticData: opts.workflowStaticData,
	});
	const additionalData = createAdditionalData({ credentialsHelper: credentialsHelperFor(opts.credentials), workflowId: workflow.id });
	let emitted: INodeExecutionData[][] | null = null;
	let emittedError: Error | undefined;
	const workflowNode = workflow.getNode(node.name) ?? node;
	const pollFunctions = new PollContext(
		workflow,
		workflowNode,
		additionalData,
		mode,
		mode === 'manual' ? 'manual' : 'activate',
		(data) => {
			emitted = data;
		},
		(error) => {
			emittedError = error;
		},
	) as IPollFunctions;
	const executor = getService(PollTriggerExecutor).create(workflow, workflowNode, pollFunctions, () => true);
	await executor(mode === 'manual');
	if (emittedError) throw emittedError;
	return emitted;
}

/** pollWorkflow() for one node's static data (`opts.staticData`; pass the same object to keep the cursor). */
export async function poll(opts: PollOptions): Promise<INodeExecutionData[][] | null> {
	const name = defaultNodeName(opts.node);
	// n8n keeps a node's static data under `node:<name>`; the proxy writes through to opts.staticData.
	return await pollWorkflow({ ...opts, workflowStaticData: { [`node:${name}`]: opts.staticData } });
}

// ------------------------------------------------------------------------------------------------------------
// webhook

/** The database row of a workflow's static data, as deliveries load and save it. */
export interface StaticDataStore {
	data: IDataObject;
}

export interface DeliveryRun extends NodeOptions {
	node: INodeType;
	credentials?: RunComfyCredentialData;
	store: StaticDataStore;
	body: unknown;
	/** Default: `/webhook/<webhookId>/<pathToken parameter>` (the production URL's path). */
	url?: string;
	webhookId?: string;
	/** 'webhook' (default): a production delivery. 'manual': "Listen for test event". */
	mode?: 'webhook' | 'manual';
	/** Called when webhook() answers the HTTP request itself (before it returns). */
	onAnswer?: (status: number, body: unknown) => void;
}

export interface DeliveryResult {
	/** The HTTP status n8n answers with. */
	status: number;
	body: unknown;
	/** Whether an execution starts (webhook() returned workflowData). */
	started: boolean;
	items: INodeExecutionData[];
	raw: IWebhookResponseData;
}

export const DEFAULT_WEBHOOK_ID = '5b8f0e2a-6c1d-4e3f-9a7b-2c4d6e8f0a1b';

class FakeResponse {
	statusCode = 200;
	body: unknown;
	headersSent = false;

	constructor(private readonly onAnswer?: (status: number, body: unknown) => void) {}

	status(code: number): this {
		this.statusCode = code;
		return this;
	}

	json(body: unknown): this {
		if (this.headersSent) throw new UnexpectedError('The response was already sent');
		this.body = body;
		this.headersSent = true;
		this.onAnswer?.(this.statusCode, body);
		return this;
	}

	send(body: unknown): this {
		return this.json(body);
	}

	end(): this {
		this.headersSent = true;
		return this;
	}
}

/** The registration of the node's webhook: `<webhook id>/<pathToken parameter>`, POST. */
function webhookDataOf(
	opts: NodeOptions & { node: INodeType },
	node: INode,
	workflow: Workflow,
	additionalData: IWorkflowExecuteAdditionalData,
): IWebhookData {
	const description = opts.node.description.webhooks?.[0];
	if (!description || !node.webhookId) throw new UnexpectedError('The node has no webhook');
	return {
		httpMethod: 'POST',
		node: node.name,
		path: `${node.webhookId}/${String(opts.parameters.pathToken ?? '')}`,
		webhookDescription: description,
		workflowId: workflow.id,
		workflowExecuteAdditionalData: additionalData,
		webhookId: node.webhookId,
	};
}

const jsonCopy = <T>(value: T): T => JSON.parse(JSON.stringify(value ?? {})) as T;

export async function deliver(opts: DeliveryRun): Promise<DeliveryResult> {
	// The request arrives: n8n loads the workflow, its static data as it is in the database now.
	const loaded = jsonCopy(opts.store.data);
	await getRuntime();
	const webhookId = opts.webhookId ?? DEFAULT_WEBHOOK_ID;
	const node = nodeOf(opts, { webhookId });
	const url = opts.url ?? `/webhook/${webhookId}/${String(opts.parameters.pathToken ?? '')}`;
	const workflow = new Workflow({
		id: opts.workflowId ?? 'harness-webhook-workflow',
		name: 'RunComfy harness webhook workflow',
		nodes: [node],
		connections: {},
		active: opts.mode !== 'manual',
		nodeTypes: new HarnessNodeTypes({ [node.type]: opts.node }),
		staticData: loaded,
	});
	const workflowNode = workflow.getNode(node.name) ?? node;
	const req = { method: 'POST', url, originalUrl: url, path: url.split('?')[0], body: opts.body, headers: {}, params: {}, query: {} };
	const res = new FakeResponse(opts.onAnswer);
	const additionalData = {
		...createAdditionalData({ credentialsHelper: credentialsHelperFor(opts.credentials), workflowId: workflow.id }),
		httpRequest: req,
		httpResponse: res,
	} as unknown as IWorkflowExecuteAdditionalData;
	const webhookData = webhookDataOf(opts, node, workflow, additionalData);
	const mode = opts.mode ?? 'webhook';
	const context = new WebhookContext(workflow, workflowNode, additionalData, mode, webhookData, [], null);
	// n8n takes an expression isolate for the webhook phase; the node reads no expressions there, and one shared
	// isolate would only queue the parallel deliveries of a test behind each other.
	const raw = await (opts.node.webhook as NonNullable<INodeType['webhook']>).call(context);

	let status: number;
	let body: unknown;
	if (raw.noWebhookResponse) {
		if (!res.headersSent) throw new UnexpectedError('webhook() asked n8n not to answer but sent no answer itself');
		status = res.statusCode;
		body = res.body;
	} else {
		// responseMode "onReceived" with responseData '': the webhookResponse, else n8n's default text.
		status = 200;
		body = raw.webhookResponse ?? (raw.workflowData ? { message: 'Workflow was started' } : { message: 'Webhook call received' });
	}
	// After the answer, n8n writes the whole static data back if webhook() changed it.
	if ((workflow.staticData as { __dataChanged?: boolean }).__dataChanged) opts.store.data = jsonCopy(workflow.staticData);
	return { status, body, started: raw.workflowData !== undefined, items: raw.workflowData?.[0] ?? [], raw };
}

/**
 * What n8n does with the node's webhookMethods when the workflow is published (WebhookService
 * .createWebhookIfNotExists): checkExists, then create if that says false. Rejects with their error.
 */
export async function activate(opts: NodeOptions & { node: INodeType; webhookId?: string }): Promise<void> {
	await getRuntime();
	const webhookId = opts.webhookId ?? DEFAULT_WEBHOOK_ID;
	const node = nodeOf(opts, { webhookId });
	const workflow = new Workflow({
		id: opts.workflowId ?? 'harness-webhook-workflow',
		nodes: [node],
		connections: {},
		active: true,
		nodeTypes: new HarnessNodeTypes({ [node.type]: opts.node }),
	});
	const additionalData = createAdditionalData({ credentialsHelper: credentialsHelperFor(), workflowId: workflow.id });
	const methods = opts.node.webhookMethods?.default;
	if (!methods) throw new UnexpectedError('The node has no webhook methods');
	const webhookData = webhookDataOf(opts, node, workflow, additionalData);
	const context = new HookContext(workflow, workflow.getNode(node.name) ?? node, additionalData, 'trigger', 'activate', webhookData);
	if (!(await methods.checkExists.call(context))) await methods.create.call(context);
}

/** Reads a binary property of a delivered item back from n8n's binary store. */
export const readBinary = readBinaryOf;
