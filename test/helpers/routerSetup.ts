/**
 * The router tests of the four action nodes (test/<Node>/router.test.ts), in the manner of n8n's MiniMax node
 * tests: a small fake IExecuteFunctions (parameters from a plain object) runs the node's real execute() and
 * router, with the operation modules' execute / executeBatch replaced by spies that say which module was
 * reached. Not a test file itself.
 */
import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData, INodeProperties, INodeType } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { testNode } from './testNode';

/** Every resource with every operation of a node's `node.type.ts`; the compiler refuses a missing or extra one. */
export type OperationsOf<T extends { resource: string; operation: string }> = {
	[R in T['resource']]: { [O in Extract<T, { resource: R }>['operation']]: true };
};

type Pair = [resource: string, operation: string];

export interface FakeContext {
	parameters: IDataObject;
	items?: INodeExecutionData[];
	continueOnFail?: boolean;
	/** Runs as an AI agent's tool (isToolExecution() is true). */
	asTool?: boolean;
}

/** The parts of IExecuteFunctions the router and the item policy read; parameters come from a plain object. */
export function fakeExecuteFunctions(o: FakeContext): IExecuteFunctions {
	const node = testNode({ id: 'router-test-node', name: 'Node under test', parameters: o.parameters as INode['parameters'] });
	const items = o.items ?? [{ json: {} }];
	const ctx: Partial<IExecuteFunctions> = {
		getNode: () => node,
		getInputData: () => items,
		getNodeParameter: ((name: string, _itemIndex: number, fallback?: unknown) => {
			if (name in o.parameters) return o.parameters[name];
			if (fallback !== undefined) return fallback;
			throw new Error(`The fake context has no parameter "${name}"`);
		}) as IExecuteFunctions['getNodeParameter'],
		continueOnFail: () => o.continueOnFail ?? false,
		isToolExecution: () => o.asTool ?? false,
	};
	return ctx as IExecuteFunctions;
}

/** The resource/operation pairs the node's description offers in the editor. */
export function describedPairs(properties: INodeProperties[]): Pair[] {
	const resources = properties.find((p) => p.name === 'resource')?.options ?? [];
	return resources.flatMap((r) => {
		const resource = String((r as { value: unknown }).value);
		const operations = properties.find(
			(p) => p.name === 'operation' && (p.displayOptions?.show?.resource as unknown[] | undefined)?.includes(resource),
		);
		return (operations?.options ?? []).map((op): Pair => [resource, String((op as { value: unknown }).value)]);
	});
}

type ItemExecute = (this: IExecuteFunctions, itemIndex: number) => Promise<unknown>;
type BatchExecute = (this: IExecuteFunctions, items: INodeExecutionData[]) => Promise<INodeExecutionData[]>;
type OperationModule = { execute?: ItemExecute; executeBatch?: BatchExecute };

/** The module a pair must reach: nodes/<node>/actions/<resource>/<operation>.operation.ts (docs/dev/architecture.md). */
function moduleOf(nodeDir: string, [resource, operation]: Pair): OperationModule {
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	return require(`../../nodes/${nodeDir}/actions/${resource}/${operation}.operation`) as OperationModule;
}

/** Replaces the module's execute / executeBatch: each item comes back as `json` plus `reached: <resource>/<op>`. */
function spyOn(module: OperationModule, pair: Pair, json: (itemIndex: number) => INodeExecutionData) {
	const reached = pair.join('/');
	const calls: Array<{ ctx: IExecuteFunctions; items?: number; itemIndex?: number }> = [];
	const answer = (itemIndex: number): INodeExecutionData => {
		const item = json(itemIndex);
		return { ...item, json: { ...item.json, reached } };
	};
	if (module.executeBatch) {
		jest.spyOn(module as Required<OperationModule>, 'executeBatch').mockImplementation(async function (this: IExecuteFunctions, items) {
			calls.push({ ctx: this, items: items.length });
			return items.map((_, i) => ({ ...answer(i), pairedItem: { item: i } }));
		});
	} else {
		jest.spyOn(module as Required<OperationModule>, 'execute').mockImplementation(async function (this: IExecuteFunctions, itemIndex) {
			calls.push({ ctx: this, itemIndex });
			return answer(itemIndex);
		});
	}
	return { calls, reached };
}

