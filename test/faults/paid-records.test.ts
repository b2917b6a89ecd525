/**
 * Paid ids outside the node's memory: every paid submission logs one info line through n8n's logger (node, item,
 * id, model or deployment) and is listed in the execution's custom data under `runcomfy_<node>` ("item:id"), the
 * key the execution list shows. Checked for Model → Run, Inference → Run, Training → Submit and Resume, across
 * the tries of Retry On Fail, and for n8n's custom data limits (values of 255 characters, keys of 50, 10 keys):
 * never an error line per id, never a record lost without a warning.
 */
import { createExecutionCustomData } from 'n8n-core/dist/execution-engine/node-execution-context/utils/custom-data';
import type { IDataObject } from 'n8n-workflow';

import type { Batch } from '../../nodes/shared/jobs/batch';
import type { JobItem } from '../../nodes/shared/jobs/kind';
import { PAID_LOG_PREFIX, appendPaid, customDataKey, recordPaid } from '../../nodes/shared/jobs/paidRecord';
import { RunComfyDeployment } from '../../nodes/RunComfyDeployment/RunComfyDeployment.node';
import { RunComfyModel } from '../../nodes/RunComfyModel/RunComfyModel.node';
import { RunComfyTraining } from '../../nodes/RunComfyTraining/RunComfyTraining.node';
import { getRuntime, runNode } from '../helpers/engine';
import type { RunNodeResult } from '../helpers/engine';
import { captureLogs } from '../helpers/faults-capture';
import type { CapturedLine } from '../helpers/faults-capture';
import {
	STABLE,
	credentialsFor,
	flashPromptRun,
	isInference,
	isModelSubmit,
	isTrainingPaid,
	readyDataset,
	trainingConfig,
	until,
	useFaultSandbox,
} from '../helpers/faults-setup';

const WAIT = { pollIntervalSeconds: 0.02, maxPollIntervalSeconds: 0.05, maxWaitSeconds: 30 };
const sb = useFaultSandbox();
let capture: { lines: CapturedLine[]; stop: () => void };

beforeAll(async () => {
	await getRuntime();
	capture = captureLogs();
});
afterAll(() => capture.stop());
beforeEach(() => {
	sb.reset({ runDurationMs: 30, queueMs: 0, trainingStepMs: 1, trainingQueueMs: 0, datasetReadyMs: 10, walletMicrodollars: 50_000_000 });
	capture.lines.length = 0;
});

/** The info lines of paid submissions, as n8n's logger received them. */
const paidLines = () =>
	capture.lines.filter((l) => l.source === 'n8n-logger' && l.level === 'info' && String(l.message).startsWith(`${PAID_LOG_PREFIX} `));

/** The execution's custom data (what n8n saves as execution metadata). */
const customData = (result: RunNodeResult): Record<string, string> => (result.run.data.resultData.metadata ?? {}) as Record<string, string>;

/** "0:id 1:id" → sorted pairs. */
const pairs = (value: string | undefined) => (value ?? '').split(' ').filter(Boolean).sort();

