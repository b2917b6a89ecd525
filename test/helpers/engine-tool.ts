/**
 * Calls a node the way n8n's AI Agent 2.x and the MCP Server Trigger call a tool: through n8n-core's own tool
 * invocation handler (`makeHandleToolInvocation`), which applies the node's Retry On Fail itself and gives every
 * try a new SupplyDataContext with a new run index. Each input item is one tool call with its json as the
 * arguments, made one after the other through one handler (as one agent run calling the tool several times).
 */
import { SupplyDataContext } from 'n8n-core';
// Not exported by n8n-core's index: the agents reach it through getInputConnectionData.
import { makeHandleToolInvocation } from 'n8n-core/dist/execution-engine/node-execution-context/utils/get-input-connection-data';
import type {
	IDataObject,
	IExecuteData,
	IExecuteFunctions,
	INode,
	INodeExecutionData,
	INodeType,
	Workflow,
	WorkflowExecuteMode,
} from 'n8n-workflow';
import { NodeConnectionTypes, createEmptyRunExecutionData } from 'n8n-workflow';

/** The fields of n8n-core's ExecuteContext that a SupplyDataContext for a tool call is built from. */
export interface ExecuteContextFields {
	workflow: Workflow;
	node: INode;
	additionalData: ConstructorParameters<typeof SupplyDataContext>[2];
	mode: WorkflowExecuteMode;
	runExecutionData: ConstructorParameters<typeof SupplyDataContext>[4];
	runIndex: number;
	executeData: IExecuteData;
}

/**
 * The canvas output of the driver: per call `{ response }` (the handler's JSON string) or `{ toolError }`.
 * `mcpTrigger`: each call as the MCP Server Trigger makes it in its webhook request (n8n-core's WebhookContext
 * `getInputConnectionData`): no execution id yet, and a handler, execute data and run data of its own.
 */
export async function callThroughToolHandler(
	executeContext: IExecuteFunctions,
	nodeType: INodeType,
	mcpTrigger = false,
): Promise<INodeExecutionData[][]> {
	const ctx = executeContext as unknown as ExecuteContextFields;
	const signal = executeContext.getExecutionCancelSignal();
	const handlerFor = (args: IDataObject) => {
		const additionalData = mcpTrigger ? { ...ctx.additionalData, executionId: undefined, hooks: undefined } : ctx.additionalData;
		const runExecutionData = mcpTrigger ? createEmptyRunExecutionData() : ctx.runExecutionData;
		const executeData: IExecuteData = mcpTrigger ? { data: { main: [[{ json: args }]] }, node: ctx.node, source: null } : ctx.executeData;
		// n8n-core's contextFactory: a fresh context per try, with no input until the handler adds the arguments.
		const contextFor = (runIndex: number) =>
			new SupplyDataContext(
				ctx.workflow,
				ctx.node,
				additionalData,
				ctx.mode,
				runExecutionData,
				runIndex,
				[],
				{},
				NodeConnectionTypes.AiTool,
				executeData,
				[],
				signal,
			);
		return makeHandleToolInvocation(contextFor, ctx.node, nodeType, runExecutionData as never);
	};
	const shared = mcpTrigger ? undefined : handlerFor({});
	const out: INodeExecutionData[] = [];
	for (const [index, item] of executeContext.getInputData().entries()) {
		let json: IDataObject;
		try {
			const handle = shared ?? handlerFor(item.json);
			json = { response: (await handle(item.json)) as string };
		} catch (error) {
			// Not `error`: n8n's canvas loop would run the driver again (its checkFailure).
			json = { toolError: (error as Error).message };
		}
		out.push({ json, pairedItem: { item: index } });
	}
	return [out];
}
