/**
 * The bad-input table's runner, shared by the per-node files next to it: every row is one mistake a user can
 * make, run through the real n8n engine against the sandbox. Each row must give an error that names the problem
 * (`error`) and a description that says how to fix it (`fix`), and — from the sandbox's request log — nothing
 * may reach a paid endpoint (model submit, deployment inference, training submit/resume). Rows about an empty
 * wallet do reach the paid endpoint, which refuses them: for those the log must show the refusal and the service
 * nothing created or charged. Rows that are not errors by design assert their result in `succeeds`. The token
 * never appears in any result. Not a test file itself.
 */
import type { INodeParameters, INodeType } from 'n8n-workflow';

import type { RequestLogEntry, Sandbox, SandboxConfig } from '../../../sandbox';
import { RunComfyDataset } from '../../../nodes/RunComfyDataset/RunComfyDataset.node';
import { RunComfyDeployment } from '../../../nodes/RunComfyDeployment/RunComfyDeployment.node';
import { RunComfyModel } from '../../../nodes/RunComfyModel/RunComfyModel.node';
import { RunComfyTraining } from '../../../nodes/RunComfyTraining/RunComfyTraining.node';
import { RunComfyTrigger } from '../../../nodes/RunComfyTrigger/RunComfyTrigger.node';
import { disposeEngine, poll, runNode } from '../../helpers/engine';
import type { InputItem, RunComfyCredentialData, RunNodeResult } from '../../helpers/engine';
import {
	STABLE,
	completedModelRun,
	credentialsFor,
	direct,
	exposedBy,
	isPaid,
	leaksOf,
	openFaultSandbox,
	readyDataset,
	trainingConfig,
	until,
} from '../../helpers/faults-setup';

export { STABLE, trainingConfig };

export const NODES: Record<string, INodeType> = {
	model: new RunComfyModel(),
	deployment: new RunComfyDeployment(),
	dataset: new RunComfyDataset(),
	training: new RunComfyTraining(),
	trigger: new RunComfyTrigger(),
};
export type NodeKey = 'model' | 'deployment' | 'dataset' | 'training' | 'trigger';

/** Things created in the sandbox before a table runs, for rows that act on existing resources. */
export interface Fixtures {
	readyDataset: { id: string; name: string };
	draftDataset: { id: string; name: string };
	mixedHostsRun: string;
	largeRun: string;
	deploymentRequest: string;
	stoppedJob: { id: string; name: string };
	runningJob: string;
}
export type FixtureName = keyof Fixtures;

export interface Row {
	name: string;
	node: NodeKey;
	parameters: INodeParameters | ((fx: Fixtures) => INodeParameters);
	inputItems?: InputItem[] | ((sb: Sandbox) => InputItem[]);
	credentials?: Partial<RunComfyCredentialData>;
	/** Sandbox settings for this row only (undone afterwards). */
	config?: SandboxConfig;
	/** Names the problem: matched against the error message. */
	error: RegExp;
	/** Says how to fix it: matched against the error description. */
	fix: RegExp;
	/** The paid endpoint is reached and must refuse (empty wallet without the node's own guard). */
	paidRefused?: boolean;
	/** Not an error: the row's own checks of a successful result. */
	succeeds?: (result: RunNodeResult, log: RequestLogEntry[], fx: Fixtures) => void;
	/** Extra checks on the log. */
	check?: (log: RequestLogEntry[], fx: Fixtures) => void;
}

// ---------------------------------------------------------------------------------------------------------
// Parameter builders and texts the rows share

export const WAIT = { pollIntervalSeconds: 0.05, maxPollIntervalSeconds: 0.1, maxWaitSeconds: 20 };
export const byId = (value: string) => ({ __rl: true, mode: 'id', value });

