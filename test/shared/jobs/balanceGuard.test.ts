/**
 * The "Minimum Balance (USD)" option of every paid operation (model run, deployment inference, training submit
 * and resume), in the n8n engine against the sandbox: below the minimum the node stops before anything paid is
 * posted, with an error naming the balance and the minimum (exactly, in microdollars); at or above it, it proceeds.
 */
import type { INodeParameters, INodeType } from 'n8n-workflow';

import type { RequestLogEntry, Sandbox, SandboxConfig } from '../../../sandbox';
import { RunComfyDeployment } from '../../../nodes/RunComfyDeployment/RunComfyDeployment.node';
import { RunComfyModel } from '../../../nodes/RunComfyModel/RunComfyModel.node';
import { RunComfyTraining } from '../../../nodes/RunComfyTraining/RunComfyTraining.node';
import { runNode } from '../../helpers/engine';
import { JOBS, client, jobReaches, readyDataset, submitJob, trainingConfig } from '../../helpers/sandboxCalls';
import { credentialsFor, openSandbox } from '../../helpers/sandboxSetup';

/** Quick runs, training steps and datasets. */
const QUICK: SandboxConfig = { runDurationMs: 20, queueMs: 0, trainingStepMs: 1, trainingQueueMs: 0, datasetReadyMs: 10 };
const FAST_WAIT = { pollIntervalSeconds: 0.02, maxPollIntervalSeconds: 0.05, maxWaitSeconds: 20 };

interface PaidOperation {
	name: string;
	node: INodeType;
	/** Parameters of the operation with the given options collection. */
	parameters(sb: Sandbox, options: INodeParameters): Promise<INodeParameters>;
	/** Whether a log entry is the paid call. */
	isPaid(e: RequestLogEntry): boolean;
	/** What the service charges for one call, µ$. */
	price: number;
}

const OPERATIONS: PaidOperation[] = [
	{
		name: 'RunComfy Model → Model → Run',
		node: new RunComfyModel(),
		parameters: async (_sb, options) => ({
			resource: 'model',
			operation: 'run',
			model: { __rl: true, mode: 'id', value: 'blackforestlabs/flux-2/flash/text-to-image' },
			inputMode: 'json',
			inputsJson: '{"prompt": "a red fox"}',
			waitOptions: FAST_WAIT,
			downloadOutputs: false,
			options,
		}),
		isPaid: (e) => e.api === 'model' && e.method === 'POST' && /^\/v1\/models\//.test(e.path),
		price: 40_000,
	},
	{
		name: 'RunComfy Deployment → Inference → Run',
		node: new RunComfyDeployment(),
		parameters: async (sb, options) => ({
			resource: 'inference',
			operation: 'run',
			deploymentId: { __rl: true, mode: 'id', value: sb.stable.deployments.textToImage },
			inputMode: 'json',
			overridesJson: '{"6": {"inputs": {"text": "a red fox"}}}',
			waitOptions: FAST_WAIT,
			downloadOutputs: false,
			options,
		}),
		isPaid: (e) => e.api === 'serverless' && e.method === 'POST' && /\/inference$/.test(e.path),
		price: 20_000,
	},
	{
		name: 'RunComfy Training → Training Job → Submit',
		node: new RunComfyTraining(),
		parameters: async (sb, options) => {
			await readyDataset(sb, 'dogs');
			return {
				resource: 'trainingJob',
				operation: 'submit',
				configMode: 'text',
				configText: trainingConfig({ name: 'guarded_lora', dataset: 'dogs' }),
				configFormat: 'yaml',
				gpuType: 'ADA_80_PLUS',
				gpuCount: 1,
				waitForCompletion: false,
				options,
			};
		},
		isPaid: (e) => e.api === 'trainer' && e.method === 'POST' && e.path === JOBS,
		price: 250_000,
	},
	{
		name: 'RunComfy Training → Training Job → Resume',
		node: new RunComfyTraining(),
		parameters: async (sb, options) => {
			await readyDataset(sb, 'dogs');
			const jobId = await submitJob(sb, 'preempt_guard', 'dogs', 20);
			await jobReaches(sb, jobId, (j) => j.status === 'STOPPED');
			return {
				resource: 'trainingJob',
				operation: 'resume',
				jobId,
				gpuType: 'ADA_80_PLUS',
				gpuCount: 1,
				waitForCompletion: false,
				options,
			};
		},
		isPaid: (e) => e.api === 'trainer' && e.method === 'POST' && /\/resume$/.test(e.path),
		price: 250_000,
	},
];