/**
 * The router tests of one node: `operations` lists node.type.ts (type-checked), `nodeDir` names its folder
 * under nodes/.
 */
export function describeRouter(nodeDir: string, node: INodeType, operations: Record<string, Record<string, true>>): void {
	const pairs = Object.entries(operations).flatMap(([r, ops]) => Object.keys(ops).map((op): Pair => [r, op]));
	const run = async (o: FakeContext) => (await node.execute!.call(fakeExecuteFunctions(o))) as INodeExecutionData[][];
	const itemOperation = pairs.find((pair) => moduleOf(nodeDir, pair).execute !== undefined);

	afterEach(() => jest.restoreAllMocks());

	it('offers in its description exactly the resources and operations of node.type.ts', () => {
		expect(describedPairs(node.description.properties).sort()).toEqual([...pairs].sort());
	});

	it.each(pairs)("%s → %s reaches its module, with the node's context and every item", async (resource, operation) => {
		const module = moduleOf(nodeDir, [resource, operation]);
		const spy = spyOn(module, [resource, operation], () => ({ json: {} }));
		const items = [{ json: { a: 1 } }, { json: { a: 2 } }];
		const out = await run({ parameters: { resource, operation }, items });
		expect(out).toEqual([
			[
				{ json: { reached: spy.reached }, pairedItem: { item: 0 } },
				{ json: { reached: spy.reached }, pairedItem: { item: 1 } },
			],
		]);
		if (module.executeBatch) expect(spy.calls.map((c) => c.items)).toEqual([2]);
		else expect(spy.calls.map((c) => c.itemIndex)).toEqual([0, 1]);
		expect(spy.calls.every((c) => typeof c.ctx.getNodeParameter === 'function')).toBe(true);
	});

	it('an unknown resource or operation throws a NodeOperationError that says what to do', async () => {
		const [resource] = pairs[0];
		for (const parameters of [
			{ resource: 'noSuchResource', operation: pairs[0][1] },
			{ resource, operation: 'noSuchOperation' },
		]) {
			const error = await run({ parameters }).then(
				() => undefined,
				(e: unknown) => e,
			);
			expect(error).toBeInstanceOf(NodeOperationError);
			expect(error).toMatchObject({
				message: `The operation "${parameters.operation}" of "${parameters.resource}" is not supported`,
				description: 'Pick another resource or operation, or update the node.',
			});
		}
	});

	it('Continue on Fail: a failing item becomes an error row paired with it; without, the error names the item', async () => {
		if (!itemOperation) throw new Error(`${nodeDir} has no item operation`);
		const [resource, operation] = itemOperation;
		const module = moduleOf(nodeDir, itemOperation);
		jest.spyOn(module as Required<OperationModule>, 'execute').mockImplementation(async (itemIndex: number) => {
			if (itemIndex === 1) throw new Error('item 1 is bad');
			return { ok: itemIndex };
		});
		const items = [{ json: {} }, { json: {} }, { json: {} }];
		const out = await run({ parameters: { resource, operation }, items, continueOnFail: true });
		expect(out).toEqual([
			[
				{ json: { ok: 0 }, pairedItem: { item: 0 } },
				{ json: { error: 'item 1 is bad' }, pairedItem: { item: 1 } },
				{ json: { ok: 2 }, pairedItem: { item: 2 } },
			],
		]);
		await expect(run({ parameters: { resource, operation }, items })).rejects.toMatchObject({
			message: 'item 1 is bad',
			context: { itemIndex: 1 },
		});
	});

	it("as an agent's tool: every item without binary and with a one-line summary", async () => {
		const [resource, operation] = pairs[0];
		spyOn(moduleOf(nodeDir, pairs[0]), pairs[0], (i) => ({
			json: { request_id: `req-${i}`, status: 'succeeded' },
			binary: { data: { data: 'AAAA', mimeType: 'image/png' } },
		}));
		const [out] = await run({ parameters: { resource, operation }, items: [{ json: {} }], asTool: true });
		expect(out).toHaveLength(1);
		expect(out[0].binary).toBeUndefined();
		expect(out[0].pairedItem).toEqual({ item: 0 });
		expect(out[0].json.summary).toEqual(expect.stringContaining('request_id req-0, status succeeded'));
		expect(out[0].json.summary).not.toMatch(/\n/);
	});
}
