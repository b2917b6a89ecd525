/**
 * Model → Run's "Max Estimated Cost (USD)": the batch's estimate (catalog base price × units, see Estimate Cost) is
 * checked before the first paid call; over the cap the whole batch is refused with the estimate and the item
 * count, and nothing is submitted. The cap is per execution: what the node already submitted in this execution
 * counts (a later try of Retry On Fail books only what it submits anew). Items whose price cannot be derived are
 * refused while a cap is set. On an AI agent's or MCP client's tool call the cap is per call instead: n8n runs many
 * calls in one execution, and neither earlier calls nor refused submissions count. Proven from the sandbox log and
 * wallet.
 */
import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';

import { assertCostCap, bookedCount } from '../../nodes/shared/jobs/guards';
import { RunComfyModel } from '../../nodes/RunComfyModel/RunComfyModel.node';
import { MODEL_RUN_PARAMETERS } from '../../scripts/e2e/polling';
import { runNode } from '../helpers/engine';
import type { RunNodeResult } from '../helpers/engine';
import { STABLE, credentialsFor, isModelSubmit, useFaultSandbox } from '../helpers/faults-setup';

const WAIT = { pollIntervalSeconds: 0.02, maxPollIntervalSeconds: 0.05, maxWaitSeconds: 20 };
const WALLET = 10_000_000;
const NO_DURATION = 'wan-ai/wan-2-2/a14b/text-to-video';
/** $0.05 an image (flash: $0.04). */
const PRO = 'blackforestlabs/flux-2/pro/text-to-image';

const sb = useFaultSandbox();
beforeEach(() => sb.reset({ runDurationMs: 30, queueMs: 0, walletMicrodollars: WALLET }));

async function runWithCap(
	models: string[],
	cap: number | string,
	extra: Partial<Parameters<typeof runNode>[0]> = {},
): Promise<RunNodeResult> {
	return await runNode({
		node: new RunComfyModel(),
		credentials: credentialsFor(sb),
		inputItems: models.map((model, i) => ({ json: { model, prompt: `item ${i}` } })),
		parameters: {
			...MODEL_RUN_PARAMETERS,
			waitOptions: WAIT,
			options: { maxEstimatedCostUsd: cap },
		},
		...extra,
	});
}

const nothingPaid = () => {
	expect(sb.log().filter(isModelSubmit)).toEqual([]);
	expect(sb.state().walletMicrodollars).toBe(WALLET);
};

describe('Max Estimated Cost (USD) on Model → Run', () => {
	// What each execution booked against its cap is freed when the execution ends.
	afterEach(() => expect(bookedCount()).toBe(0));

	it('refuses a batch over the cap before any paid call, naming the estimate, the item count and the cap', async () => {
		const result = await runWithCap(Array(10).fill(STABLE.flash), 0.25);
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe('The estimated cost of 10 items is $0.40 above the cap of $0.25');
		expect(result.error?.description).toMatch(/^Nothing was submitted\. .*raise "Max Estimated Cost \(USD\)"/);
		nothingPaid();
	});

	it('refuses it with Continue on Fail too: every item says why, nothing is paid', async () => {
		const result = await runWithCap(Array(10).fill(STABLE.flash), 0.25, { continueOnFail: true });
		expect(result.items).toHaveLength(10);
		for (const item of result.items) expect(item.json.error).toBe('The estimated cost of 10 items is $0.40 above the cap of $0.25');
		nothingPaid();
	});

	it('runs a batch within the cap (the cap is inclusive)', async () => {
		const result = await runWithCap(Array(5).fill(STABLE.flash), '0.20');
		expect(result.status).toBe('success');
		expect(sb.log().filter(isModelSubmit)).toHaveLength(5);
	});

	it('refuses items whose cost cannot be estimated while a cap is set, and runs them when it is 0 (off)', async () => {
		const refused = await runWithCap([STABLE.flash, NO_DURATION], 100);
		expect(refused.status).toBe('error');
		expect(refused.error?.message).toBe('The cost of 1 of 2 items cannot be estimated, so "Max Estimated Cost (USD)" cannot be enforced');
		expect(refused.error?.description).toMatch(/^Item 1: .*priced per second of output.*Nothing was submitted/);
		nothingPaid();

		const off = await runWithCap([STABLE.flash, NO_DURATION], 0);
		expect(off.status).toBe('success');
		expect(sb.log().filter(isModelSubmit)).toHaveLength(2);
	});

	it('Retry On Fail: a later try books only what it submits anew, so the retries are not refused', async () => {
		// Try 1 submits 4 × $0.04 + $0.001 = $0.161; each retry adds only the failing run's $0.001. Booking the
		// whole batch again would exceed $0.25 on the second try.
		const models = [STABLE.flash, STABLE.flash, STABLE.fails, STABLE.flash, STABLE.flash];
		const result = await runWithCap(models, 0.25, { nodeOverrides: { retryOnFail: true, maxTries: 3, waitBetweenTries: 10 } });
		expect(result.status).toBe('error');
		expect(result.error?.message).toMatch(/failed/);
		const submits = sb.log().filter(isModelSubmit);
		expect(submits.filter((e) => e.path.endsWith(STABLE.fails))).toHaveLength(3);
		expect(submits).toHaveLength(7);
	});
});

