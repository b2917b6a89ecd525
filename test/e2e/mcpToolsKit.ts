/**
 * The MCP side of the real-n8n tests: a workflow with n8n's MCP Server Trigger, the official MCP SDK client
 * connected to it, and the 31 tools of RunComfy's own MCP server as n8n tool nodes (each named like the RunComfy
 * tool, its `$fromAI` arguments named like that tool's arguments, so an MCP client sees the same tool names and
 * arguments). Also renders the docs/ai-agents.md table from what the test measured. Not a test file itself.
 */
import { attachTools } from './agentKit';
import type { ToolNode } from './agentKit';

export interface McpCallResult {
	content: Array<{ type: string; text?: string }>;
	isError?: boolean;
}
export interface McpTool {
	name: string;
	description?: string;
	inputSchema: { properties?: Record<string, unknown> };
}
/** The official MCP SDK client, as much of it as the tests use. */
export interface McpClient {
	connect(transport: unknown): Promise<void>;
	listTools(): Promise<{ tools: McpTool[] }>;
	callTool(req: { name: string; arguments: Record<string, unknown> }): Promise<McpCallResult>;
	close(): Promise<void>;
}

/** MCP Server Trigger at `path` (streamable HTTP, no auth on loopback) → the tool nodes. */
export function mcpServerWorkflow(
	name: string,
	trigger: { path: string; webhookId: string },
	tools: ToolNode[],
	runcomfy: { id: string; name: string },
): object {
	const triggerName = 'MCP Server Trigger';
	const nodes: object[] = [
		{
			parameters: { path: trigger.path },
			name: triggerName,
			type: '@n8n/n8n-nodes-langchain.mcpTrigger',
			typeVersion: 2,
			position: [0, 0],
			webhookId: trigger.webhookId,
		},
	];
	const connections: Record<string, object> = {};
	attachTools(nodes, connections, tools, runcomfy, triggerName);
	return { name, nodes, connections, settings: { executionOrder: 'v1' } };
}

/** A new session of the official MCP TypeScript SDK client (a devDependency, the version n8n 2.41.1 ships) with the server at `url`. */
export async function connectMcp(url: string, clientName = 'runcomfy-e2e'): Promise<McpClient> {
	const load = (subpath: string) => import(`@modelcontextprotocol/sdk/${subpath}`);
	const { Client } = (await load('client/index.js')) as { Client: new (info: object) => McpClient };
	const { StreamableHTTPClientTransport } = (await load('client/streamableHttp.js')) as {
		StreamableHTTPClientTransport: new (url: URL) => unknown;
	};
	const client = new Client({ name: clientName, version: '1.0.0' });
	await client.connect(new StreamableHTTPClientTransport(new URL(url)));
	return client;
}

/** A tool's answer: its text, the records in it (n8n sends the items as one JSON text), and whether it is an error. */
export interface McpAnswer {
	text: string;
	records: Array<Record<string, unknown>>;
	first: Record<string, unknown>;
	isError: boolean;
}

export function parseAnswer(result: McpCallResult): McpAnswer {
	const text = result.content.map((c) => c.text ?? '').join('');
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		value = { error: text };
	}
	const list = (Array.isArray(value) ? value : [value]) as unknown[];
	const records = list.map(
		(v) => (v && typeof v === 'object' && 'json' in v ? (v as { json: unknown }).json : v) as Record<string, unknown>,
	);
	const isError = Boolean(result.isError) || records.some((r) => r && typeof r === 'object' && r.error !== undefined && r.error !== null);
	return { text, records, first: records[0] ?? {}, isError };
}

/** `={{ $fromAI(...) }}` with an optional default (an argument the model may leave out). */
export function ai(key: string, description: string, type = 'string', fallback?: string | number | boolean): string {
	const def = fallback === undefined ? '' : `, ${typeof fallback === 'string' ? `'${fallback}'` : String(fallback)}`;
	return `={{ $fromAI('${key}', '${description}', '${type}'${def}) }}`;
}

/**
 * A JSON parameter filled from a `string` argument, as docs/ai-agents.md recommends: the model is shown a typed
 * string, and the node reads the JSON text (or an object, which only the AI Agent 3.x passes on).
 */
const aiJson = (key: string, description: string) => ai(key, description);
const id = (key: string, description: string) => ({ __rl: true, mode: 'id', value: ai(key, description) });

