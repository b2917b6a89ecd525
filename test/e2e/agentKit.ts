/**
 * Shared setup of the real-n8n agent tests: a workflow with n8n's AI Agent, its OpenAI Chat Model node pointed at
 * the stand-in model (test/helpers/fakeLlm.ts), and RunComfy tool nodes in their tool form (`<type>Tool`), as the
 * editor adds them. Not a test file itself.
 */
import type { CredentialJson } from '../../scripts/e2e/n8n';
import * as h from '../../scripts/e2e/n8n';
import type { ChatRequest, ChatTool } from '../helpers/fakeLlm';

/** `={{ $fromAI(...) }}`: how a user lets the agent fill a field. */
export const fromAI = (key: string, description: string, type = 'string') => `={{ $fromAI('${key}', '${description}', '${type}') }}`;

/** A runComfy tool node: Model, Deployment or Training in its tool form. */
export interface ToolNode {
	name: string;
	node: keyof typeof h.NODE_TYPES;
	parameters: Record<string, unknown>;
	continueOnFail?: boolean;
	extra?: Record<string, unknown>;
}

export const FLUX = 'blackforestlabs/flux-2/flash/text-to-image';
/** $0.05 an image; the test sandbox makes its runs last 10 minutes. */
export const FLUX_PRO = 'blackforestlabs/flux-2/pro/text-to-image';
/** Max Estimated Cost of the Run Model tool: one or two images pass, four FLUX_PRO images do not. */
export const CAP_USD = 0.1;

const MODEL_FIELDS = {
	model: { __rl: true, mode: 'id', value: fromAI('model_id', 'The RunComfy model id, e.g. blackforestlabs/flux-2/flash/text-to-image') },
	inputMode: 'json',
	// As docs/ai-agents.md recommends: a string argument, so the model is shown the type n8n checks for.
	inputsJson: fromAI('inputs', 'The model inputs as JSON text, e.g. {"prompt": "a fox"}'),
};

/** The tools every agent test workflow offers (node names are what the model sees, sanitised). */
export function modelTools(): ToolNode[] {
	const fastPolls = { pollIntervalSeconds: 0.1, maxPollIntervalSeconds: 0.2 };
	return [
		{ name: 'Estimate Cost', node: 'model', parameters: { resource: 'model', operation: 'estimateCost', ...MODEL_FIELDS } },
		{
			name: 'Run Model',
			node: 'model',
			parameters: {
				resource: 'model',
				operation: 'run',
				...MODEL_FIELDS,
				waitOptions: {
					...fastPolls,
					maxWaitSeconds: '={{ $fromAI("max_wait_seconds", "How long to wait for the run, in seconds", "number") }}',
				},
				options: { maxEstimatedCostUsd: CAP_USD },
			},
			continueOnFail: true,
		},
		{
			name: 'Get Status',
			node: 'model',
			parameters: { resource: 'model', operation: 'getStatus', requestId: fromAI('request_id', 'The request_id returned by Run Model') },
			continueOnFail: true,
		},
		{
			name: 'Get Result',
			node: 'model',
			parameters: { resource: 'model', operation: 'getResult', requestId: fromAI('request_id', 'The request_id returned by Run Model') },
			continueOnFail: true,
		},
	];
}

/** Manual Trigger → AI Agent (the given version) with the OpenAI Chat Model and the tools. */
export function agentWorkflow(opts: {
	name: string;
	prompt: string;
	agentVersion: number;
	tools: ToolNode[];
	runcomfy: { id: string; name: string };
	openAi: { id: string; name: string };
}): object {
	const agent = 'AI Agent';
	const nodes: object[] = [
		{ parameters: {}, name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0] },
		{
			parameters: { promptType: 'define', text: opts.prompt, options: { maxIterations: 10 } },
			name: agent,
			type: '@n8n/n8n-nodes-langchain.agent',
			typeVersion: opts.agentVersion,
			position: [220, 0],
		},
		{
			parameters: { model: { __rl: true, mode: 'id', value: 'gpt-4o-mini' }, options: {} },
			name: 'OpenAI Chat Model',
			type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
			typeVersion: 1.2,
			position: [120, 220],
			credentials: { openAiApi: opts.openAi },
		},
	];
	const connections: Record<string, object> = {
		Start: { main: [[{ node: agent, type: 'main', index: 0 }]] },
		'OpenAI Chat Model': { ai_languageModel: [[{ node: agent, type: 'ai_languageModel', index: 0 }]] },
	};
	attachTools(nodes, connections, opts.tools, opts.runcomfy, agent);
	return { name: opts.name, nodes, connections, settings: { executionOrder: 'v1' } };
}

/** Adds the tool nodes, each connected to `target`'s tool input (an AI Agent or an MCP Server Trigger). */
export function attachTools(
	nodes: object[],
	connections: Record<string, object>,
	tools: ToolNode[],
	runcomfy: { id: string; name: string },
	target: string,
): void {
	tools.forEach((tool, i) => {
		nodes.push({
			parameters: tool.parameters,
			name: tool.name,
			type: `${h.NODE_TYPES[tool.node]}Tool`,
			typeVersion: 1,
			position: [300 + i * 140, 220],
			credentials: { [h.CREDENTIAL_TYPE]: runcomfy },
			...(tool.continueOnFail ? { onError: 'continueRegularOutput' } : {}),
			...tool.extra,
		});
		connections[tool.name] = { ai_tool: [[{ node: target, type: 'ai_tool', index: 0 }]] };
	});
}

/** An OpenAI credential whose base URL is the stand-in model. */
export function openAiCredential(baseUrl: string): CredentialJson {
	return { id: h.newId(), name: 'Fake OpenAI', type: 'openAiApi', data: { apiKey: 'sk-fake-key-for-tests', url: baseUrl } };
}

/** The tool offered to the model for a node name (n8n sanitises names: spaces become `_`). */
export function toolFor(request: ChatRequest, nodeName: string): ChatTool {
	const wanted = nodeName.replace(/[^a-zA-Z0-9_-]/g, '_');
	const tool = (request.tools ?? []).find((t) => t.function.name === wanted);
	if (!tool) throw new Error(`no tool "${wanted}" in what n8n sent: ${(request.tools ?? []).map((t) => t.function.name).join(', ')}`);
	return tool;
}

/** Parses a tool result as n8n hands it to the model (a JSON text, sometimes a list of items). */
export function parseToolResult(text: string): Record<string, unknown> {
	const value = JSON.parse(text) as unknown;
	const first = Array.isArray(value) ? (value[0] as unknown) : value;
	const json = first && typeof first === 'object' && 'json' in first ? (first as { json: unknown }).json : first;
	return json as Record<string, unknown>;
}

/** Deployment → Inference → Run and Training → Get Status in their tool forms. */
export function deploymentAndTrainingTools(): ToolNode[] {
	return [
		{
			name: 'Run Deployment',
			node: 'deployment',
			parameters: {
				resource: 'inference',
				operation: 'run',
				deploymentId: { __rl: true, mode: 'id', value: fromAI('deployment_id', 'The RunComfy deployment id') },
				inputMode: 'json',
				overridesJson: fromAI('overrides', 'The inputs as JSON text, keyed by ComfyUI node id, each with an inputs object'),
				waitOptions: { pollIntervalSeconds: 0.1, maxPollIntervalSeconds: 0.2 },
			},
			continueOnFail: true,
		},
		{
			name: 'Training Status',
			node: 'training',
			parameters: { resource: 'trainingJob', operation: 'getStatus', jobId: fromAI('job_id', 'The training job_id') },
			continueOnFail: true,
		},
	];
}