describe('Max Estimated Cost (USD) on a tool call is per call', () => {
	afterEach(() => expect(bookedCount()).toBe(0));

	/** The tool calls one after the other in one execution, through n8n-core's tool handler; each call's answer. */
	async function toolCalls(cap: number, args: IDataObject[]): Promise<IDataObject[]> {
		const result = await runNode({
			node: new RunComfyModel(),
			credentials: credentialsFor(sb),
			viaToolHandler: true,
			inputItems: args.map((json) => ({ json })),
			parameters: {
				resource: 'model',
				operation: 'run',
				model: { __rl: true, mode: 'id', value: "={{ $fromAI('model_id', 'The model') }}" },
				inputMode: 'json',
				inputsJson: "={{ JSON.stringify($fromAI('inputs', 'The inputs', 'json')) }}",
				waitOptions: WAIT,
				options: { maxEstimatedCostUsd: cap },
			},
		});
		expect(result.status).toBe('success');
		const driver = result.run.data.resultData.runData[result.nodeDefinition.name].find((task) => task.data?.main);
		return (driver?.data?.main?.[0] ?? []).map((item) => item.json);
	}
	const call = (model: string, inputs: IDataObject) => ({ model_id: model, inputs });

	it('two calls in one execution, each under the cap, both run', async () => {
		const answers = await toolCalls(0.05, [call(STABLE.flash, { prompt: 'a red fox' }), call(STABLE.flash, { prompt: 'a blue fox' })]);
		expect(answers.map((a) => a.toolError)).toEqual([undefined, undefined]);
		expect(sb.log().filter(isModelSubmit)).toHaveLength(2);
		expect(sb.state().walletMicrodollars).toBe(WALLET - 80_000);
	});

	it('a submission the service refused ($0 spent) does not count against a later call', async () => {
		// The balance pays for the $0.04 run but not the $0.05 one: the first call is refused by RunComfy.
		sb.configure({ walletMicrodollars: 45_000 });
		const answers = await toolCalls(0.08, [call(PRO, { prompt: 'a red fox' }), call(STABLE.flash, { prompt: 'a blue fox' })]);
		expect(String(answers[0].toolError)).toMatch(/InsufficientResources/);
		expect(answers[1].toolError).toBeUndefined();
		expect(JSON.parse(String(answers[1].response))).toMatchObject([{ status: 'succeeded' }]);
		expect(sb.state().walletMicrodollars).toBe(5_000);
	});

	it('a call over the cap is refused, nothing paid, and the agent reads the estimate, the cap and what to change', async () => {
		const answers = await toolCalls(0.1, [call(STABLE.flash, { prompt: 'four foxes', num_images: 4 })]);
		expect(String(answers[0].toolError)).toBe(
			'The estimated cost of this call is $0.16, above the "Max Estimated Cost (USD)" of $0.10 per call\n\n' +
				'Details: Nothing was submitted or charged. Ask for less in one call (fewer outputs, a shorter duration) so the estimate is at most $0.10, ' +
				'or ask the user to raise "Max Estimated Cost (USD)" on the node. ' +
				"The estimate is the catalog's base price × the outputs or seconds asked for (Estimate Cost shows it).",
		);
		nothingPaid();
	});
});

describe('the cap is per execution (across loops and tries of the node)', () => {
	const node = { id: 'node-1', name: 'Run' } as INode;
	const ctxOf = (executionId: string) => {
		const finish: Array<() => unknown> = [];
		const ctx = {
			getExecutionId: () => executionId,
			getNode: () => node,
			onExecutionFinish: (h: () => unknown) => finish.push(h),
		} as unknown as IExecuteFunctions;
		return { ctx, end: () => finish.forEach((h) => h()) };
	};
	const usd = (...amounts: number[]) => amounts.map((a, itemIndex) => ({ itemIndex, estimate: { usd: a, basis: 'test' } }));

	it('a second batch of the same node in the same execution counts what the first one booked', () => {
		const { ctx, end } = ctxOf('exec-1');
		assertCostCap(ctx, 1, usd(0.3, 0.3));
		expect(() => assertCostCap(ctx, 1, usd(0.3, 0.3))).toThrow(
			'The estimated cost of 2 items is $0.60, plus $0.60 this node already submitted in this execution, above the cap of $1.00',
		);
		// Still within the cap: booked too.
		assertCostCap(ctx, 1, usd(0.4));
		expect(() => assertCostCap(ctx, 1, usd(0.000001))).toThrow(/plus \$1\.00 this node already submitted/);
		// Another execution starts at zero; the booking is freed when the execution ends.
		const other = ctxOf('exec-2');
		assertCostCap(other.ctx, 1, usd(1));
		expect(bookedCount()).toBe(2);
		end();
		other.end();
		expect(bookedCount()).toBe(0);
	});

	it('a tool call books nothing: the next call of the execution starts at zero', () => {
		const { ctx } = ctxOf('exec-3');
		for (let i = 0; i < 3; i++) assertCostCap(ctx, 1, usd(0.6), 'call');
		expect(() => assertCostCap(ctx, 1, usd(0.6, 0.6), 'call')).toThrow('The estimated cost of this call is $1.20');
		expect(bookedCount()).toBe(0);
	});
});