const DEPLOYMENT_ID = id('deployment_id', 'The deployment id (a UUID), from list_deployments');
const REQUEST_ID = ai('request_id', 'The request_id the submit returned');
const MODEL_REQUEST_ID = ai('request_id', 'The request_id run_model returned');
const JOB_ID = ai('job_id', 'The training job id submit_training_job returned');
const DATASET_ID = id('dataset_id', 'The dataset id, from create_dataset or list_datasets');
const MODEL_ID = id('model_id', 'The model id, e.g. blackforestlabs/flux-2/flash/text-to-image (from list_models)');
const FAST_POLLS = { pollIntervalSeconds: 0.1, maxPollIntervalSeconds: 0.2 };
const WAIT = ai(
	'wait_for_completion',
	'true: wait (at most 2 minutes) for the outputs; false: return the request_id at once',
	'boolean',
	true,
);
const TIMEOUT = ai('timeout_seconds', 'Longest wait in seconds, 1 to 120', 'number', 120);
const GPU_TYPE = ai('gpu_type', 'GPU type: ADA_80_PLUS or HOPPER_141', 'string', 'ADA_80_PLUS');
const GPU_COUNT = ai('gpu_count', 'Number of GPUs: 1 or 8', 'number', 1);
const CONFIG = ai('config_file', 'The ai-toolkit training config, YAML or JSON text');
const HARDWARE = 'GPU hardware: one of TURING_16, AMPERE_24, AMPERE_48, ADA_48_PLUS, AMPERE_80, ADA_80_PLUS, HOPPER_141';

/** The Model node's inputs, wired as docs/ai-agents.md recommends. */
export const MODEL_INPUTS = {
	model: MODEL_ID,
	inputMode: 'json',
	inputsJson: aiJson('inputs', 'The model inputs as JSON text, e.g. {"prompt": "a red fox"} (get_model lists them)'),
};

/** One RunComfy MCP tool as an n8n tool node, with the editor's name of its operation. */
export interface McpToolSpec extends ToolNode {
	operation: string;
}

const tool = (name: string, node: ToolNode['node'], operation: string, parameters: Record<string, unknown>): McpToolSpec => ({
	name,
	node,
	operation,
	parameters,
});

