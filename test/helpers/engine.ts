/* eslint-disable @n8n/community-nodes/no-restricted-globals */
/**
 * In-process test harness: runs our nodes inside the real n8n engine (n8n-core WorkflowExecute,
 * n8n-workflow expressions on isolated-vm, n8n-core's HTTP helpers and binary data service in
 * filesystem mode). No n8n server, no mocks of the node contexts.
 *
 *   const result = await runNode({ node: new RunComfyModel(), parameters: {...}, credentials });
 *   expect(result.status).toBe('success');
 *   expect(result.items[0].json.request_id).toBe('...');
 *
 * The workflow that runs is `Manual Trigger -> Input Items -> <node under test>`; the middle node
 * emits `inputItems` (binary via n8n's prepareBinaryData), so input binary, expressions such as
 * `{{ $json.prompt }}` and pairedItem behave exactly as in a user's workflow.
 *
 * Set N8N_LOG_LEVEL=debug to see n8n's own log output while debugging a test.
 */
import {
	BinaryDataService,
	LoadOptionsContext,
	PollContext,
	PollTriggerExecutor,
	RoutingNode,
	ExecuteContext,
	SupplyDataContext,
	WorkflowExecute,
} from 'n8n-core';
import type {
	ExecutionError,
	ICredentialDataDecryptedObject,
	ICredentialType,
	IDataObject,
	IExecuteFunctions,
	IExecuteData,
	INode,
	INodeExecutionData,
	INodeListSearchResult,
	INodeParameters,
	INodePropertyOptions,
	INodeType,
	INodeTypeDescription,
	IPollFunctions,
	IRun,
	ITaskData,
	ITriggerFunctions,
	ITriggerResponse,
	IVersionedNodeType,
	IWorkflowBase,
	IWorkflowSettings,
	ResourceMapperFields,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import {
	NodeConnectionTypes,
	NodeHelpers,
	NodeOperationError,
	UnexpectedError,
	Workflow,
	createRunExecutionData,
} from 'n8n-workflow';

import { RunComfyApi } from '../../credentials/RunComfyApi.credentials';
import {
	HarnessCredentialsHelper,
	HarnessNodeTypes,
	createAdditionalData,
	createHooks,
	defaultTypeVersion,
	getRuntime,
	getService,
	nextExecutionId,
	qualifiedTypeName,
	registerCleanup,
} from './engine-runtime';

export { disposeEngine, getRuntime } from './engine-runtime';

registerCleanup();

// ---------------------------------------------------------------------------------------------
// Public types

export interface RunComfyCredentialData {
	accessToken: string;
	modelApiBaseUrl: string;
	serverlessApiBaseUrl: string;
	trainerApiBaseUrl: string;
	allowedDownloadHosts: string;
}

/** What n8n's prepareBinaryData takes: `Buffer | Readable` (derived, so 'stream' is not imported here). */
export type BinaryInput = Parameters<IExecuteFunctions['helpers']['prepareBinaryData']>[0];

export interface InputItem {
	json: IDataObject;
	/** `data` is a Buffer or a Readable stream; both go through prepareBinaryData as in a user's workflow. */
	binary?: Record<string, { data: BinaryInput; mimeType: string; fileName: string }>;
}

export interface RunNodeOptions {
	/** e.g. `new RunComfyModel()`; registered as `n8n-nodes-runcomfy.<description.name>`. */
	node: INodeType | IVersionedNodeType;
	/** The node's parameters as a user would set them (defaults are filled in by n8n). */
	parameters: INodeParameters;
	/** Stored under credential type 'runComfyApi' and attached to the node. */
	credentials?: RunComfyCredentialData;
	/** Default `[{ json: {} }]`; emitted by a preceding node so pairedItem and `$json` work. */
	inputItems?: InputItem[];
	/** Sets `node.onError = 'continueRegularOutput'` (the "On Error: Continue" setting). */
	continueOnFail?: boolean;
	/** Default: the node's highest version. */
	typeVersion?: number;
	/**
	 * Called when the node under test starts executing (n8n's `nodeExecuteBefore` hook for it);
	 * `stop()` cancels the execution like the editor's Stop button: the PCancelable returned by
	 * WorkflowExecute.processRunExecutionData is cancelled, which aborts
	 * `getExecutionCancelSignal()` and runs `onExecutionCancellation` handlers.
	 * Call stop() later, when the node is demonstrably mid-way (e.g. the sandbox saw the submit).
	 * Calling it synchronously inside onStart means Stop was pressed just as the node started: its
	 * execute() then begins with an already-aborted signal (handlers registered after that do not run).
	 */
	onStart?: (stop: () => void) => void;
	/**
	 * Run the node the way an AI agent calls it as a tool: the node's `execute` receives n8n-core's
	 * real SupplyDataContext with connection type `ai_tool` (so `this.isToolExecution()` is true),
	 * whose single input item is `{ json: inputItems[0].json }` (the agent's tool arguments) on the
	 * `ai_tool` input. Everything else (workflow, credentials, cancel signal, continue-on-fail, the
	 * returned items) is the normal runNode path. Best effort: the agent's own wrapping (JSON string
	 * response, binary stripping) is not reproduced.
	 */
	asTool?: boolean;
	/** Execution mode; default 'manual' (the user clicked "Execute workflow"). */
	mode?: 'manual' | 'trigger';
	/** Extra workflow settings (timezone, binaryMode, ...). executionOrder is 'v1'. */
	workflowSettings?: IWorkflowSettings;
	/** Node name in the workflow; default the node's `defaults.name` or display name. */
	nodeName?: string;
	/** Extra INode fields for the node under test, e.g. `{ retryOnFail: true }`. */
	nodeOverrides?: Partial<INode>;
	/**
	 * After stop(), how long the harness waits for the node to settle before failing the test
	 * with a clear message (a node that ignores the cancel signal would otherwise hang). 10 s.
	 */
	stopGraceMs?: number;
}

export interface RunNodeError {
	message: string;
	description?: string;
	httpCode?: string;
	itemIndex?: number;
	name: string;
	/** The execution error exactly as n8n recorded it in the run data. */
	raw: ExecutionError;
}

export interface RunNodeResult {
	/** The execution status: 'success' | 'error' | 'canceled' | 'waiting' ... ('canceled' after stop()). */
	status: string;
	/** First output of the node under test ([] if it failed). */
	items: INodeExecutionData[];
	/** All outputs of the node under test. */
	outputs: INodeExecutionData[][];
	error?: RunNodeError;
	/** Reads binary data (filesystem mode) back; property defaults to 'data'. */
	readBinary(item: INodeExecutionData, property?: string): Promise<Buffer>;
	/** Absolute path of a filesystem-mode binary (proves it was streamed to disk, not kept inline). */
	binaryPath(item: INodeExecutionData, property?: string): string;
	/** The full run as n8n produced it. */
	run: IRun;
	/** The run data of the node under test (last run), if it ran. */
	taskData?: ITaskData;
	/** The node under test as it was in the workflow (with n8n's parameter defaults filled in). */
	nodeDefinition: INode;
	/** Whether stop() was called. */
	stopped: boolean;
	/** Whether the node under test executed (n8n skips a node that receives no items, e.g. inputItems: []). */
	ran: boolean;
	/**
	 * How many items the node's execute() returned WITHOUT `pairedItem`. Assert 0 to check the
	 * project rule "every output item has pairedItem": `items[].pairedItem` alone cannot show it,
	 * because n8n's engine fills pairedItem in when input and output counts make it unambiguous.
	 */
	unpairedItems: number;
}

// ---------------------------------------------------------------------------------------------
// Helper node types (mirror n8n-nodes-base's Manual Trigger and a simple items emitter)

const CREDENTIAL_TYPE = 'runComfyApi';
const credentialType: ICredentialType = new RunComfyApi();
const credentialTypes: Record<string, ICredentialType> = { [CREDENTIAL_TYPE]: credentialType };

const START_NODE_NAME = 'When clicking ‘Execute workflow’';
const SOURCE_NODE_NAME = 'Input Items';
const MANUAL_TRIGGER_TYPE = 'n8n-nodes-base.manualTrigger';
const ITEMS_SOURCE_TYPE = 'n8n-nodes-runcomfy-harness.inputItems';

class HarnessManualTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Manual Trigger',
		name: 'manualTrigger',
		group: ['trigger'],
		version: 1,
		description: 'Runs the flow on clicking a button in n8n',
		defaults: { name: 'When clicking ‘Execute workflow’' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	};

	async trigger(this: ITriggerFunctions): Promise<ITriggerResponse> {
		const manualTriggerFunction = async () => {
			this.emit([this.helpers.returnJsonArray([{}])]);
		};
		return { manualTriggerFunction };
	}
}