const isBalanceRead = (e: RequestLogEntry) => e.api === 'serverless' && e.method === 'GET' && e.path === '/prod/v2/balance';

describe('Minimum Balance (USD) on paid operations', () => {
	let sb: Sandbox;
	beforeAll(async () => {
		sb = await openSandbox(QUICK);
	});
	afterAll(async () => await sb.close());
	beforeEach(() => sb.reset());

	/** Prepares the operation (may spend on setup), then sets the wallet and clears the log. */
	async function prepare(op: PaidOperation, wallet: number, options: INodeParameters) {
		const parameters = await op.parameters(sb, options);
		sb.configure({ walletMicrodollars: wallet });
		sb.clearLog();
		return parameters;
	}

	describe.each(OPERATIONS)('$name', (op) => {
		it('stops before submitting when the balance is one microdollar below the minimum', async () => {
			const parameters = await prepare(op, 999_999, { minimumBalanceUsd: 1 });
			const result = await runNode({ node: op.node, parameters, credentials: credentialsFor(sb) });
			expect(result.status).toBe('error');
			expect(result.error?.message).toBe('The RunComfy balance is $0.999999, below the minimum of $1.00 set on this node');
			expect(result.error?.description).toMatch(/Nothing was submitted.*Minimum Balance \(USD\)/s);
			expect(sb.log().filter(isBalanceRead)).toHaveLength(1);
			expect(sb.log().filter(op.isPaid)).toEqual([]);
			expect(sb.state().walletMicrodollars).toBe(999_999);
		});

		it('proceeds when the balance equals the minimum exactly', async () => {
			const parameters = await prepare(op, 1_000_000, { minimumBalanceUsd: 1 });
			const result = await runNode({ node: op.node, parameters, credentials: credentialsFor(sb) });
			expect(result.error).toBeUndefined();
			expect(result.status).toBe('success');
			expect(
				sb
					.log()
					.filter(op.isPaid)
					.map((e) => e.status),
			).toEqual([200]);
			expect(sb.state().walletMicrodollars).toBe(1_000_000 - op.price);
			// The balance was read before the paid call.
			const log = sb.log();
			expect(log.findIndex(isBalanceRead)).toBeLessThan(log.findIndex(op.isPaid));
		});

		it('under Continue on Fail outputs the error item and still posts nothing', async () => {
			const parameters = await prepare(op, 500_000, { minimumBalanceUsd: 2.5 });
			const result = await runNode({ node: op.node, parameters, credentials: credentialsFor(sb), continueOnFail: true });
			expect(result.status).toBe('success');
			expect(result.items).toHaveLength(1);
			expect(result.items[0].json.error).toBe('The RunComfy balance is $0.50, below the minimum of $2.50 set on this node');
			expect(result.items[0].pairedItem).toEqual({ item: 0 });
			expect(sb.log().filter(op.isPaid)).toEqual([]);
		});

		it('does not read the balance when no minimum is set', async () => {
			const parameters = await prepare(op, 5_000_000, {});
			const result = await runNode({ node: op.node, parameters, credentials: credentialsFor(sb) });
			expect(result.status).toBe('success');
			expect(sb.log().filter(isBalanceRead)).toEqual([]);
			expect(sb.log().filter(op.isPaid)).toHaveLength(1);
		});
	});

	it('checks once per execution, before the first of several paid calls', async () => {
		const op = OPERATIONS[0];
		const parameters = await prepare(op, 1_000_000, { minimumBalanceUsd: 0.5 });
		const result = await runNode({
			node: op.node,
			parameters,
			credentials: credentialsFor(sb),
			inputItems: [{ json: {} }, { json: {} }, { json: {} }],
		});
		expect(result.status).toBe('success');
		expect(sb.log().filter(isBalanceRead)).toHaveLength(1);
		expect(sb.log().filter(op.isPaid)).toHaveLength(3);
	});

	it('the resume guard leaves the stopped job as it was', async () => {
		const op = OPERATIONS[3];
		const parameters = await prepare(op, 100_000, { minimumBalanceUsd: 1 });
		const result = await runNode({ node: op.node, parameters, credentials: credentialsFor(sb) });
		expect(result.status).toBe('error');
		const status = await client(sb).get(`${sb.urls.trainer}${JOBS}/${String(parameters.jobId)}/status`);
		expect(status.data.status).toBe('STOPPED');
	});
});
