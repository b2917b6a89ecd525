/* eslint-disable @n8n/community-nodes/no-restricted-globals */
/**
 * runNode (a node under test inside a real n8n workflow execution) and withExecuteContext (a test callback
 * with the real execute context of a throwaway node).
 */
import { WorkflowExecute } from 'n8n-core';
import type { IExecuteFunctions, INode, INodeType, IRun, IWorkflowBase, IWorkflowSettings, WorkflowExecuteMode } from 'n8n-workflow';
import { NodeConnectionTypes, NodeHelpers, NodeOperationError, Workflow, createRunExecutionData } from 'n8n-workflow';

import {
	HarnessNodeTypes,
	createAdditionalData,
	createHooks,
	defaultTypeVersion,
	getRuntime,
	nextExecutionId,
	qualifiedTypeName,
} from './engine-runtime';
import type { RunNodeOptions, RunNodeResult, WithExecuteContextOptions } from './engine-types';
import {
	CREDENTIAL_TYPE,
	HarnessManualTrigger,
	ITEMS_SOURCE_TYPE,
	MANUAL_TRIGGER_TYPE,
	NODE_CREDENTIALS,
	SOURCE_NODE_NAME,
	START_NODE_NAME,
	assertTokenAbsent,
	binaryPathOf,
	credentialsHelperFor,
	defaultNodeName,
	itemsSourceType,
	readBinaryOf,
	toRunNodeError,
	wrapNodeType,
} from './engine-workflow';
import type { ExecuteObservation } from './engine-workflow';

// ---------------------------------------------------------------------------------------------
// runNode

export async function runNode(opts: RunNodeOptions): Promise<RunNodeResult> {
	await getRuntime();
	const mode: WorkflowExecuteMode = opts.mode ?? 'manual';
	const typeName = qualifiedTypeName(opts.node) + (opts.asAgentNode ? 'Tool' : '');
	const typeVersion = opts.typeVersion ?? defaultTypeVersion(opts.node);
	const nodeName = opts.nodeName ?? defaultNodeName(opts.node);
	const inputItems = opts.inputItems ?? [{ json: {} }];

	const observation: ExecuteObservation = { unpairedItems: 0 };
	const underTest = wrapNodeType(
		NodeHelpers.getVersionedNodeType(opts.node, typeVersion),
		{ asTool: opts.asTool === true, viaToolHandler: opts.viaToolHandler },
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
		...(opts.workflowStaticData ? { staticData: opts.workflowStaticData } : {}),
	});

	const executionId = opts.executionId ?? nextExecutionId();
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
		...(opts.customData ? { resultData: { runData: {}, metadata: { ...opts.customData } } } : {}),
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
		workflow,
		additionalData,
		taskData,
		nodeDefinition: workflow.getNode(nodeName) ?? testNode,
		stopped,
		ran: taskData !== undefined,
		unpairedItems: observation.unpairedItems,
	};
}

// ---------------------------------------------------------------------------------------------
// withExecuteContext

/**
 * Runs `fn` with the real ExecuteContext of a throwaway node (type `n8n-nodes-runcomfy.harnessProbe`,
 * credential `runComfyApi`) inside a normal workflow execution: helpers, binary data, cancel signal
 * (via onStart's stop) and parameters (`getNodeParameter` with expressions) are all n8n's own.
 * Resolves with fn's result, or rejects with exactly the error fn threw.
 */
export async function withExecuteContext<T>(opts: WithExecuteContextOptions, fn: (ctx: IExecuteFunctions) => Promise<T>): Promise<T> {
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
		throw new Error(`Harness: the probe node did not run (status ${result.status}${result.error ? `: ${result.error.message}` : ''})`);
	}
	const settled = outcome as { ok: true; value: T } | { ok: false; error: unknown };
	if (!settled.ok) throw settled.error;
	return settled.value;
}