function itemsSourceType(inputItems: InputItem[]): INodeType {
	return {
		description: {
			displayName: 'Input Items',
			name: 'inputItems',
			group: ['transform'],
			version: 1,
			description: 'Emits the test input items',
			defaults: { name: SOURCE_NODE_NAME },
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			properties: [],
		},
		async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
			const out: INodeExecutionData[] = [];
			for (const item of inputItems) {
				const entry: INodeExecutionData = { json: structuredClone(item.json), pairedItem: { item: 0 } };
				if (item.binary) {
					entry.binary = {};
					for (const [key, bin] of Object.entries(item.binary)) {
						entry.binary[key] = await this.helpers.prepareBinaryData(bin.data, bin.fileName, bin.mimeType);
					}
				}
				out.push(entry);
			}
			return [out];
		},
	};
}

/** What the node's own execute() returned, observed before n8n post-processes the items. */
interface ExecuteObservation {
	/** Items returned without `pairedItem` (n8n's assignPairedItems may fill some in afterwards). */
	unpairedItems: number;
}

/**
 * Wraps the node type under test: records what execute() returned (for `unpairedItems`) and, with
 * asTool, hands execute() a SupplyDataContext on `ai_tool` as an AI agent's tool call would.
 * The wrapper inherits everything else from the node type (description, methods, ...).
 */