/** The 31 tools, in the order of docs/ai-agents.md. `guards` are the cost guards set on the paid ones. */
export function runcomfyMcpTools(guards: { maxEstimatedCostUsd: number; minimumBalanceUsd: number }): McpToolSpec[] {
	const { minimumBalanceUsd } = guards;
	return [
		tool('list_deployments', 'deployment', 'Deployment → Deployment → Get Many', {
			resource: 'deployment',
			operation: 'getAll',
			includePayload: ai('include_payload', 'true: include each workflow graph (large)', 'boolean', false),
		}),
		tool('get_deployment', 'deployment', 'Deployment → Deployment → Get', {
			resource: 'deployment',
			operation: 'get',
			deploymentId: DEPLOYMENT_ID,
			includeReadme: ai('include_readme', 'true: include the readme, which says which inputs to override', 'boolean', false),
		}),
		tool('create_deployment', 'deployment', 'Deployment → Deployment → Create', {
			resource: 'deployment',
			operation: 'create',
			name: ai('name', 'A name for the deployment'),
			workflowId: ai('workflow_id', 'The id of the saved ComfyUI workflow'),
			workflowVersion: ai('workflow_version', 'The workflow version, e.g. v1', 'string', 'v1'),
			hardware: ai('hardware', HARDWARE, 'string', 'AMPERE_48'),
			maxInstances: ai('max_instances', 'Most instances at once, 1 to 60', 'number', 1),
		}),
		tool('update_deployment', 'deployment', 'Deployment → Deployment → Update', {
			resource: 'deployment',
			operation: 'update',
			deploymentId: DEPLOYMENT_ID,
			updateFields: { name: ai('name', 'The new name'), maxInstances: ai('max_instances', 'Most instances at once, 1 to 60', 'number') },
		}),
		tool('delete_deployment', 'deployment', 'Deployment → Deployment → Delete', {
			resource: 'deployment',
			operation: 'delete',
			deploymentId: DEPLOYMENT_ID,
		}),
		tool('submit_request', 'deployment', 'Deployment → Inference → Run', {
			resource: 'inference',
			operation: 'run',
			deploymentId: DEPLOYMENT_ID,
			inputMode: 'json',
			overridesJson: aiJson(
				'overrides',
				'The inputs by ComfyUI node id as JSON text, e.g. {"6": {"inputs": {"text": "a fox"} } } (get_deployment readme)',
			),
			waitForCompletion: WAIT,
			waitOptions: { ...FAST_POLLS, maxWaitSeconds: TIMEOUT },
			options: { minimumBalanceUsd },
		}),
		tool('get_request_status', 'deployment', 'Deployment → Inference → Get Status', {
			resource: 'inference',
			operation: 'getStatus',
			deploymentId: DEPLOYMENT_ID,
			requestId: REQUEST_ID,
		}),
		tool('get_request_result', 'deployment', 'Deployment → Inference → Get Result', {
			resource: 'inference',
			operation: 'getResult',
			deploymentId: DEPLOYMENT_ID,
			requestId: REQUEST_ID,
		}),
		tool('cancel_request', 'deployment', 'Deployment → Inference → Cancel', {
			resource: 'inference',
			operation: 'cancel',
			deploymentId: DEPLOYMENT_ID,
			requestId: REQUEST_ID,
			waitOptions: FAST_POLLS,
		}),
		tool('call_instance_proxy', 'deployment', 'Deployment → Inference → Call Instance Proxy', {
			resource: 'inference',
			operation: 'callInstanceProxy',
			deploymentId: DEPLOYMENT_ID,
			instanceId: ai('instance_id', 'The instance_id of a running request (get_request_status)'),
			path: ai('comfy_backend_path', 'The ComfyUI backend path, e.g. api/free', 'string', 'api/free'),
			body: aiJson('request_body', 'The JSON body as text, e.g. {"unload_models": true}'),
		}),
		tool('list_models', 'model', 'Model → Catalog → Get Many Models', {
			resource: 'catalog',
			operation: 'getManyModels',
			limit: ai('limit', 'How many models, 1 to 500', 'number', 20),
			filters: { search: ai('search', 'Words to search model names and descriptions for', 'string', '') },
		}),
		tool('list_model_categories', 'model', 'Model → Catalog → Get Many Categories', {
			resource: 'catalog',
			operation: 'getManyCategories',
		}),
		tool('get_model', 'model', 'Model → Catalog → Get Model', { resource: 'catalog', operation: 'getModel', model: MODEL_ID }),
		tool('run_model', 'model', 'Model → Model → Run', {
			resource: 'model',
			operation: 'run',
			...MODEL_INPUTS,
			waitForCompletion: WAIT,
			waitOptions: { ...FAST_POLLS, maxWaitSeconds: TIMEOUT },
			options: guards,
		}),
		tool('get_model_request_status', 'model', 'Model → Model → Get Status', {
			resource: 'model',
			operation: 'getStatus',
			requestId: MODEL_REQUEST_ID,
		}),
		tool('get_model_request_result', 'model', 'Model → Model → Get Result', {
			resource: 'model',
			operation: 'getResult',
			requestId: MODEL_REQUEST_ID,
		}),
		tool('cancel_model_request', 'model', 'Model → Model → Cancel', {
			resource: 'model',
			operation: 'cancel',
			requestId: MODEL_REQUEST_ID,
		}),
		tool('create_dataset', 'dataset', 'Dataset → Dataset → Create', {
			resource: 'dataset',
			operation: 'create',
			name: ai('name', 'The dataset name: letters, digits, - and _'),
		}),
		tool('list_datasets', 'dataset', 'Dataset → Dataset → Get Many', { resource: 'dataset', operation: 'getAll' }),
		tool('get_dataset_status', 'dataset', 'Dataset → Dataset → Get Status', {
			resource: 'dataset',
			operation: 'getStatus',
			dataset: DATASET_ID,
		}),
		tool('delete_dataset', 'dataset', 'Dataset → Dataset → Delete', { resource: 'dataset', operation: 'delete', dataset: DATASET_ID }),
		tool('upload_dataset_file_from_url', 'dataset', 'Dataset → Dataset → Upload From URL', {
			resource: 'dataset',
			operation: 'uploadFromUrl',
			dataset: DATASET_ID,
			url: ai('source_url', 'A public http(s) URL of the image or caption file'),
			waitOptions: FAST_POLLS,
			options: { fileName: ai('filename', 'The file name in the dataset, e.g. fox_1.png', 'string', '') },
		}),
		tool('upload_dataset_text_file', 'dataset', 'Dataset → Dataset → Upload Caption', {
			resource: 'dataset',
			operation: 'uploadCaption',
			dataset: DATASET_ID,
			fileName: ai('filename', 'The caption file name, the image name with .txt, e.g. fox_1.txt'),
			text: ai('text', 'The caption text'),
			waitOptions: FAST_POLLS,
		}),
		tool('get_dataset_upload_urls', 'dataset', 'Dataset → Dataset → Get Upload URLs', {
			resource: 'dataset',
			operation: 'getUploadUrls',
			dataset: DATASET_ID,
			fileSizes: aiJson('filename_to_byte_size', 'Each file name with its size in bytes, as JSON text, e.g. {"fox_2.jpg": 120000}'),
		}),
		tool('submit_training_job', 'training', 'Training → Training Job → Submit', {
			resource: 'trainingJob',
			operation: 'submit',
			configMode: 'text',
			configText: CONFIG,
			gpuType: GPU_TYPE,
			gpuCount: GPU_COUNT,
			options: { minimumBalanceUsd },
		}),
		tool('get_training_job_status', 'training', 'Training → Training Job → Get Status', {
			resource: 'trainingJob',
			operation: 'getStatus',
			jobId: JOB_ID,
		}),
		tool('get_training_job_result', 'training', 'Training → Training Job → Get Result', {
			resource: 'trainingJob',
			operation: 'getResult',
			jobId: JOB_ID,
		}),
		tool('cancel_training_job', 'training', 'Training → Training Job → Cancel', {
			resource: 'trainingJob',
			operation: 'cancel',
			jobId: JOB_ID,
		}),
		tool('resume_training_job', 'training', 'Training → Training Job → Resume', {
			resource: 'trainingJob',
			operation: 'resume',
			jobId: JOB_ID,
			gpuType: GPU_TYPE,
			gpuCount: GPU_COUNT,
			options: { minimumBalanceUsd },
		}),
		tool('edit_training_job', 'training', 'Training → Training Job → Edit', {
			resource: 'trainingJob',
			operation: 'edit',
			jobId: JOB_ID,
			configText: CONFIG,
		}),
		tool('get_balance', 'model', 'Model → Account → Get Balance', { resource: 'account', operation: 'getBalance' }),
	];
}

