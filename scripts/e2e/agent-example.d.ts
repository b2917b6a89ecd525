/** Types of scripts/e2e/agent-example.js. */
import type * as fakeLlm from './fake-llm';

export function agentExampleScript(llm: typeof fakeLlm, modelId: string, prompt: string): unknown[];
export function agentExampleWorkflow(
	chatInput: string,
	openAi: { id: string; name: string },
): { nodes: Array<Record<string, unknown>>; connections: Record<string, unknown>; [key: string]: unknown };
export function standInModelCredential(
	baseUrl: string,
	id: string,
): { id: string; name: string; type: string; data: Record<string, string> };