function wrapNodeType(nodeType: INodeType, options: { asTool: boolean }, observation: ExecuteObservation): INodeType {
	const execute = nodeType.execute;
	if (!execute) {
		if (options.asTool) throw new UnexpectedError('asTool needs a node type with an execute() method');
		return nodeType;
	}
	const wrapper = Object.create(nodeType) as INodeType;
	wrapper.execute = async function (this: IExecuteFunctions, ...args: unknown[]) {
		const context = options.asTool ? toolContext(this) : this;
		const result = (await (execute as (...a: unknown[]) => Promise<unknown>).apply(context, args)) as
			| INodeExecutionData[][]
			| null;
		if (Array.isArray(result)) {
			for (const output of result) {
				for (const item of output ?? []) if (item && item.pairedItem === undefined) observation.unpairedItems++;
			}
		}
		return result as INodeExecutionData[][];
	};
	return wrapper;
}

/** The context an AI agent's tool call gives a node: n8n-core's SupplyDataContext on `ai_tool`. */
function toolContext(executeContext: IExecuteFunctions): IExecuteFunctions {
	// Built from the real ExecuteContext's own fields, so workflow, run data and signal are shared.
	const ctx = executeContext as unknown as {
		workflow: Workflow;
		node: INode;
		additionalData: ConstructorParameters<typeof SupplyDataContext>[2];
		mode: WorkflowExecuteMode;
		runExecutionData: ConstructorParameters<typeof SupplyDataContext>[4];
		runIndex: number;
		executeData: IExecuteData;
	};
	const toolArgs = executeContext.getInputData()[0]?.json ?? {};
	const toolInput = [{ json: toolArgs }];
	const supplyCtx = new SupplyDataContext(
		ctx.workflow,
		ctx.node,
		ctx.additionalData,
		ctx.mode,
		ctx.runExecutionData,
		ctx.runIndex,
		toolInput,
		{ [NodeConnectionTypes.AiTool]: [toolInput] },
		NodeConnectionTypes.AiTool,
		ctx.executeData,
		[],
		executeContext.getExecutionCancelSignal(),
	);
	return supplyCtx as unknown as IExecuteFunctions;
}

// ---------------------------------------------------------------------------------------------
// Shared plumbing

