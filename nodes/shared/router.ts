import type { IDataObject, IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

/** An operation that works one item at a time (plain calls). */
export type ItemOperation = (
	this: IExecuteFunctions,
	itemIndex: number,
) => Promise<IDataObject | IDataObject[] | INodeExecutionData | INodeExecutionData[]>;

/** An operation that takes every item at once (submit all, then wait for all). It handles per-item
 * failures itself with `failedItem`, so one bad item does not stop the batch under Continue on Fail. */
export type BatchOperation = (this: IExecuteFunctions, items: INodeExecutionData[]) => Promise<INodeExecutionData[]>;

export interface OperationModule {
	execute?: ItemOperation;
	executeBatch?: BatchOperation;
}

/** Runs one operation for a node: per item with router-level error policy, or as a batch. */
export async function runOperation(
	ctx: IExecuteFunctions,
	operation: OperationModule,
): Promise<INodeExecutionData[]> {
	const items = ctx.getInputData();
	const out = await runItems(ctx, operation, items);
	return ctx.isToolExecution?.() ? out.map((item) => forAgent(ctx, item)) : out;
}

/**
 * The execute() of a node: finds the operation module of the node's resource/operation in `resources` and runs
 * it with `runOperation`. An unknown pair is an error that says to pick another operation.
 */
export async function routeOperation(
	ctx: IExecuteFunctions,
	resources: Record<string, Record<string, OperationModule> | undefined>,
): Promise<INodeExecutionData[][]> {
	const resource = ctx.getNodeParameter('resource', 0) as string;
	const operation = ctx.getNodeParameter('operation', 0) as string;
	const module = resources[resource]?.[operation];
	if (!module) {
		throw new NodeOperationError(ctx.getNode(), `The operation "${operation}" of "${resource}" is not supported`, {
			description: 'Pick another operation, or update the node.',
		});
	}
	return [await runOperation(ctx, module)];
}

async function runItems(
	ctx: IExecuteFunctions,
	operation: OperationModule,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[]> {
	if (operation.executeBatch) return await operation.executeBatch.call(ctx, items);
	if (!operation.execute) {
		throw new NodeOperationError(ctx.getNode(), 'This operation is not supported', {
			description: 'Pick another operation, or update the node.',
		});
	}
	const out: INodeExecutionData[] = [];
	for (let i = 0; i < items.length; i++) {
		try {
			const result = await operation.execute.call(ctx, i);
			out.push(...toItems(result, i));
		} catch (error) {
			const failure = failedItem(ctx, error, i);
			out.push(failure);
		}
	}
	return out;
}

/** Fields worth naming in an agent's one-line summary, in the order they are named. */
const SUMMARY_FIELDS = [
	'model_id',
	'deployment_id',
	'request_id',
	'job_id',
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
 * on every item. Operations that know better write their own summary; the rest get one built here from the
 * item's ids and statuses.
 */
function forAgent(ctx: IExecuteFunctions, item: INodeExecutionData): INodeExecutionData {
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

function toItems(
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

/**
 * The error policy of every node: under Continue on Fail the item becomes an output item carrying the
 * error (plus `extra`, e.g. the request id, so nothing is lost); otherwise the error is thrown as a
 * NodeApiError / NodeOperationError bound to the item.
 */
export function failedItem(
	ctx: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
	extra: IDataObject = {},
): INodeExecutionData {
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

export function toNodeError(
	ctx: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (error.context && error.context.itemIndex === undefined) error.context.itemIndex = itemIndex;
		return error;
	}
	if (error instanceof Error) return new NodeOperationError(ctx.getNode(), error, { itemIndex });
	return new NodeApiError(ctx.getNode(), (error ?? {}) as JsonObject, { itemIndex });
}
