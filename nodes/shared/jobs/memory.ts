/**
 * What an execution's node already submitted, so n8n's Retry On Fail never pays twice: a retry follows what was
 * (or may have been) accepted. A call is its execution, node and run index; an agent's tool call adds its input
 * (each try gets a new run index), a sub-workflow adds the calling execution.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { isToolCall, toolExecution } from '../items';
import type { Accepted, JobItem } from './kind';

/** Marks an output of a job an earlier try submitted (followed, not paid again), also in the agent's compact answer. */
export const PICKED_UP = 'submitted_by_earlier_try';

/** The agent form of a job's JSON (`toolJson`), keeping the mark of a picked-up job and saying it in the summary. */
export function keepPickedUp(json: IDataObject, compact: IDataObject): IDataObject {
	if (json[PICKED_UP] !== true) return compact;
	const note = 'Submitted by an earlier try of this call: followed, not paid again.';
	return { ...compact, [PICKED_UP]: true, summary: typeof compact.summary === 'string' ? `${compact.summary} ${note}` : note };
}

export type Remembered =
	/** The service took it; follow this id. */
	| { state: 'accepted'; accepted: Accepted; prepared: JobItem }
	/** No answer was seen: it may have been taken. Never sent again. */
	| { state: 'maybe'; error: Error; prepared: JobItem }
	/** It ran and definitively failed or was cancelled: a retry may submit it again. */
	| { state: 'ended'; accepted: Accepted }
	/** Listed by the failed execution that n8n's Retry runs again (./retried.ts); no `id`: it may have been paid. */
	| { state: 'retried'; id?: string; unlisted?: boolean };

interface Memory {
	tries: number;
	/** Kept for a caller's retry of a sub-workflow (the caller's tries are not visible here). */
	inSubWorkflow: boolean;
	items: Map<number, Remembered>;
	/** A try is running (never swept then: a wait may last days). */
	active: boolean;
	touched: number;
}

const memories = new Map<string, Memory>();

const DAY_MS = 24 * 60 * 60 * 1000;
const SUB_WORKFLOW_KEEP_MS = 60 * 60 * 1000;

/**
 * n8n's test (workflow-execute.js checkFailure) for running a node again under Retry On Fail: its first item's
 * `error`.
 */
export function firstItemFailed(out: INodeExecutionData[]): boolean {
	const error = out[0]?.json.error;
	return error !== undefined && error !== null && error !== false;
}

/** n8n's own bounds of Max Tries (workflow-execute.js getRetryParams): default 3, between 2 and 5. */
const triesAllowed = (ctx: IExecuteFunctions): number => {
	const node = ctx.getNode();
	if (node.retryOnFail !== true) return 1;
	const max = Number(node.maxTries) || 3;
	return Math.min(5, Math.max(2, max));
};

/** The run index of this execution of the node: a node in a loop runs again with other items (a new index). */
export function runIndexOf(ctx: IExecuteFunctions): number {
	try {
		const index = ctx.getWorkflowDataProxy(0).$runIndex as unknown;
		return typeof index === 'number' ? index : 0;
	} catch {
		return 0;
	}
}