function credentialsHelperFor(credentials?: RunComfyCredentialData): HarnessCredentialsHelper {
	const data: Record<string, ICredentialDataDecryptedObject> = {};
	if (credentials) data[CREDENTIAL_TYPE] = { ...credentials };
	return new HarnessCredentialsHelper(credentialTypes, data);
}

const NODE_CREDENTIALS = { [CREDENTIAL_TYPE]: { id: 'cred-runcomfy-1', name: 'RunComfy account' } };

function defaultNodeName(node: INodeType | IVersionedNodeType): string {
	const description = node.description as INodeTypeDescription;
	return description.defaults?.name ?? description.displayName;
}

async function readBinaryOf(item: INodeExecutionData, property = 'data'): Promise<Buffer> {
	const binary = item.binary?.[property];
	if (!binary) {
		throw new UnexpectedError(
			`Item has no binary property "${property}" (has: ${Object.keys(item.binary ?? {}).join(', ') || 'none'})`,
		);
	}
	const { binaryDataService } = await getRuntime();
	return await binaryDataService.getAsBuffer(binary);
}

function binaryPathOf(item: INodeExecutionData, property = 'data'): string {
	const binary = item.binary?.[property];
	if (!binary?.id) {
		throw new UnexpectedError(`Binary property "${property}" is not stored in filesystem mode (no id)`);
	}
	return getService(BinaryDataService).getPath(binary.id);
}

function toRunNodeError(error: ExecutionError): RunNodeError {
	const e = error as ExecutionError & {
		httpCode?: string | null;
		description?: string | null;
		context?: IDataObject;
		name?: string;
	};
	const itemIndex = e.context?.itemIndex;
	return {
		message: e.message,
		description: e.description ?? undefined,
		httpCode: e.httpCode ?? undefined,
		itemIndex: typeof itemIndex === 'number' ? itemIndex : undefined,
		name: e.name ?? (e.constructor as { name?: string } | undefined)?.name ?? 'Error',
		raw: error,
	};
}

// ---------------------------------------------------------------------------------------------
// runNode

