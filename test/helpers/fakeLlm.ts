/**
 * A stand-in for an OpenAI-compatible chat model on loopback, scripted per test: n8n's own OpenAI Chat Model
 * node (credential URL pointed here) drives the AI Agent exactly as a user's model would, and every request is
 * recorded, so a test reads the tool list and argument schemas n8n sent to the model.
 *
 * Implemented in scripts/e2e/fake-llm.js (the demo uses it too); these are its types.
 *
 * Like the sandbox it imports nothing from nodes/: it answers as the live chat-completions API does (tool calls
 * with JSON-string arguments, `finish_reason`, usage, and server-sent events when `stream` is set).
 *
 *   const llm = await startFakeLlm([
 *     callTool('Estimate_Cost', { prompt: 'a fox' }),
 *     (req) => answer(`cost: ${lastToolResult(req)}`),
 *   ]);
 */
import * as impl from '../../scripts/e2e/fake-llm';

export interface ChatTool {
	type: 'function';
	function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

export interface ChatMessage {
	role: 'system' | 'user' | 'assistant' | 'tool';
	content?: string | null | Array<{ type: string; text?: string }>;
	tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
	tool_call_id?: string;
	name?: string;
}

export interface ChatRequest {
	model: string;
	messages: ChatMessage[];
	tools?: ChatTool[];
	stream?: boolean;
	[key: string]: unknown;
}

/** What the model answers: tool calls (the agent runs them and asks again) or a final text. */
export type Reply = { toolCalls: Array<{ name: string; arguments: Record<string, unknown> }> } | { content: string };

/** One scripted turn: a fixed reply, or one computed from the request (e.g. from the last tool result). */
export type Step = Reply | ((request: ChatRequest) => Reply);

export interface FakeLlm {
	/** The base URL to put in the OpenAI credential (`.../v1`). */
	baseUrl: string;
	/** Every chat request n8n sent, in order. */
	requests: ChatRequest[];
	/** Replaces the script (steps are consumed in order; a request beyond the script is answered with an error). */
	script(steps: Step[]): void;
	/** Steps not yet consumed. */
	remaining(): number;
	close(): Promise<void>;
}

export const callTool: (name: string, args?: Record<string, unknown>) => Reply = impl.callTool;
export const answer: (content: string) => Reply = impl.answer;
/** The text of a message (string content or the text parts of a content list). */
export const textOf: (message: ChatMessage | undefined) => string = impl.textOf;
/** The tool results the agent has sent back so far, oldest first. */
export const toolResults: (request: ChatRequest) => string[] = impl.toolResults;
/** The last tool result the agent sent back ('' when none). */
export const lastToolResult: (request: ChatRequest) => string = impl.lastToolResult;
export const startFakeLlm = impl.startFakeLlm as (steps?: Step[]) => Promise<FakeLlm>;
