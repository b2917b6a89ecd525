/**
 * Public types of the in-process harness (test/helpers/engine.ts re-exports them).
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INode,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	IRun,
	ITaskData,
	IVersionedNodeType,
	IWorkflowExecuteAdditionalData,
	IWorkflowSettings,
	ExecutionError,
	Workflow,
} from 'n8n-workflow';

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
	/**
	 * Run the node the way AI Agent 3.x (n8n's default agent) runs a tool: as an ordinary workflow node whose
	 * type is the tool form's `<type>Tool`, `this.isToolExecution()` false, the tool call's arguments as the input
	 * item. Also how an n8n without `isToolExecution()` (before n8n-core 2.3) runs any tool node.
	 */
	asAgentNode?: boolean;
	/**
	 * Run each input item as one tool call through n8n-core's real tool invocation handler (AI Agent 2.x, MCP
	 * Server Trigger): the handler applies Retry On Fail with a new run index per try (engine-tool.ts). The
	 * items returned are one per call: `{ response }` or `{ toolError }`. 'mcpTrigger': as the MCP Server Trigger
	 * calls it, inside the webhook request before n8n creates the execution (no execution id; every call its own
	 * handler, execute data and run data).
	 */
	viaToolHandler?: boolean | 'mcpTrigger';
	/** Execution mode; default 'manual' (the user clicked "Execute workflow"); 'retry': n8n's Retry of an execution. */
	mode?: 'manual' | 'trigger' | 'retry';
	/** The execution's custom data at the start (a retried execution keeps the failed one's). */
	customData?: Record<string, string>;
	/** Extra workflow settings (timezone, binaryMode, ...). executionOrder is 'v1'. */
	workflowSettings?: IWorkflowSettings;
	/** The workflow's static data as n8n loaded it (`node:<name>` keys); read back from the result's `workflow.staticData`. */
	workflowStaticData?: IDataObject;
	/** Node name in the workflow; default the node's `defaults.name` or display name. */
	nodeName?: string;
	/** Extra INode fields for the node under test, e.g. `{ retryOnFail: true }`. */
	nodeOverrides?: Partial<INode>;
	/**
	 * The execution id; default a new one per run. Two runs given the same id stand for two nodes (or two runs of
	 * one node) of one execution, e.g. two parks of an execution, which share its resume URL.
	 */
	executionId?: string;
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
	/** The workflow and additional data the run used (e.g. to call the webhook of a parked execution). */
	workflow: Workflow;
	additionalData: IWorkflowExecuteAdditionalData;
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

export interface WithExecuteContextOptions {
	credentials: RunComfyCredentialData;
	inputItems?: InputItem[];
	parameters?: INodeParameters;
	onStart?: (stop: () => void) => void;
	continueOnFail?: boolean;
	stopGraceMs?: number;
}

export interface EditorMethodOptions {
	node: INodeType | IVersionedNodeType;
	method: string;
	parameters: INodeParameters;
	credentials: RunComfyCredentialData;
	typeVersion?: number;
	/** Parameter path being loaded, as the editor sends it (e.g. 'parameters.inputs'). */
	path?: string;
}

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