export async function runNode(opts: RunNodeOptions): Promise<RunNodeResult> {
	await getRuntime();
	const mode: WorkflowExecuteMode = opts.mode ?? 'manual';
	const typeName = qualifiedTypeName(opts.node);
	const typeVersion = opts.typeVersion ?? defaultTypeVersion(opts.node);
	const nodeName = opts.nodeName ?? defaultNodeName(opts.node);
	const inputItems = opts.inputItems ?? [{ json: {} }];

	const observation: ExecuteObservation = { unpairedItems: 0 };
	const underTest = wrapNodeType(
		NodeHelpers.getVersionedNodeType(opts.node, typeVersion),
		{ asTool: opts.asTool === true },
		observation,
	);
	const nodeTypes = new HarnessNodeTypes({
		[MANUAL_TRIGGER_TYPE]: new HarnessManualTrigger(),
		[ITEMS_SOURCE_TYPE]: itemsSourceType(inputItems),
		[typeName]: underTest,
	});

	const startNode: INode = {
		id: 'harness-start',
		name: START_NODE_NAME,
		type: MANUAL_TRIGGER_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
	};
	const sourceNode: INode = {
		id: 'harness-source',
		name: SOURCE_NODE_NAME,
		type: ITEMS_SOURCE_TYPE,
		typeVersion: 1,
		position: [200, 0],
		parameters: {},
	};
	const testNode: INode = {
		id: 'node-under-test',
		name: nodeName,
		type: typeName,
		typeVersion,
		position: [400, 0],
		parameters: structuredClone(opts.parameters),
		...(opts.credentials ? { credentials: structuredClone(NODE_CREDENTIALS) } : {}),
		...(opts.continueOnFail ? { onError: 'continueRegularOutput' as const } : {}),
		...opts.nodeOverrides,
	};
	const nodes = [startNode, sourceNode, testNode];
	const connections = {
		[START_NODE_NAME]: { main: [[{ node: SOURCE_NODE_NAME, type: NodeConnectionTypes.Main, index: 0 }]] },
		[SOURCE_NODE_NAME]: { main: [[{ node: nodeName, type: NodeConnectionTypes.Main, index: 0 }]] },
	};
	const settings: IWorkflowSettings = { executionOrder: 'v1', ...opts.workflowSettings };
	const workflowId = 'harness-workflow';
	const workflow = new Workflow({
		id: workflowId,
		name: 'RunComfy harness workflow',
		nodes,
		connections,
		active: false,
		nodeTypes,
		settings,
	});

	const executionId = nextExecutionId();
	const workflowData: IWorkflowBase = {
		id: workflowId,
		name: workflow.name ?? '',
		active: false,
		isArchived: false,
		activeVersionId: null,
		nodes,
		connections,
		settings,
		createdAt: new Date(),
		updatedAt: new Date(),
	} as IWorkflowBase;
	const hooks = createHooks(mode, executionId, workflowData);
	const additionalData = createAdditionalData({
		credentialsHelper: credentialsHelperFor(opts.credentials),
		executionId,
		hooks,
		workflowId,
	});
	const runExecutionData = createRunExecutionData({
		executionData: {
			nodeExecutionStack: [{ node: startNode, data: { main: [[{ json: {} }]] }, source: null }],
		},
	});

	const workflowExecute = new WorkflowExecute(additionalData, mode, runExecutionData);
	// Handlers added below run later: the execution only reaches its first hook after an await.
	const execution = workflowExecute.processRunExecutionData(workflow);

	let stopped = false;
	let stopTimer: NodeJS.Timeout | undefined;
	let rejectStop: ((error: Error) => void) | undefined;
	const stopGuard = new Promise<never>((_resolve, reject) => {
		rejectStop = reject;
	});
	stopGuard.catch(() => {});
	const stop = () => {
		if (stopped) return;
		stopped = true;
		execution.cancel();
		const grace = opts.stopGraceMs ?? 10_000;
		stopTimer = setTimeout(() => {
			rejectStop?.(
				new Error(
					`Harness: the node did not settle within ${grace} ms after Stop. Does it observe ` +
						'getExecutionCancelSignal() / pass the signal to sleep() and plain httpRequest()?',
				),
			);
		}, grace);
	};
	let onStartError: unknown;
	let pendingOnStart = opts.onStart;
	hooks.addHandler('nodeExecuteBefore', (name) => {
		const onStart = pendingOnStart;
		if (name !== nodeName || !onStart) return;
		pendingOnStart = undefined;
		try {
			onStart(stop);
		} catch (error) {
			onStartError = error;
			stop();
		}
	});

	let run: IRun;
	try {
		run = await Promise.race([execution, stopGuard]);
	} finally {
		if (stopTimer) clearTimeout(stopTimer);
	}

	if (onStartError) throw onStartError;

	const runData = run.data.resultData.runData;
	const taskData = runData[nodeName]?.at(-1);
	const outputs = (taskData?.data?.main ?? []).map((output) => output ?? []);
	const nodeError = taskData?.error;

	// An error outside the node under test is a harness or test-setup problem: surface it loudly.
	if (!nodeError && run.data.resultData.error && !stopped) {
		const failedNode = Object.entries(runData).find(([, tasks]) => tasks.some((t) => t.error));
		if (failedNode && failedNode[0] !== nodeName) {
			const err = failedNode[1].find((t) => t.error)?.error;
			throw new Error(`Harness: node "${failedNode[0]}" failed before the node under test: ${err?.message}`);
		}
	}

	const errorSource = nodeError ?? (stopped ? undefined : run.data.resultData.error);
	assertTokenAbsent(opts.credentials?.accessToken, { outputs, error: errorSource, resultData: run.data.resultData });
	return {
		status: stopped ? 'canceled' : run.status,
		items: nodeError ? [] : (outputs[0] ?? []),
		outputs: nodeError ? [] : outputs,
		error: errorSource ? toRunNodeError(errorSource) : undefined,
		readBinary: readBinaryOf,
		binaryPath: binaryPathOf,
		run,
		taskData,
		nodeDefinition: workflow.getNode(nodeName) ?? testNode,
		stopped,
		ran: taskData !== undefined,
		unpairedItems: observation.unpairedItems,
	};
}