export function modelRun(model: string, body: unknown, extra: INodeParameters = {}): INodeParameters {
	return {
		resource: 'model',
		operation: 'run',
		model: byId(model),
		inputMode: 'json',
		inputsJson: typeof body === 'string' ? body : JSON.stringify(body),
		waitOptions: WAIT,
		downloadOutputs: false,
		...extra,
	};
}
export const modelOp = (operation: string, requestId: string, extra: INodeParameters = {}): INodeParameters => ({
	resource: 'model',
	operation,
	requestId,
	downloadOutputs: false,
	...extra,
});
export const inference = (deploymentId: string, overrides: unknown, extra: INodeParameters = {}): INodeParameters => ({
	resource: 'inference',
	operation: 'run',
	deploymentId: byId(deploymentId),
	inputMode: 'json',
	overridesJson: typeof overrides === 'string' ? overrides : JSON.stringify(overrides),
	waitOptions: WAIT,
	downloadOutputs: false,
	...extra,
});
export const createDeployment = (extra: INodeParameters): INodeParameters => ({
	resource: 'deployment',
	operation: 'create',
	name: 'bad-input-deployment',
	workflowId: '00000000-0000-0000-0000-000000000001',
	workflowVersion: 'v1',
	...extra,
});
export const dataset = (operation: string, datasetId: string, extra: INodeParameters = {}): INodeParameters => ({
	resource: 'dataset',
	operation,
	dataset: byId(datasetId),
	waitForCompletion: false,
	...extra,
});
export const simpleSubmit = (fx: Fixtures, extra: INodeParameters = {}): INodeParameters => ({
	resource: 'trainingJob',
	operation: 'submit',
	configMode: 'simple',
	jobName: 'bad_input_job',
	dataset: byId(fx.readyDataset.id),
	steps: 10,
	...extra,
});
export const textSubmit = (config: unknown, extra: INodeParameters = {}): INodeParameters => ({
	resource: 'trainingJob',
	operation: 'submit',
	configMode: 'text',
	configText: typeof config === 'string' ? config : JSON.stringify(config),
	configFormat: 'auto',
	...extra,
});
export const job = (operation: string, jobId: string, extra: INodeParameters = {}): INodeParameters => ({
	resource: 'trainingJob',
	operation,
	jobId,
	...extra,
});

export const SDXL = '5f0c3a52-6b1e-4c8e-9a0d-2d4f7b8e1a01';
export const PAUSED = '5f0c3a52-6b1e-4c8e-9a0d-2d4f7b8e1a03';
export const NO_SUCH_DEPLOYMENT = '0b5c0000-dead-4bad-beef-000000000000';
/** Rows that are not errors by design check their result in `succeeds` instead. */
export const NOT_AN_ERROR = /(?!)/;
export const PNG_URL = 'https://files.example.com/a.png';

