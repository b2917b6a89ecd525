/* eslint-disable @n8n/community-nodes/no-restricted-globals */
/**
 * Shared setup of the tool-form tests: a node called the way an AI agent calls it (runNode with asTool: true, so
 * this.isToolExecution() is true, the agent's arguments are the input item and parameters read them with
 * $fromAI()), checks of the compact output, and a virtual clock for the bounded waits. Not a test file itself.
 */
import type { IDataObject, INodeExecutionData, INodeParameters, INodeType } from 'n8n-workflow';

import type { Sandbox } from '../../sandbox';
import { realClock } from '../../nodes/shared/wait';
import { runNode } from './engine';
import type { RunNodeResult } from './engine';
import { credentialsFor } from './sandboxSetup';

/** `={{ $fromAI('key', 'description', 'type') }}`: how a tool parameter is filled by the agent. */
export const fromAI = (key: string, description = '', type = 'string') => `={{ $fromAI('${key}', '${description}', '${type}') }}`;

/**
 * How n8n calls a tool node: `inProcess` as AI Agent 2.x and the MCP Server Trigger do (`isToolExecution()`),
 * `agentNode` as AI Agent 3.x does (an ordinary node of type `<type>Tool`; also every tool call before n8n-core 2.3).
 */
export type ToolPath = 'inProcess' | 'agentNode';

/** Runs `node` as an agent's tool with `args` as the tool call's arguments. */
export async function callTool(
	sb: Sandbox,
	node: INodeType,
	parameters: INodeParameters,
	args: IDataObject = {},
	path: ToolPath = 'inProcess',
): Promise<RunNodeResult> {
	return await runNode({
		node,
		parameters,
		credentials: credentialsFor(sb),
		...(path === 'agentNode' ? { asAgentNode: true } : { asTool: true }),
		inputItems: [{ json: args }],
	});
}

/** The largest output an agent should get from one item (a compact record, not a catalog or a file). */
export const MAX_TOOL_ITEM_BYTES = 8 * 1024;

/** What every tool answer must be: JSON only (no binary), paired, small, and no file was downloaded. */
export function expectCompact(sb: Sandbox, result: RunNodeResult): INodeExecutionData[] {
	expect(result.error).toBeUndefined();
	expect(result.status).toBe('success');
	expect(result.items.length).toBeGreaterThan(0);
	for (const item of result.items) {
		expect(item.binary).toBeUndefined();
		expect(item.pairedItem).toEqual({ item: 0 });
		expect(Buffer.byteLength(JSON.stringify(item.json))).toBeLessThan(MAX_TOOL_ITEM_BYTES);
	}
	expect(sb.log().filter((e) => e.api === 'files' || e.api === 'foreign')).toEqual([]);
	return result.items;
}

/** A one-line summary that names the given ids. */
export function expectSummary(json: IDataObject, ...mentions: string[]): string {
	expect(typeof json.summary).toBe('string');
	const summary = json.summary as string;
	expect(summary).not.toMatch(/\n/);
	expect(summary.length).toBeGreaterThan(10);
	for (const m of mentions) expect(summary).toContain(m);
	return summary;
}

/**
 * Makes the wait engine's clock virtual: every sleep advances it at once, so a wait capped at 120 s ends in
 * milliseconds while the sandbox (real time) still has the job running. Returns the virtual time waited so far.
 */
export function virtualWaitClock(): { elapsedMs(): number; restore(): void } {
	let virtual = 0;
	// Time passes only by the sleeps: however long the machine takes to run the tool, it waits the same virtual time.
	const start = Date.now();
	const now = jest.spyOn(realClock, 'now').mockImplementation(() => start + virtual);
	const sleep = jest.spyOn(realClock, 'sleep').mockImplementation(async (ms: number, signal?: AbortSignal) => {
		if (signal?.aborted) throw signal.reason;
		virtual += ms;
		await new Promise<void>((resolve) => setImmediate(resolve));
	});
	return {
		elapsedMs: () => virtual,
		restore: () => {
			now.mockRestore();
			sleep.mockRestore();
		},
	};
}