describe('every paid submission is logged and listed in the execution custom data', () => {
	it('Model → Run: one info line per run (node, item, request id, model) and runcomfy_<node> lists every item:id', async () => {
		const result = await runNode({
			node: new RunComfyModel(),
			nodeName: 'Make Images',
			credentials: credentialsFor(sb),
			...flashPromptRun(3, WAIT),
		});
		expect(result.status).toBe('success');
		const submits = sb.log().filter(isModelSubmit);
		const expected = submits.map((e) => `${String((e.body as IDataObject).prompt).replace('item ', '')}:${e.createdId}`).sort();

		const lines = paidLines();
		expect(lines).toHaveLength(3);
		for (const line of lines) {
			const meta = line.metadata as IDataObject;
			expect(meta).toMatchObject({ node: 'Make Images', model_id: STABLE.flash });
			expect(expected).toContain(`${meta.itemIndex}:${meta.request_id}`);
			expect(String(line.message)).toContain(String(meta.request_id));
		}
		expect(Object.keys(customData(result))).toEqual(['runcomfy_Make_Images']);
		expect(pairs(customData(result).runcomfy_Make_Images)).toEqual(expected);
	});

	it('Inference → Run: the deployment and request ids', async () => {
		const deploymentId = sb.stable.deployments.textToImage;
		const result = await runNode({
			node: new RunComfyDeployment(),
			credentials: credentialsFor(sb),
			inputItems: [{ json: { prompt: 'a' } }, { json: { prompt: 'b' } }],
			parameters: {
				resource: 'inference',
				operation: 'run',
				deploymentId: { __rl: true, mode: 'id', value: deploymentId },
				inputMode: 'json',
				overridesJson: '={{ JSON.stringify({ "6": { "inputs": { "text": $json.prompt } } }) }}',
				downloadOutputs: false,
				waitForCompletion: false,
			},
		});
		expect(result.status).toBe('success');
		const ids = sb
			.log()
			.filter(isInference)
			.map((e) => e.createdId as string);
		expect(paidLines().map((l) => l.metadata as IDataObject)).toEqual(
			expect.arrayContaining(
				ids.map((id) => expect.objectContaining({ node: 'RunComfy Deployment', deployment_id: deploymentId, request_id: id })),
			),
		);
		expect(paidLines()).toHaveLength(2);
		const value = customData(result)[customDataKey('RunComfy Deployment')];
		expect(
			pairs(value)
				.map((p) => p.split(':')[1])
				.sort(),
		).toEqual([...ids].sort());
	});

	it('Training → Submit and Resume: the job ids', async () => {
		const dataset = await readyDataset(sb, 'records-set');
		const submitted = await runNode({
			node: new RunComfyTraining(),
			credentials: credentialsFor(sb),
			inputItems: [{ json: { config: trainingConfig('preempt_records', dataset.name, 20, 10) } }],
			parameters: {
				resource: 'trainingJob',
				operation: 'submit',
				configMode: 'text',
				configText: '={{ JSON.stringify($json.config) }}',
				configFormat: 'json',
			},
		});
		const jobId = String(submitted.items[0].json.job_id);
		expect(paidLines().map((l) => l.metadata)).toEqual([
			expect.objectContaining({ node: 'RunComfy Training', itemIndex: 0, job_id: jobId }),
		]);
		expect(customData(submitted).runcomfy_RunComfy_Training).toBe(`0:${jobId}`);

		await until(() => sb.state().jobs[0]?.status === 'STOPPED', 'the job stops half-way');
		capture.lines.length = 0;
		const resumed = await runNode({
			node: new RunComfyTraining(),
			credentials: credentialsFor(sb),
			parameters: { resource: 'trainingJob', operation: 'resume', jobId },
		});
		expect(resumed.status).toBe('success');
		expect(sb.log().filter(isTrainingPaid)).toHaveLength(2);
		expect(paidLines().map((l) => l.metadata)).toEqual([
			expect.objectContaining({ node: 'RunComfy Training', itemIndex: 0, job_id: jobId }),
		]);
		expect(customData(resumed).runcomfy_RunComfy_Training).toBe(`0:${jobId}`);
	});

	it('Retry On Fail: the ids of every try stay listed (a later try adds to the key, never replaces it)', async () => {
		const result = await runNode({
			node: new RunComfyModel(),
			credentials: credentialsFor(sb),
			nodeOverrides: { retryOnFail: true, maxTries: 3, waitBetweenTries: 10 },
			inputItems: [0, 1, 2].map((i) => ({ json: { prompt: `item ${i}`, model: i === 1 ? STABLE.fails : STABLE.flash } })),
			parameters: {
				...flashPromptRun(3, WAIT).parameters,
				model: { __rl: true, mode: 'id', value: '={{ $json.model }}' },
			},
		});
		expect(result.status).toBe('error');
		// Items 0 and 2 once, item 1 on each of the three tries: five paid runs, five lines, five entries.
		const runs = sb.state().runs;
		expect(runs).toHaveLength(5);
		expect(paidLines()).toHaveLength(5);
		const listed = pairs(customData(result).runcomfy_RunComfy_Model);
		expect(listed.map((p) => p.split(':')[1]).sort()).toEqual(runs.map((r) => r.id).sort());
		expect(listed.filter((p) => p.startsWith('1:'))).toHaveLength(3);
	});
});