/** JSON with object keys sorted, so the same arguments in another order are the same call. */
function stableJson(value: unknown): string {
	if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
	if (value !== null && typeof value === 'object') {
		const entries = Object.keys(value)
			.sort()
			.filter((k) => (value as Record<string, unknown>)[k] !== undefined)
			.map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`);
		return `{${entries.join(',')}}`;
	}
	return JSON.stringify(value) ?? 'null';
}

/** The input items of this run, as JSON with sorted keys. */
function inputKey(ctx: IExecuteFunctions): string {
	let input: unknown = [];
	try {
		input = ctx.getInputData().map((item) => item.json);
	} catch {
		// no input: every call is the same call
	}
	return stableJson(input);
}

/** The execution that called this sub-workflow, when n8n says so (n8n 1.123 and 2.x pass it to the sub-execution). */
function callingExecutionId(ctx: IExecuteFunctions): string | undefined {
	try {
		const parent = ctx.getExecutionContext?.()?.parentExecutionId;
		return typeof parent === 'string' && parent !== '' ? parent : undefined;
	} catch {
		return undefined;
	}
}

const callTokens = new WeakMap<object, string>();
let lastCallToken = 0;

/**
 * The MCP Server Trigger runs its tools inside the webhook request, before n8n creates the execution: there is no
 * execution id.
 */
function callOutsideExecution(ctx: IExecuteFunctions): string | undefined {
	let data: unknown;
	try {
		data = ctx.getExecuteData?.();
	} catch {
		return undefined;
	}
	if (data === null || typeof data !== 'object') return undefined;
	let token = callTokens.get(data);
	if (token === undefined) {
		token = `call:${++lastCallToken}`;
		callTokens.set(data, token);
	}
	return token;
}

/** What identifies one call of the node: its execution (or its caller's) and node, and the run index or input. */
function memoryKey(ctx: IExecuteFunctions): { prefix: string; key: string; inSubWorkflow: boolean } | undefined {
	const node = ctx.getNode();
	const nodeKey = node.id ?? node.name;
	const caller = callingExecutionId(ctx);
	if (caller !== undefined) {
		const prefix = `sub\u0000${caller}\u0000${ctx.getWorkflow?.().id ?? ''}\u0000${nodeKey}`;
		return { prefix, key: `${prefix}\u0000${runIndexOf(ctx)}\u0000${inputKey(ctx)}`, inSubWorkflow: true };
	}
	const executionId = ctx.getExecutionId?.() || callOutsideExecution(ctx);
	if (!executionId) return undefined;
	const prefix = `${executionId}\u0000${nodeKey}`;
	const call = isToolCall(ctx) ? `tool\u0000${inputKey(ctx)}` : String(runIndexOf(ctx));
	return { prefix, key: `${prefix}\u0000${call}`, inSubWorkflow: false };
}

function sweep(now: number): void {
	for (const [key, memory] of memories) {
		const keep = memory.inSubWorkflow ? SUB_WORKFLOW_KEEP_MS : DAY_MS;
		if (!memory.active && now - memory.touched > keep) memories.delete(key);
	}
}

/** Frees every memory of this execution's node when the execution ends (n8n ≥ 2.x lifecycle hook, if present). */
function freeAtExecutionEnd(ctx: IExecuteFunctions, prefix: string): void {
	try {
		ctx.onExecutionFinish?.(() => {
			for (const key of [...memories.keys()]) if (key.startsWith(prefix)) memories.delete(key);
		});
	} catch {
		// no lifecycle hooks in this context: `settle` and the sweep free it
	}
}

/** The memory of this execution's node run, counting this try. */
export function beginTry(ctx: IExecuteFunctions): SubmissionMemory {
	const now = Date.now();
	sweep(now);
	const found = memoryKey(ctx);
	let key = found?.key;
	let memory = key ? memories.get(key) : undefined;
	if (memory?.active) {
		// The same input, called again while a try of it runs: another call, never an earlier try of this one.
		key = undefined;
		memory = undefined;
	}
	if (!memory) {
		memory = { tries: 0, inSubWorkflow: found?.inSubWorkflow ?? false, items: new Map(), active: false, touched: now };
		if (key && found) {
			memories.set(key, memory);
			// A sub-execution ends before its caller's retry starts: that end must not free the memory.
			if (!found.inSubWorkflow) freeAtExecutionEnd(ctx, found.prefix);
		}
	}
	memory.tries++;
	memory.active = true;
	memory.touched = now;
	return new SubmissionMemory(ctx, key, memory);
}

export class SubmissionMemory {
	constructor(
		private readonly ctx: IExecuteFunctions,
		private readonly key: string | undefined,
		private readonly memory: Memory,
	) {}

	/** 1 on the first run of the node in this execution, 2 on its first retry, ... */
	get tryNumber(): number {
		return this.memory.tries;
	}

	get(itemIndex: number): Remembered | undefined {
		return this.memory.items.get(itemIndex);
	}

	set(itemIndex: number, entry: Remembered): void {
		this.memory.items.set(itemIndex, entry);
		this.memory.touched = Date.now();
	}

	/**
	 * Why n8n may run the node again after this try's output (`firstFailed`: its first item failed), and so throw
	 * that output away; undefined when the output is final.
	 */
	mayRerun(firstFailed: boolean): string | undefined {
		// n8n-core's tool invocation handler runs the node again only when it throws: an output is the call's answer.
		if (!firstFailed || toolExecution(this.ctx)) return undefined;
		if (this.memory.inSubWorkflow) return 'the first item failed, and the workflow that called this one may run it again (Retry On Fail)';
		if (this.ctx.getNode().retryOnFail === true && this.memory.tries < triesAllowed(this.ctx)) {
			return 'the first item failed, and Retry On Fail may run this node again';
		}
		return undefined;
	}

	/** After this try. */
	settle(mayRunAgain: boolean): void {
		this.memory.active = false;
		this.memory.touched = Date.now();
		if (!this.key) return;
		if (!mayRunAgain) memories.delete(this.key);
		else if (!this.memory.inSubWorkflow && this.memory.tries >= triesAllowed(this.ctx)) memories.delete(this.key);
	}
}

/** How many executions' node runs are remembered right now (for tests of the memory's release). */
export const rememberedCount = (): number => memories.size;