/**
 * Every run in the whole suite doubles as a token scan: the credential's access token must never appear in
 * what n8n keeps of a run (outputs, errors with their descriptions and causes, the run's result data).
 */
function assertTokenAbsent(token: string | undefined, what: unknown): void {
	const needle = token?.replace(/^bearer\s+/i, '').trim();
	if (!needle || needle.length < 8) return;
	const seen = new WeakSet<object>();
	const text = JSON.stringify(what, (_key, value: unknown) => {
		if (value instanceof Error) {
			return { ...value, message: value.message, stack: value.stack, cause: (value as { cause?: unknown }).cause };
		}
		if (typeof value === 'object' && value !== null) {
			if (seen.has(value)) return undefined;
			seen.add(value);
		}
		return value;
	});
	if (text?.includes(needle)) {
		throw new Error('Harness: the RunComfy access token appeared in the output or error of this run');
	}
}

// ---------------------------------------------------------------------------------------------
// withExecuteContext

export interface WithExecuteContextOptions {
	credentials: RunComfyCredentialData;
	inputItems?: InputItem[];
	parameters?: INodeParameters;
	onStart?: (stop: () => void) => void;
	continueOnFail?: boolean;
	stopGraceMs?: number;
}

/**
 * Runs `fn` with the real ExecuteContext of a throwaway node (type `n8n-nodes-runcomfy.harnessProbe`,
 * credential `runComfyApi`) inside a normal workflow execution: helpers, binary data, cancel signal
 * (via onStart's stop) and parameters (`getNodeParameter` with expressions) are all n8n's own.
 * Resolves with fn's result, or rejects with exactly the error fn threw.
 */
export async function withExecuteContext<T>(
	opts: WithExecuteContextOptions,
	fn: (ctx: IExecuteFunctions) => Promise<T>,
): Promise<T> {
	let outcome: { ok: true; value: T } | { ok: false; error: unknown } | undefined;
	const probe: INodeType = {
		description: {
			displayName: 'Harness Probe',
			name: 'harnessProbe',
			group: ['transform'],
			version: 1,
			description: 'Runs a test callback with a real execute context',
			defaults: { name: 'Harness Probe' },
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			credentials: [{ name: CREDENTIAL_TYPE, required: true }],
			properties: Object.keys(opts.parameters ?? {}).map((name) => ({
				displayName: name,
				name,
				type: 'json' as const,
				default: '',
			})),
		},
		async execute(this: IExecuteFunctions) {
			try {
				outcome = { ok: true, value: await fn(this) };
			} catch (error) {
				outcome = { ok: false, error };
				throw new NodeOperationError(this.getNode(), error as Error);
			}
			return [this.getInputData()];
		},
	};
	const result = await runNode({
		node: probe,
		parameters: opts.parameters ?? {},
		credentials: opts.credentials,
		inputItems: opts.inputItems,
		onStart: opts.onStart,
		continueOnFail: opts.continueOnFail,
		stopGraceMs: opts.stopGraceMs,
	});
	if (!outcome) {
		throw new Error(
			`Harness: the probe node did not run (status ${result.status}${result.error ? `: ${result.error.message}` : ''})`,
		);
	}
	const settled = outcome as { ok: true; value: T } | { ok: false; error: unknown };
	if (!settled.ok) throw settled.error;
	return settled.value;
}

// ---------------------------------------------------------------------------------------------
// Editor methods: listSearch / loadOptions / resourceMapping

export interface EditorMethodOptions {
	node: INodeType | IVersionedNodeType;
	method: string;
	parameters: INodeParameters;
	credentials: RunComfyCredentialData;
	typeVersion?: number;
	/** Parameter path being loaded, as the editor sends it (e.g. 'parameters.inputs'). */
	path?: string;
}