describe("n8n's custom data limits", () => {
	/** What n8n-core logged at error level itself (e.g. "Custom data value over … characters long"). */
	const errorLines = () => capture.lines.filter((l) => l.source === 'n8n-logger' && l.level === 'error');

	it('a batch whose ids do not fit: no error line from n8n, at most 255 characters kept, every id in the info lines', async () => {
		const n = 12;
		const result = await runNode({
			node: new RunComfyModel(),
			nodeName: 'Make Images',
			credentials: credentialsFor(sb),
			...flashPromptRun(n, WAIT),
		});
		expect(result.status).toBe('success');
		expect(errorLines()).toEqual([]);
		const value = customData(result).runcomfy_Make_Images;
		expect(value.length).toBeLessThanOrEqual(255);
		const more = / \+(\d+) more, see the log$/.exec(value);
		expect(more).not.toBeNull();
		expect(pairs(value.slice(0, more?.index)).length + Number(more?.[1])).toBe(n);
		const ids = sb
			.log()
			.filter(isModelSubmit)
			.map((e) => e.createdId);
		expect(
			paidLines()
				.map((l) => (l.metadata as IDataObject).request_id)
				.sort(),
		).toEqual(ids.sort());
	});

	it('a node name with a character outside the BMP at the 50-character cut keeps its record', async () => {
		const nodeName = `${'a'.repeat(40)}\u{20000}bc`;
		const key = customDataKey(nodeName);
		expect(key.length).toBeLessThanOrEqual(50);
		expect(key).toMatch(/^[A-Za-z0-9_]+$/);
		const result = await runNode({ node: new RunComfyModel(), nodeName, credentials: credentialsFor(sb), ...flashPromptRun(1, WAIT) });
		expect(result.status).toBe('success');
		const [submit] = sb.log().filter(isModelSubmit);
		expect(customData(result)[key]).toBe(`0:${submit.createdId}`);
		expect(errorLines()).toEqual([]);
	});

	it('a node name in another script gives a key n8n 1.x takes too (ASCII letters, digits, _)', () => {
		for (const name of ['Картинка', '生成图片', 'Straße Café', 'Ǆ ﬁle']) {
			expect(customDataKey(name)).toMatch(/^runcomfy_[A-Za-z0-9_]+$/);
		}
		expect(customDataKey('Café')).toBe('runcomfy_Cafe_');
	});

	it('no room for another key (n8n keeps 10): one warning for the whole run, every id still in the info lines', () => {
		const metadata = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`other_${i}`, 'x']));
		const runExecutionData = { resultData: { runData: {}, metadata } };
		const logged: Array<{ level: string; message: string; meta?: unknown }> = [];
		const log = (level: string) => (message: string, meta?: unknown) => logged.push({ level, message, meta });
		const ctx = {
			getNode: () => ({ name: 'Make Images' }),
			logger: { info: log('info'), warn: log('warn'), error: log('error'), debug: log('debug') },
			customData: createExecutionCustomData({ runExecutionData: runExecutionData as never, mode: 'trigger' }),
		};
		const batch = {
			ctx,
			kind: { ids: () => ({ model_id: STABLE.flash }), noun: { one: 'run', idField: 'request_id' } },
		} as unknown as Batch<JobItem, undefined>;
		for (let i = 0; i < 3; i++) recordPaid(batch, { itemIndex: i } as JobItem, { id: `id-${i}`, json: {} });

		expect(Object.keys(runExecutionData.resultData.metadata)).toHaveLength(10);
		expect(logged.filter((l) => l.level === 'info').map((l) => (l.meta as IDataObject).request_id)).toEqual(['id-0', 'id-1', 'id-2']);
		const warnings = logged.filter((l) => l.level === 'warn');
		expect(warnings).toHaveLength(1);
		expect(warnings[0].message).toMatch(/paid ids of node "Make Images" are not in the execution's custom data/);
		expect(warnings[0].meta).toMatchObject({ node: 'Make Images', customDataKey: 'runcomfy_Make_Images' });
	});

	it('the value stays within 255 characters and counts what did not fit', () => {
		let value: string | undefined;
		const ids = Array.from({ length: 100 }, (_, i) => `${i}:0b5c${String(i).padStart(4, '0')}-dead-4bad-beef-000000000000`);
		for (const id of ids) value = appendPaid(value, id);
		const text = value as string;
		expect(text.length).toBeLessThanOrEqual(255);
		const match = / \+(\d+) more, see the log$/.exec(text);
		expect(match).not.toBeNull();
		const listed = text.slice(0, match?.index).split(' ');
		expect(listed).toEqual(ids.slice(0, listed.length));
		expect(listed.length + Number(match?.[1])).toBe(100);
	});

	it('a node name becomes a valid key (letters, digits, underscores; at most 50 characters)', () => {
		expect(customDataKey('Generate images (batch) – v2')).toBe('runcomfy_Generate_images_batch_v2');
		expect(customDataKey('x'.repeat(80))).toHaveLength(50);
		expect(customDataKey('Bilder für Café')).toMatch(/^runcomfy_[\p{L}\p{N}_]+$/u);
	});
});