/** `argument` → `parameter` for every `$fromAI` in a node's parameters (resource locators by their own name). */
export function argumentsOf(parameters: Record<string, unknown>, prefix = ''): string[] {
	return Object.entries(parameters).flatMap(([key, raw]) => {
		const value = raw && typeof raw === 'object' && (raw as { __rl?: boolean }).__rl ? (raw as { value: unknown }).value : raw;
		if (value && typeof value === 'object') return argumentsOf(value as Record<string, unknown>, `${prefix}${key}.`);
		const m = typeof value === 'string' ? /\$fromAI\('(\w+)'/.exec(value) : null;
		return m ? [`\`${m[1]}\` → \`${prefix}${key}\``] : [];
	});
}

/** What the test measured for one tool: the answer's size and the requests the sandbox received. */
export interface Measured {
	bytes: number;
	requests: number;
}

export const TABLE_START = '<!-- tools table: written by test/e2e/mcp.tools.test.ts (RUNCOMFY_WRITE_DOCS=1) -->';
export const TABLE_END = '<!-- end of tools table -->';

/** The docs/ai-agents.md table: one row per tool, every row from a call the test made. */
export function renderTable(tools: McpToolSpec[], measured: Map<string, Measured>): string {
	const rows = tools.map((t) => {
		const m = measured.get(t.name);
		const args = argumentsOf(t.parameters).join('; ') || '–';
		const cell = m ? `measured: ${m.bytes} B, ${m.requests} request${m.requests === 1 ? '' : 's'}` : 'not measured';
		return `| \`${t.name}\` | ${t.operation} | ${args} | ${cell} |`;
	});
	return [
		TABLE_START,
		'',
		'| Tool | n8n operation | Tool arguments → n8n parameters | Answer, requests sent |',
		'| - | - | - | - |',
		...rows,
		'',
		TABLE_END,
	].join('\n');
}