async function withLoadOptionsContext<T>(
	opts: EditorMethodOptions,
	fn: (ctx: LoadOptionsContext, nodeType: INodeType) => Promise<T>,
): Promise<T> {
	await getRuntime();
	const typeName = qualifiedTypeName(opts.node);
	const typeVersion = opts.typeVersion ?? defaultTypeVersion(opts.node);
	const nodeType = NodeHelpers.getVersionedNodeType(opts.node, typeVersion);
	const nodeTypes = new HarnessNodeTypes({ [typeName]: opts.node });
	// The editor sends the node's full parameters (defaults included); do the same.
	const parameters =
		NodeHelpers.getNodeParameters(
			nodeType.description.properties,
			structuredClone(opts.parameters),
			true,
			false,
			{ typeVersion },
			nodeType.description,
		) ?? {};
	const node: INode = {
		id: 'node-in-editor',
		name: defaultNodeName(opts.node),
		type: typeName,
		typeVersion,
		position: [0, 0],
		parameters,
		credentials: structuredClone(NODE_CREDENTIALS),
	};
	const workflow = new Workflow({
		id: 'harness-editor-workflow',
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes,
	});
	const additionalData = createAdditionalData({
		credentialsHelper: credentialsHelperFor(opts.credentials),
		currentNodeParameters: parameters,
		workflowId: workflow.id,
	});
	const ctx = new LoadOptionsContext(workflow, node, additionalData, opts.path ?? 'parameters');
	return await workflow.expression.withIsolate(async () => await fn(ctx, nodeType));
}

function getMethod<K extends 'listSearch' | 'loadOptions' | 'resourceMapping'>(
	nodeType: INodeType,
	kind: K,
	method: string,
): NonNullable<NonNullable<INodeType['methods']>[K]>[string] {
	const fn = nodeType.methods?.[kind]?.[method];
	if (typeof fn !== 'function') {
		const known = Object.keys(nodeType.methods?.[kind] ?? {}).join(', ') || 'none';
		throw new Error(`Node "${nodeType.description.name}" has no ${kind} method "${method}" (has: ${known})`);
	}
	return fn as NonNullable<NonNullable<INodeType['methods']>[K]>[string];
}

export async function listSearch(
	opts: EditorMethodOptions & { filter?: string; paginationToken?: string },
): Promise<INodeListSearchResult> {
	return await withLoadOptionsContext(opts, async (ctx, nodeType) => {
		const fn = getMethod(nodeType, 'listSearch', opts.method);
		return await fn.call(ctx, opts.filter, opts.paginationToken);
	});
}

export async function loadOptions(opts: EditorMethodOptions): Promise<INodePropertyOptions[]> {
	return await withLoadOptionsContext(opts, async (ctx, nodeType) => {
		const fn = getMethod(nodeType, 'loadOptions', opts.method);
		return await fn.call(ctx);
	});
}

export async function resourceMapping(opts: EditorMethodOptions): Promise<ResourceMapperFields> {
	return await withLoadOptionsContext(opts, async (ctx, nodeType) => {
		const fn = getMethod(nodeType, 'resourceMapping', opts.method);
		return await fn.call(ctx);
	});
}

// ---------------------------------------------------------------------------------------------
// poll

export interface PollOptions {
	node: INodeType | IVersionedNodeType;
	parameters: INodeParameters;
	credentials: RunComfyCredentialData;
	/** The node's static data; pass the same object to later calls to keep the cursor. */
	staticData: IDataObject;
	/** 'trigger' (default): an activated workflow's scheduled poll. 'manual': "Fetch test event". */
	mode?: 'trigger' | 'manual';
	typeVersion?: number;
}

/**
 * Runs the trigger's poll() through n8n-core's PollTriggerExecutor with a real PollContext.
 * Resolves with what the poll emitted (null when it returned null); rejects with the poll's error.
 */
