/**
 * The submission memory behind Retry On Fail (nodes/shared/jobs/memory.ts), on its own: kept per execution, node
 * and run index only while n8n may still run the node again, freed at the last try, on success, and when the
 * execution ends. (The whole behaviour inside n8n's engine: test/faults/retry-on-fail.*.test.ts.)
 */
import type { IExecuteFunctions, INode } from 'n8n-workflow';

import { beginTry, rememberedCount } from '../../../nodes/shared/jobs/memory';

interface FakeContext {
	ctx: IExecuteFunctions;
	/** Runs the handlers given to onExecutionFinish, as n8n does when the execution ends. */
	finish(): void;
}

interface SubWorkflowCall {
	/** The execution that called the sub-workflow (Execute Workflow, Call n8n Workflow Tool). */
	caller: string;
	input: object[];
	workflowId?: string;
}

/** Just what the memory reads of an execute context: execution id, node settings, run index, the finish hook. */
function fakeContext(executionId: string, node: Partial<INode>, runIndex = 0, sub?: SubWorkflowCall): FakeContext {
	const handlers: Array<() => unknown> = [];
	const ctx = {
		getExecutionId: () => executionId,
		getExecutionContext: () =>
			sub
				? { version: 1, establishedAt: 0, source: 'integrated', parentExecutionId: sub.caller }
				: { version: 1, establishedAt: 0, source: 'manual' },
		getWorkflow: () => ({ id: sub?.workflowId ?? 'wf-1', active: false }),
		getInputData: () => (sub?.input ?? []).map((json) => ({ json })),
		getNode: () => ({ id: 'node-1', name: 'Run', ...node }) as INode,
		getWorkflowDataProxy: () => ({ $runIndex: runIndex }),
		onExecutionFinish: (handler: () => unknown) => handlers.push(handler),
	} as unknown as IExecuteFunctions;
	return { ctx, finish: () => handlers.forEach((h) => h()) };
}

const accepted = { state: 'accepted' as const, accepted: { id: 'r-1', json: {} }, prepared: { itemIndex: 0 } };
const retrying = { retryOnFail: true, maxTries: 3 };

afterEach(() => {
	expect(rememberedCount()).toBe(0);
});

describe('the submission memory', () => {
	it('keeps what a failed try submitted for the next try, and frees it after the last one', () => {
		const { ctx } = fakeContext('e-1', retrying);
		const first = beginTry(ctx);
		first.set(0, accepted);
		first.settle(true);
		expect(rememberedCount()).toBe(1);

		const second = beginTry(ctx);
		expect(second.tryNumber).toBe(2);
		expect(second.get(0)).toEqual(accepted);
		second.settle(true);
		const third = beginTry(ctx);
		third.settle(true);
		expect(rememberedCount()).toBe(0);
	});

	it('is freed when the node succeeds, and not kept at all without Retry On Fail', () => {
		const retried = fakeContext('e-2', retrying).ctx;
		beginTry(retried).settle(false);
		expect(rememberedCount()).toBe(0);
		const plain = fakeContext('e-3', {}).ctx;
		beginTry(plain).settle(true);
		expect(rememberedCount()).toBe(0);
	});

	it('n8n allows 2 to 5 tries: Max Tries 1 still means one retry, 9 means five tries', () => {
		const low = fakeContext('e-4', { retryOnFail: true, maxTries: 1 }).ctx;
		beginTry(low).settle(true);
		expect(rememberedCount()).toBe(1);
		beginTry(low).settle(true);
		expect(rememberedCount()).toBe(0);

		const high = fakeContext('e-5', { retryOnFail: true, maxTries: 9 }).ctx;
		for (let i = 1; i <= 4; i++) {
			beginTry(high).settle(true);
			expect(rememberedCount()).toBe(1);
		}
		beginTry(high).settle(true);
	});

	it('a later run of the node in a loop (another run index) starts afresh', () => {
		const run0 = fakeContext('e-6', retrying, 0);
		const first = beginTry(run0.ctx);
		first.set(0, accepted);
		first.settle(true);
		const loop = beginTry(fakeContext('e-6', retrying, 1).ctx);
		expect(loop.get(0)).toBeUndefined();
		loop.settle(false);
		// The first run's memory stays until n8n gives up on it or the execution ends.
		expect(rememberedCount()).toBe(1);
		run0.finish();
	});

	it('is freed when the execution ends, even while n8n could still retry', () => {
		const { ctx, finish } = fakeContext('e-7', retrying);
		const memory = beginTry(ctx);
		memory.set(0, accepted);
		memory.settle(true);
		expect(rememberedCount()).toBe(1);
		finish();
		expect(rememberedCount()).toBe(0);
	});

	it('other executions and other nodes are not touched', () => {
		const a = fakeContext('e-8', retrying);
		const b = fakeContext('e-9', retrying);
		beginTry(a.ctx).settle(true);
		beginTry(b.ctx).settle(true);
		expect(rememberedCount()).toBe(2);
		a.finish();
		expect(rememberedCount()).toBe(1);
		b.finish();
	});
});

