/**
 * The pieces every harness run shares: the helper node types around the node under test (a Manual Trigger
 * and an item emitter), the wrapper that observes the node's execute(), the credential plumbing, and the
 * readers and checks applied to a run's result.
 */
import { BinaryDataService, SupplyDataContext } from 'n8n-core';
import type {
	ExecutionError,
	ICredentialDataDecryptedObject,
	ICredentialType,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	ITriggerFunctions,
	ITriggerResponse,
	IVersionedNodeType,
} from 'n8n-workflow';
import { NodeConnectionTypes, UnexpectedError } from 'n8n-workflow';

import { RunComfyApi } from '../../credentials/RunComfyApi.credentials';
import { HarnessCredentialsHelper } from './engine-credentials';
import { callThroughToolHandler } from './engine-tool';
import type { ExecuteContextFields } from './engine-tool';
import { getRuntime, getService } from './engine-runtime';
import type { InputItem, RunComfyCredentialData, RunNodeError } from './engine-types';

// ---------------------------------------------------------------------------------------------
// Helper node types (mirror n8n-nodes-base's Manual Trigger and a simple items emitter)

export const CREDENTIAL_TYPE = 'runComfyApi';
export const credentialType: ICredentialType = new RunComfyApi();
const credentialTypes: Record<string, ICredentialType> = { [CREDENTIAL_TYPE]: credentialType };

export const START_NODE_NAME = 'When clicking ‘Execute workflow’';
export const SOURCE_NODE_NAME = 'Input Items';
export const MANUAL_TRIGGER_TYPE = 'n8n-nodes-base.manualTrigger';
export const ITEMS_SOURCE_TYPE = 'n8n-nodes-runcomfy-harness.inputItems';

export class HarnessManualTrigger implements INodeType {
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

export function itemsSourceType(inputItems: InputItem[]): INodeType {
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
export interface ExecuteObservation {
	/** Items returned without `pairedItem` (n8n's assignPairedItems may fill some in afterwards). */
	unpairedItems: number;
}

/**
 * Wraps the node type under test: records what execute() returned (for `unpairedItems`) and, with
 * asTool, hands execute() a SupplyDataContext on `ai_tool` as an AI agent's tool call would.
 * The wrapper inherits everything else from the node type (description, methods, ...).
 */
export function wrapNodeType(
	nodeType: INodeType,
	options: { asTool: boolean; viaToolHandler?: boolean | 'mcpTrigger' },
	observation: ExecuteObservation,
): INodeType {
	const execute = nodeType.execute;
	if (!execute) {
		if (options.asTool) throw new UnexpectedError('asTool needs a node type with an execute() method');
		return nodeType;
	}
	const wrapper = Object.create(nodeType) as INodeType;
	wrapper.execute = async function (this: IExecuteFunctions, ...args: unknown[]) {
		if (options.viaToolHandler) return await callThroughToolHandler(this, nodeType, options.viaToolHandler === 'mcpTrigger');
		const context = options.asTool ? toolContext(this) : this;
		const result = (await (execute as (...a: unknown[]) => Promise<unknown>).apply(context, args)) as INodeExecutionData[][] | null;
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
	const ctx = executeContext as unknown as ExecuteContextFields;
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

export function credentialsHelperFor(credentials?: RunComfyCredentialData): HarnessCredentialsHelper {
	const data: Record<string, ICredentialDataDecryptedObject> = {};
	if (credentials) data[CREDENTIAL_TYPE] = { ...credentials };
	return new HarnessCredentialsHelper(credentialTypes, data);
}

export const NODE_CREDENTIALS = { [CREDENTIAL_TYPE]: { id: 'cred-runcomfy-1', name: 'RunComfy account' } };

export function defaultNodeName(node: INodeType | IVersionedNodeType): string {
	const description = node.description as INodeTypeDescription;
	return description.defaults?.name ?? description.displayName;
}

export async function readBinaryOf(item: INodeExecutionData, property = 'data'): Promise<Buffer> {
	const binary = item.binary?.[property];
	if (!binary) {
		throw new UnexpectedError(`Item has no binary property "${property}" (has: ${Object.keys(item.binary ?? {}).join(', ') || 'none'})`);
	}
	const { binaryDataService } = await getRuntime();
	return await binaryDataService.getAsBuffer(binary);
}

export function binaryPathOf(item: INodeExecutionData, property = 'data'): string {
	const binary = item.binary?.[property];
	if (!binary?.id) {
		throw new UnexpectedError(`Binary property "${property}" is not stored in filesystem mode (no id)`);
	}
	return getService(BinaryDataService).getPath(binary.id);
}

export function toRunNodeError(error: ExecutionError): RunNodeError {
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

/**
 * Every run in the whole suite doubles as a token scan: the credential's access token must never appear in
 * what n8n keeps of a run (outputs, errors with their descriptions and causes, the run's result data).
 */
export function assertTokenAbsent(token: string | undefined, what: unknown): void {
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