export const SCHEMA_FIX =
	/Fix them in "Inputs" \(the field labels state ranges and file formats; Catalog → Get Model shows each input's type and allowed values; file inputs take public HTTPS URLs\)\. Nothing was submitted\./;
export const MODEL_ID_FIX = /enter its ID exactly as the catalog lists it/;
export const REQUEST_ID_FIX = /Use the request_id from the output of a Run/;
export const TOP_UP = /Top up the balance/;
export const GUARD_FIX = /Top up the balance at runcomfy\.com, or lower "Minimum Balance \(USD\)"/;
export const DEPLOYMENT_FIX = /Pick the deployment from the list, or enter its ID exactly as RunComfy shows it/;
export const OVERRIDES_FIX = /Overrides are keyed by node id, e\.g\. \{"6": \{"inputs": \{"text": "a red fox"\}\}\}/;
export const LOCAL_FILE_FIX = /read it with "Read\/Write Files from Disk" and use the Upload File operation/;
export const GPU_FIX = /Change GPU Type or GPU Count/;
export const noRequests = (log: RequestLogEntry[]) => expect(log).toEqual([]);
export const noWrites = (log: RequestLogEntry[]) => expect(log.filter((e) => e.method !== 'GET')).toEqual([]);

// ---------------------------------------------------------------------------------------------------------
// Fixtures and the runner

const WALLET = 20_000_000;

async function makeFixtures(sb: Sandbox, needed: FixtureName[]): Promise<Fixtures> {
	const fx: Partial<Fixtures> = {};
	const wants = (name: FixtureName) => needed.includes(name);
	if (wants('readyDataset') || wants('stoppedJob') || wants('runningJob')) fx.readyDataset = await readyDataset(sb, 'ready-set');
	if (wants('draftDataset'))
		fx.draftDataset = {
			id: String((await direct(sb, 'trainer', 'POST', '/prod/v1/trainers/datasets', { name: 'draft-set' })).body.id),
			name: 'draft-set',
		};
	if (wants('mixedHostsRun')) fx.mixedHostsRun = await completedModelRun(sb, STABLE.mixedHosts, { prompt: 'mixed' });
	if (wants('largeRun')) fx.largeRun = await completedModelRun(sb, STABLE.large, { prompt: 'large' });
	if (wants('deploymentRequest')) {
		const answer = await direct(sb, 'serverless', 'POST', `/prod/v1/deployments/${SDXL}/inference`, {
			overrides: { '6': { inputs: { text: 'fixture' } } },
		});
		fx.deploymentRequest = String(answer.body.request_id);
	}
	const submitJob = async (name: string, steps?: number, saveEvery?: number) => {
		const answer = await direct(sb, 'trainer', 'POST', '/prod/v1/trainers/ai-toolkit/jobs', {
			config_file_format: 'json',
			config_file: JSON.stringify(trainingConfig(name, (fx.readyDataset as { name: string }).name, steps, saveEvery)),
			gpu_type: 'ADA_80_PLUS',
		});
		return String(answer.body.job_id ?? answer.body.id);
	};
	// A finished job (4 steps of 1 ms) and one that stays RUNNING (a million steps of 1 ms).
	if (wants('stoppedJob')) {
		const id = await submitJob('fixture_job');
		await until(() => sb.state().jobs.some((j) => j.id === id && j.status === 'STOPPED'), 'fixture job STOPPED');
		fx.stoppedJob = { id, name: 'fixture_job' };
	}
	if (wants('runningJob')) {
		const id = await submitJob('running_job', 1_000_000, 100_000);
		await until(() => sb.state().jobs.some((j) => j.id === id && j.status === 'RUNNING'), 'fixture job RUNNING');
		fx.runningJob = id;
	}
	return fx as Fixtures;
}

interface Outcome {
	result?: RunNodeResult;
	error?: { message: string; description?: string };
}

async function execute(sb: Sandbox, fx: Fixtures, row: Row): Promise<Outcome> {
	const credentials = credentialsFor(sb, row.credentials);
	const parameters = typeof row.parameters === 'function' ? row.parameters(fx) : row.parameters;
	if (row.node === 'trigger') {
		try {
			await poll({ node: NODES.trigger, parameters, credentials, staticData: {}, mode: 'manual' });
			return {};
		} catch (error) {
			const e = error as { message: string; description?: string };
			expect(leaksOf(error, sb.token)).toEqual([]);
			return { error: { message: e.message, description: e.description ?? undefined } };
		}
	}
	const inputItems = typeof row.inputItems === 'function' ? row.inputItems(sb) : row.inputItems;
	const result = await runNode({ node: NODES[row.node], parameters, credentials, inputItems });
	expect(leaksOf(exposedBy(result), sb.token)).toEqual([]);
	return { result, error: result.error };
}

/**
 * Declares the table of one test file: a sandbox with the fixtures it needs (created once), one test per row,
 * and a check that the rows have distinct names.
 */
export function useBadInputTable(rows: Row[], needed: FixtureName[] = []): void {
	let sb: Sandbox;
	let fx: Fixtures;
	beforeAll(async () => {
		sb = await openFaultSandbox({
			walletMicrodollars: WALLET,
			datasetReadyMs: 10,
			trainingStepMs: 1,
			trainingQueueMs: 0,
			largeOutputBytes: 3 * 1024 * 1024,
		});
		fx = await makeFixtures(sb, needed);
	});
	afterAll(async () => {
		await sb.close();
		await disposeEngine();
	});

	it('has rows with distinct names', () => {
		expect(rows.length).toBeGreaterThan(0);
		expect(new Set(rows.map((r) => r.name)).size).toBe(rows.length);
	});

	describe('bad input: a clear error naming the problem and its fix, and no paid call', () => {
		it.each(rows.map((row) => [row.node, row.name, row] as const))('%s: %s', async (_node, _name, row) => {
			sb.clearLog();
			const before = sb.state();
			if (row.config) sb.configure(row.config);
			const walletSet = sb.state().walletMicrodollars;
			let outcome: Outcome;
			let after: ReturnType<Sandbox['state']>;
			try {
				outcome = await execute(sb, fx, row);
				after = sb.state();
			} finally {
				if (row.config) sb.configure({ walletMicrodollars: before.walletMicrodollars });
			}
			const log = sb.log();

			if (row.succeeds) {
				expect(outcome.result).toBeDefined();
				row.succeeds(outcome.result as RunNodeResult, log, fx);
			} else {
				expect(outcome.error).toBeDefined();
				expect(outcome.error?.message).toMatch(row.error);
				expect(outcome.error?.description ?? '').toMatch(row.fix);
			}

			// Nothing paid: no paid endpoint reached, or (empty wallet) reached and refused with nothing created.
			const paid = log.filter(isPaid);
			if (row.paidRefused) {
				expect(paid.length).toBeGreaterThan(0);
				for (const e of paid) {
					expect(e.status).toBeGreaterThanOrEqual(400);
					expect(e.createdId).toBeUndefined();
				}
			} else {
				expect(paid).toEqual([]);
			}
			expect(after.runs.length).toBe(before.runs.length);
			expect(after.jobs.map((j) => `${j.id}:${j.attempts}`)).toEqual(before.jobs.map((j) => `${j.id}:${j.attempts}`));
			expect(after.walletMicrodollars).toBe(walletSet);
			row.check?.(log, fx);
		});
	});
}
