/** Types of scripts/e2e/fake-llm.js; test/helpers/fakeLlm.ts gives the precise ones. */
export function startFakeLlm(steps?: unknown[]): Promise<{
	baseUrl: string;
	requests: unknown[];
	script(steps: unknown[]): void;
	remaining(): number;
	close(): Promise<void>;
}>;
export function callTool(
	name: string,
	args?: Record<string, unknown>,
): { toolCalls: Array<{ name: string; arguments: Record<string, unknown> }> };
export function answer(content: string): { content: string };
export function textOf(message: unknown): string;
export function toolResults(request: unknown): string[];
export function lastToolResult(request: unknown): string;