describe('the submission memory in a sub-workflow (the caller retries it as a new execution)', () => {
	const call = (subExecution: string, input: object[], extra: Partial<SubWorkflowCall> = {}) =>
		fakeContext(subExecution, {}, 0, { caller: 'parent-1', input, ...extra });

	afterEach(() => jest.useRealTimers());

	it("a retry of the caller picks up what the earlier sub-execution submitted, though the node's own Retry On Fail is off", () => {
		const first = call('sub-1', [{ prompt: 'a red fox' }]);
		const memory = beginTry(first.ctx);
		memory.set(0, accepted);
		memory.settle(true);
		// The sub-execution ends before the caller's retry starts: its end does not free the memory.
		first.finish();
		expect(rememberedCount()).toBe(1);

		const retry = beginTry(call('sub-2', [{ prompt: 'a red fox' }]).ctx);
		expect(retry.tryNumber).toBe(2);
		expect(retry.get(0)).toEqual(accepted);
		retry.settle(false);
		expect(rememberedCount()).toBe(0);
	});

	it('another input, another caller or another sub-workflow is another call', () => {
		const first = beginTry(call('sub-3', [{ prompt: 'a red fox' }]).ctx);
		first.set(0, accepted);
		first.settle(true);
		for (const other of [
			call('sub-4', [{ prompt: 'a blue fox' }]),
			call('sub-5', [{ prompt: 'a red fox' }], { caller: 'parent-2' }),
			call('sub-6', [{ prompt: 'a red fox' }], { workflowId: 'wf-2' }),
		]) {
			const memory = beginTry(other.ctx);
			expect(memory.get(0)).toBeUndefined();
			memory.settle(false);
		}
		const retry = beginTry(call('sub-7', [{ prompt: 'a red fox' }]).ctx);
		expect(retry.get(0)).toEqual(accepted);
		retry.settle(false);
	});

	it("is kept after every failed try (the caller's Max Tries is not visible), and let go an hour after the last", () => {
		jest.useFakeTimers({ now: new Date('2026-11-28T12:00:00Z') });
		for (let i = 0; i < 6; i++) beginTry(call(`sub-8-${i}`, [{ prompt: 'a red fox' }]).ctx).settle(true);
		expect(rememberedCount()).toBe(1);
		jest.setSystemTime(new Date('2026-11-28T12:59:00Z'));
		beginTry(call('sub-9', [{ prompt: 'another call' }]).ctx).settle(false);
		expect(rememberedCount()).toBe(1);
		jest.setSystemTime(new Date('2026-11-28T13:01:00Z'));
		beginTry(call('sub-10', [{ prompt: 'another call' }]).ctx).settle(false);
		expect(rememberedCount()).toBe(0);
	});
});

describe('whether n8n may throw a try’s output away (mayRerun: what cannot be undone waits for a kept output)', () => {
	const tryOf = (node: Partial<INode>, tries: number, sub?: SubWorkflowCall) => {
		const { ctx, finish } = fakeContext('e-rerun', node, 0, sub);
		let memory = beginTry(ctx);
		for (let n = 1; n < tries; n++) {
			memory.settle(true);
			memory = beginTry(ctx);
		}
		return { memory, done: () => (memory.settle(false), finish()) };
	};

	it('a first item that did not fail: the output is kept', () => {
		const { memory, done } = tryOf({ retryOnFail: true, maxTries: 2 }, 1);
		expect(memory.mayRerun(false)).toBeUndefined();
		done();
	});

	it('a first item that failed under Retry On Fail: thrown away on every try but the last', () => {
		const first = tryOf({ retryOnFail: true, maxTries: 2 }, 1);
		expect(first.memory.mayRerun(true)).toMatch(/Retry On Fail may run this node again/);
		first.done();
		const last = tryOf({ retryOnFail: true, maxTries: 2 }, 2);
		expect(last.memory.mayRerun(true)).toBeUndefined();
		last.done();
	});

	it('without Retry On Fail the output is kept, first item failed or not', () => {
		const { memory, done } = tryOf({}, 1);
		expect(memory.mayRerun(true)).toBeUndefined();
		done();
	});

	it("in a sub-workflow a first item that failed may always be run again (the caller's tries are not visible)", () => {
		const { memory, done } = tryOf({}, 1, { caller: 'parent-rerun', input: [{ prompt: 'a fox' }] });
		expect(memory.mayRerun(true)).toMatch(/workflow that called this one/);
		expect(memory.mayRerun(false)).toBeUndefined();
		done();
	});
});

describe("a tool call through n8n-core's tool invocation handler (AI Agent 2.x, MCP Server Trigger)", () => {
	/** A try of a tool call: the handler's context, with the execute data of the request (MCP: no execution id). */
	function toolTry(executionId: string | undefined, executeData: object, args: object): IExecuteFunctions {
		return {
			getExecutionId: () => executionId,
			getExecuteData: () => executeData,
			getExecutionContext: () => undefined,
			getInputData: () => [{ json: args }],
			getNode: () => ({ id: 'node-1', name: 'Run', type: 'runComfyModelTool', ...retrying }) as INode,
			getWorkflowDataProxy: () => ({ $runIndex: 0 }),
			isToolExecution: () => true,
		} as unknown as IExecuteFunctions;
	}

	it('MCP (no execution id): the tries of one request share a memory; another request with the same arguments does not', () => {
		const request = { node: 'MCP Server Trigger' };
		const first = beginTry(toolTry(undefined, request, { prompt: 'a fox' }));
		first.set(0, accepted);
		first.settle(true);
		const retry = beginTry(toolTry(undefined, request, { prompt: 'a fox' }));
		expect(retry.get(0)).toEqual(accepted);
		const other = beginTry(toolTry(undefined, { node: 'MCP Server Trigger' }, { prompt: 'a fox' }));
		expect(other.get(0)).toBeUndefined();
		other.settle(false);
		retry.settle(false);
	});

	it('an output is the answer (the handler runs the node again only when it throws): a first item that failed frees the memory', () => {
		const first = beginTry(toolTry('e-tool', {}, { prompt: 'a fox' }));
		first.set(0, accepted);
		const rerun = first.mayRerun(true);
		expect(rerun).toBeUndefined();
		first.settle(rerun !== undefined);
		expect(rememberedCount()).toBe(0);
	});
});