export async function poll(opts: PollOptions): Promise<INodeExecutionData[][] | null> {
	await getRuntime();
	const mode = opts.mode ?? 'trigger';
	const typeName = qualifiedTypeName(opts.node);
	const typeVersion = opts.typeVersion ?? defaultTypeVersion(opts.node);
	const node: INode = {
		id: 'trigger-node',
		name: defaultNodeName(opts.node),
		type: typeName,
		typeVersion,
		position: [0, 0],
		parameters: structuredClone(opts.parameters),
		credentials: structuredClone(NODE_CREDENTIALS),
	};
	const nodeTypes = new HarnessNodeTypes({ [typeName]: opts.node });
	const workflow = new Workflow({
		id: 'harness-poll-workflow',
		name: 'RunComfy harness poll workflow',
		nodes: [node],
		connections: {},
		active: mode === 'trigger',
		nodeTypes,
		// n8n keeps a node's static data under `node:<name>`; the proxy writes through to opts.staticData.
		staticData: { [`node:${node.name}`]: opts.staticData },
	});
	const additionalData = createAdditionalData({
		credentialsHelper: credentialsHelperFor(opts.credentials),
		workflowId: workflow.id,
	});
	let emitted: INodeExecutionData[][] | null = null;
	let emittedError: Error | undefined;
	const pollFunctions = new PollContext(
		workflow,
		workflow.getNode(node.name) ?? node,
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
	const executor = getService(PollTriggerExecutor).create(
		workflow,
		workflow.getNode(node.name) ?? node,
		pollFunctions,
		() => true,
	);
	// testingTrigger=true for manual mode: errors are thrown instead of emitted, as n8n does.
	await executor(mode === 'manual');
	if (emittedError) throw emittedError;
	return emitted;
}

// ---------------------------------------------------------------------------------------------
// Credential test button

/**
 * Runs the credential's `test` request the way n8n's CredentialsTester does: a temporary node whose
 * only property routes `test.request`, executed by n8n-core's RoutingNode with the credential's
 * `authenticate` applied through the helper. Returns n8n's result shape.
 */
export async function testCredential(
	credentials: RunComfyCredentialData,
): Promise<{ status: 'OK' | 'Error'; message: string }> {
	await getRuntime();
	const test = credentialType.test;
	if (!test) return { status: 'Error', message: 'No testing function found for this credential.' };
	const helper = credentialsHelperFor(credentials);
	const decrypted = helper.withDefaults(CREDENTIAL_TYPE, { ...credentials });
	const nodeType: INodeType = {
		description: {
			displayName: 'No Operation, do nothing',
			name: 'n8n-nodes-base.noOp',
			group: ['organization'],
			version: 1,
			description: 'No Operation',
			defaults: { name: 'No Operation, do nothing' },
			inputs: [NodeConnectionTypes.Main],
			outputs: [NodeConnectionTypes.Main],
			credentials: [{ name: CREDENTIAL_TYPE, required: true }],
			properties: [
				{
					displayName: 'Temp',
					name: 'temp',
					type: 'string',
					routing: { request: test.request },
					default: '',
				},
			],
		},
	};
	const node: INode = {
		id: 'temp',
		name: 'Temp-Node',
		type: 'n8n-nodes-base.noOp',
		typeVersion: 1,
		position: [0, 0],
		parameters: {},
		credentials: structuredClone(NODE_CREDENTIALS),
	};
	const workflow = new Workflow({
		nodes: [node],
		connections: {},
		active: false,
		nodeTypes: new HarnessNodeTypes({ 'n8n-nodes-base.noOp': nodeType }),
	});
	const additionalData = createAdditionalData({ credentialsHelper: helper });
	const executeData: IExecuteData = { node, data: {}, source: null };
	const context = new ExecuteContext(
		workflow,
		node,
		additionalData,
		'internal',
		createRunExecutionData({}),
		0,
		[],
		{ main: [[{ json: {} }]] },
		executeData,
		[],
	);
	const routingNode = new RoutingNode(context, nodeType, {
		id: 'cred-runcomfy-1',
		name: 'RunComfy account',
		type: CREDENTIAL_TYPE,
		data: decrypted,
	});
	try {
		await workflow.expression.withIsolate(async () => await routingNode.runNode());
	} catch (error) {
		const cause = (error as { cause?: { response?: { status: number; statusText?: string }; code?: string } })
			.cause;
		if (cause?.response) {
			const { status, statusText } = cause.response;
			if (status < 199 || status > 299) {
				return { status: 'Error', message: statusText || `Received HTTP status code: ${status}` };
			}
		} else if (cause?.code) {
			return { status: 'Error', message: cause.code };
		}
		return { status: 'Error', message: String((error as Error).message) };
	}
	return { status: 'OK', message: 'Connection successful!' };
}
