/**
 * The item policy of every node: Continue on Fail, pairedItem, errors bound to their item, and the compact
 * form an AI agent gets.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

/**
 * True when the node runs as an AI agent's tool. n8n runs a tool node in two ways: in-process for AI Agent 2.x and
 * the MCP Server Trigger (`isToolExecution()` is true), and as an ordinary workflow node for AI Agent 3.x, where
 * only the node's type tells (n8n gives every tool form of a node the type `<type>Tool`). n8n before n8n-core 2.3
 * has no `isToolExecution` at all.
 */
export const isToolCall = (ctx: IExecuteFunctions): boolean => toolExecution(ctx) || (ctx.getNode().type ?? '').endsWith('Tool');

/** The node runs inside n8n-core's tool invocation handler, which runs it again only when it throws. */
export function toolExecution(ctx: IExecuteFunctions): boolean {
	try {
		return ctx.isToolExecution?.() === true;
	} catch {
		// a context that does not implement it
		return false;
	}
}

/** The JSON an item should carry: the agent form (`toolJson`) when the node runs as a tool. */
export const forCaller = (ctx: IExecuteFunctions, json: IDataObject, toolJson?: (json: IDataObject) => IDataObject): IDataObject =>
	isToolCall(ctx) && toolJson ? toolJson(json) : json;

export function toNodeError(ctx: IExecuteFunctions, error: unknown, itemIndex: number): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (error.context && error.context.itemIndex === undefined) error.context.itemIndex = itemIndex;
		return error;
	}
	if (error instanceof Error) return new NodeOperationError(ctx.getNode(), error, { itemIndex });
	return new NodeApiError(ctx.getNode(), (error ?? {}) as JsonObject, { itemIndex });
}

/**
 * Under Continue on Fail the item becomes an output item carrying the error (plus `extra`, e.g. the request id,
 * so nothing is lost); otherwise the error is thrown as a NodeApiError / NodeOperationError bound to the item.
 */
export function failedItemOrThrow(ctx: IExecuteFunctions, error: unknown, itemIndex: number, extra: IDataObject = {}): INodeExecutionData {
	const nodeError = toNodeError(ctx, error, itemIndex);
	if (!ctx.continueOnFail()) throw nodeError;
	return {
		json: {
			...extra,
			error: nodeError.message,
			...(nodeError.description ? { errorDescription: nodeError.description } : {}),
			...(nodeError instanceof NodeApiError && nodeError.httpCode ? { httpCode: nodeError.httpCode } : {}),
		},
		pairedItem: { item: itemIndex },
	};
}

/** Appends a sentence to an error's description (e.g. the ids of what was already paid for). */
export function addToDescription(error: NodeApiError | NodeOperationError, text: string): NodeApiError | NodeOperationError {
	error.description = `${error.description ? `${error.description} ` : ''}${text}`;
	return error;
}

/** Fields worth naming in an agent's one-line summary, in the order they are named. */
const SUMMARY_FIELDS = [
	'model_id',
	'deployment_id',
	'request_id',
	'job_id',
	'dataset_id',
	'name',
	'display_name',
	'status',
	'state',
	'outcome',
	'balance_usd',
	'currency',
	'total',
	'file_count',
	'latest_checkpoint_url',
];

/**
 * An AI agent gets compact JSON: no binary (files are reachable through their URLs) and a one-line `summary`
 * on every item. Operations that know better write their own summary; the rest get one built here.
 */
export function forAgent(ctx: IExecuteFunctions, item: INodeExecutionData): INodeExecutionData {
	const rest: INodeExecutionData = { ...item };
	delete rest.binary;
	if (typeof item.json.summary === 'string') return rest;
	return { ...rest, json: { ...item.json, summary: summaryOf(ctx, item.json) } };
}

function summaryOf(ctx: IExecuteFunctions, json: IDataObject): string {
	const parameters = ctx.getNode().parameters;
	const action = [parameters.resource, parameters.operation]
		.filter((p): p is string => typeof p === 'string')
		.map((p) => p.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase())
		.join(' ');
	if (typeof json.error === 'string') return `${action || 'request'} failed: ${json.error}`;
	const facts = SUMMARY_FIELDS.filter((key) => ['string', 'number', 'boolean'].includes(typeof json[key])).map(
		(key) => `${key} ${String(json[key])}`,
	);
	if (facts.length === 0 && typeof json.id === 'string') facts.push(`id ${json.id}`);
	return `${action || 'done'}: ${facts.length > 0 ? facts.join(', ') : 'ok'}`;
}

/** What an item operation returned, as output items paired with their input item. */
export function toItems(
	result: IDataObject | IDataObject[] | INodeExecutionData | INodeExecutionData[],
	itemIndex: number,
): INodeExecutionData[] {
	const list = Array.isArray(result) ? result : [result];
	return list.map((entry) => {
		const item = isExecutionData(entry) ? entry : { json: entry as IDataObject };
		return { ...item, pairedItem: item.pairedItem ?? { item: itemIndex } };
	});
}

function isExecutionData(value: unknown): value is INodeExecutionData {
	return (
		typeof value === 'object' &&
		value !== null &&
		'json' in value &&
		typeof (value as INodeExecutionData).json === 'object' &&
		Object.keys(value).every((k) => ['json', 'binary', 'pairedItem', 'error'].includes(k))
	);
}
