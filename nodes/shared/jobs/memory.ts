/**
 * What an execution's node already submitted, so n8n's Retry On Fail never pays twice.
 *
 * When a node throws and "Retry On Fail" is on, n8n runs its execute() again in the same process, for the same
 * execution and items (n8n-core `workflow-execute.js`). The flow remembers, per execution and node, each item's
 * submission: a retry picks up what was accepted (or may have been) instead of submitting it again, and submits
 * again only what the service refused or what definitively failed there. The memory is freed when the node
 * succeeds, when it fails for the last time, and in any case after a day.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import type { Accepted } from './kind';

export type Remembered =
	/** The service took it; follow this id. */
	| { state: 'accepted'; accepted: Accepted }
	/** No answer was seen: it may have been taken. Never sent again. */
	| { state: 'maybe'; error: Error }
	/** It ran and definitively failed or was cancelled: a retry may submit it again. */
	| { state: 'ended'; accepted: Accepted };

interface Memory {
	tries: number;
	items: Map<number, Remembered>;
	touched: number;
}

const memories = new Map<string, Memory>();

const DAY_MS = 24 * 60 * 60 * 1000;

/** n8n's own bounds of Max Tries (workflow-execute.js): default 3, between 2 and 5. */
const triesAllowed = (ctx: IExecuteFunctions): number => {
	const node = ctx.getNode();
	if (!node.retryOnFail) return 1;
	const max = Number(node.maxTries ?? 3);
	return Math.min(5, Math.max(2, Number.isFinite(max) ? max : 3));
};

const keyOf = (ctx: IExecuteFunctions): string | undefined => {
	const executionId = ctx.getExecutionId?.();
	if (!executionId) return undefined;
	const node = ctx.getNode();
	return `${executionId}\u0000${node.id ?? node.name}`;
};

function sweep(now: number): void {
	for (const [key, memory] of memories) if (now - memory.touched > DAY_MS) memories.delete(key);
}

/** The memory of this execution's node, counting this try. */
export function beginTry(ctx: IExecuteFunctions): SubmissionMemory {
	const now = Date.now();
	sweep(now);
	const key = keyOf(ctx);
	let memory = key ? memories.get(key) : undefined;
	if (!memory) {
		memory = { tries: 0, items: new Map(), touched: now };
		if (key) memories.set(key, memory);
	}
	memory.tries++;
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

	/** After this try: keep the memory only while n8n may still retry the node. */
	settle(failed: boolean): void {
		if (!this.key) return;
		if (!failed || this.memory.tries >= triesAllowed(this.ctx)) memories.delete(this.key);
	}
}

/** How many executions' nodes are remembered right now (for tests of the memory's release). */
export const rememberedCount = (): number => memories.size;
