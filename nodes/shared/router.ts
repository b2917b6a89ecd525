/**
 * The one router: finds the module of the node's resource/operation and runs it, per item (plain calls, with
 * the item policy of ./items) or for the whole batch (the job flow). Nodes give it their typed operation map.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { failedItemOrThrow, forAgent, isToolCall, toItems } from './items';

/** An operation that works one item at a time (plain calls). */
export type ItemOperation = (
	this: IExecuteFunctions,
	itemIndex: number,
) => Promise<IDataObject | IDataObject[] | INodeExecutionData | INodeExecutionData[]>;

/** An operation that takes every item at once (the job flow); it applies the item policy itself. */
export type BatchOperation = (this: IExecuteFunctions, items: INodeExecutionData[]) => Promise<INodeExecutionData[]>;

export type OperationModule = { execute: ItemOperation } | { executeBatch: BatchOperation };

/** A node's map of resource → operation → module, checked against its `AllEntities` type. */
export type OperationMap<T extends { resource: string; operation: string }> = {
	[R in T['resource']]: Record<Extract<T, { resource: R }>['operation'], OperationModule>;
};

/** The execute() of a node: routes to the chosen operation; an unknown pair says to pick another one. */
export async function routeOperation<T extends { resource: string; operation: string }>(
	ctx: IExecuteFunctions,
	operations: OperationMap<T>,
): Promise<INodeExecutionData[][]> {
	const resource = ctx.getNodeParameter('resource', 0) as string;
	const operation = ctx.getNodeParameter('operation', 0) as string;
	const module = (operations as Record<string, Record<string, OperationModule> | undefined>)[resource]?.[operation];
	if (!module) {
		throw new NodeOperationError(ctx.getNode(), `The operation "${operation}" of "${resource}" is not supported`, {
			description: 'Pick another resource or operation, or update the node.',
		});
	}
	const out = await runModule(ctx, module);
	return [isToolCall(ctx) ? out.map((item) => forAgent(ctx, item)) : out];
}

async function runModule(ctx: IExecuteFunctions, module: OperationModule): Promise<INodeExecutionData[]> {
	const items = ctx.getInputData();
	if ('executeBatch' in module) return await module.executeBatch.call(ctx, items);
	const out: INodeExecutionData[] = [];
	for (let i = 0; i < items.length; i++) {
		try {
			out.push(...toItems(await module.execute.call(ctx, i), i));
		} catch (error) {
			out.push(failedItemOrThrow(ctx, error, i));
		}
	}
	return out;
}
