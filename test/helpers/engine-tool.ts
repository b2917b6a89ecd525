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
import { NodeConnectionTypes } from 'n8n-workflow';

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

/** The canvas output of the driver: per call `{ response }` (the handler's JSON string) or `{ toolError }`. */
export async function callThroughToolHandler(executeContext: IExecuteFunctions, nodeType: INodeType): Promise<INodeExecutionData[][]> {
	const ctx = executeContext as unknown as ExecuteContextFields;
	const signal = executeContext.getExecutionCancelSignal();
	// n8n-core's contextFactory: a fresh context per try, with no input until the handler adds the arguments.
	const contextFor = (runIndex: number) =>
		new SupplyDataContext(
			ctx.workflow,
			ctx.node,
			ctx.additionalData,
			ctx.mode,
			ctx.runExecutionData,
			runIndex,
			[],
			{},
			NodeConnectionTypes.AiTool,
			ctx.executeData,
			[],
			signal,
		);
	const handle = makeHandleToolInvocation(contextFor, ctx.node, nodeType, ctx.runExecutionData as never);
	const out: INodeExecutionData[] = [];
	for (const [index, item] of executeContext.getInputData().entries()) {
		let json: IDataObject;
		try {
			json = { response: (await handle(item.json)) as string };
		} catch (error) {
			// Not `error`: n8n's canvas loop would run the driver again (its checkFailure).
			json = { toolError: (error as Error).message };
		}
		out.push({ json, pairedItem: { item: index } });
	}
	return [out];
}
