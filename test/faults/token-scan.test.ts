/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * The access token never appears in any output, error or log line. A representative run of every node and
 * kind of outcome — successes with downloads, service errors, lost answers, exhausted retries, a refused
 * connection, timeouts, a wrong token, a token pasted with "Bearer ", skipped and over-size downloads, uploads
 * (direct, from a URL, signed URLs), training with artifact downloads, the trigger, editor methods, the
 * credential test, an AI-agent tool call — with a distinctive token. Everything the user or an operator could
 * see is recorded and scanned at the end: output items, errors (message, description, context, cause, stack),
 * the whole run record n8n keeps, n8n's logger lines, console output and every file n8n wrote (binary data and
 * its metadata). The sandbox's log proves the token did reach the API hosts, and never a file host.
 */
import { readdirSync, readFileSync, statSync } from 'fs';
import { join } from 'path';

import type { INodeParameters } from 'n8n-workflow';

import type { Sandbox } from '../../sandbox';
import { RunComfyDataset } from '../../nodes/RunComfyDataset/RunComfyDataset.node';
import { RunComfyDeployment } from '../../nodes/RunComfyDeployment/RunComfyDeployment.node';
import { RunComfyModel } from '../../nodes/RunComfyModel/RunComfyModel.node';
import { RunComfyTraining } from '../../nodes/RunComfyTraining/RunComfyTraining.node';
import { RunComfyTrigger } from '../../nodes/RunComfyTrigger/RunComfyTrigger.node';
import { getRetryPolicy, setRetryPolicy } from '../../nodes/shared/transport/request';
import type { RetryPolicy } from '../../nodes/shared/transport';
import { disposeEngine, getRuntime, listSearch, poll, runNode, testCredential } from '../helpers/engine';
import type { RunComfyCredentialData, RunNodeOptions, RunNodeResult } from '../helpers/engine';
import { captureLogs } from '../helpers/faults-capture';
import type { CapturedLine } from '../helpers/faults-capture';
import {
	SCAN_TOKEN,
	STABLE,
	collectStrings,
	completedModelRun,
	credentialsFor,
	exposedBy,
	openFaultSandbox,
	readyDataset,
} from '../helpers/faults-setup';

/** A wrong token and a "Bearer"-pasted one are secrets too: they must not show either. */
const WRONG_TOKEN = 'rcf-dummy-wrong-Hy6Pq1Ds8Rj5Uc3Fx0';
const SECRETS = [SCAN_TOKEN, WRONG_TOKEN];

const model = new RunComfyModel();
const deployment = new RunComfyDeployment();
const datasetNode = new RunComfyDataset();
const training = new RunComfyTraining();
const trigger = new RunComfyTrigger();

const WAIT = { pollIntervalSeconds: 0.02, maxPollIntervalSeconds: 0.05, maxWaitSeconds: 20 };
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const byId = (value: string) => ({ __rl: true, mode: 'id', value });
const modelRun = (id: string, body: object, extra: INodeParameters = {}): INodeParameters => ({
	resource: 'model',
	operation: 'run',
	model: byId(id),
	inputMode: 'json',
	inputsJson: JSON.stringify(body),
	waitOptions: WAIT,
	...extra,
});

let sb: Sandbox;
let creds: RunComfyCredentialData;
let savedPolicy: RetryPolicy;
let capture: { lines: CapturedLine[]; stop: () => void };
/** Everything recorded for the final scan, labelled by scenario. */
const exposed: Array<{ what: string; value: unknown }> = [];

beforeAll(async () => {
	sb = await openFaultSandbox({ datasetReadyMs: 10, trainingStepMs: 1, trainingQueueMs: 0, largeOutputBytes: 3 * 1024 * 1024 });
	creds = credentialsFor(sb);
	savedPolicy = getRetryPolicy();
	setRetryPolicy({ maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 1000 });
	await getRuntime();
	capture = captureLogs();
});
afterAll(async () => {
	capture.stop();
	setRetryPolicy(savedPolicy);
	await sb.close();
	await disposeEngine();
});

/** Runs a node and records everything it exposed. */
async function run(
	what: string,
	options: Omit<RunNodeOptions, 'credentials'> & { credentials?: RunComfyCredentialData },
): Promise<RunNodeResult> {
	const result = await runNode({ credentials: creds, ...options });
	exposed.push({ what, value: exposedBy(result) });
	return result;
}

/** Runs something that throws and records the error object itself (all its properties, cause and stack). */
async function thrown(what: string, fn: () => Promise<unknown>): Promise<Error> {
	try {
		const value = await fn();
		exposed.push({ what, value });
	} catch (error) {
		exposed.push({ what, value: error });
		return error as Error;
	}
	throw new Error(`${what}: expected an error`);
}

describe('a representative set of operations with a distinctive token', () => {
	it('Model: a successful batch with downloads, and a tool call', async () => {
		const ok = await run('model run with downloads', {
			node: model,
			inputItems: [{ json: {} }, { json: {} }],
			parameters: modelRun(STABLE.flash, { prompt: 'fox' }),
		});
		expect(ok.items).toHaveLength(2);
		expect(Object.keys(ok.items[0].binary ?? {})).toContain('data');
		const tool = await run('model run as a tool', { node: model, asTool: true, parameters: modelRun(STABLE.flash, { prompt: 'tool' }) });
		expect(tool.items[0].json.request_id).toEqual(expect.any(String));
	});

	it('Model: a failed run under Continue on Fail, skipped foreign host, over-size download', async () => {
		const failed = await run('failed run', {
			node: model,
			continueOnFail: true,
			parameters: modelRun(STABLE.fails, { prompt: 'x' }),
		});
		expect(failed.items[0].json.error).toEqual(expect.any(String));
		const mixed = await run('mixed hosts', { node: model, parameters: modelRun(STABLE.mixedHosts, { prompt: 'x' }) });
		expect(mixed.items[0].json.skipped_downloads).toHaveLength(1);
		const large = await run('over the cap', {
			node: model,
			parameters: modelRun(STABLE.large, { prompt: 'x' }, { downloadOptions: { maxDownloadSizeMb: 1 } }),
		});
		expect(JSON.stringify(large.items[0].json.skipped_downloads)).toContain('download limit');
	});

	it('Model: timeouts (fail and cancel)', async () => {
		sb.configure({ modelDurations: { [STABLE.flash]: 60_000 } });
		try {
			const timedOut = await run('timeout, fail', {
				node: model,
				parameters: modelRun(STABLE.flash, { prompt: 'slow' }, { waitOptions: { ...WAIT, maxWaitSeconds: 0.2, onTimeout: 'fail' } }),
			});
			expect(timedOut.error?.message).toContain('did not finish');
			const cancelled = await run('timeout, cancel', {
				node: model,
				parameters: modelRun(STABLE.flash, { prompt: 'slow' }, { waitOptions: { ...WAIT, maxWaitSeconds: 0.2, onTimeout: 'cancel' } }),
			});
			expect(cancelled.items[0].json.timed_out).toBe(true);
		} finally {
			sb.configure({ modelDurations: { [STABLE.flash]: 30 } });
		}
	});

	it('Model: a lost submit answer, exhausted retries, a long Retry-After, errors as HTTP 200', async () => {
		try {
			// Seed 1 at 50 %: the first roll (the node's GET of the model) passes, the second (the submit) is a 500
			// after the run was created.
			sb.configure({
				faults: { rate5xx: 0.5, pathPrefixes: ['/v1/models/blackforestlabs/flux-2/flash'], paidFaultTiming: 'after', seed: 1 },
			});
			const lost = await run('lost answer', { node: model, parameters: modelRun(STABLE.flash, { prompt: 'lost' }) });
			expect(lost.error?.message).toContain('may have been accepted');
			expect(sb.log().filter((e) => e.method === 'POST' && e.fault === '5xx' && e.createdId)).toHaveLength(1);

			const id = await completedModelRun(sb, STABLE.flash, { prompt: 'polled' });
			sb.configure({ faults: { rate5xx: 0, rateDrop: 1, pathPrefixes: ['/v1/requests/'] } });
			const dropped = await run('dropped connections', {
				node: model,
				parameters: { resource: 'model', operation: 'getStatus', requestId: id },
			});
			expect(dropped.error).toBeDefined();

			sb.configure({ faults: { rateDrop: 0, rate429: 1, retryAfterSeconds: 3600, pathPrefixes: ['/v1/requests/'] } });
			const limited = await run('rate limited', {
				node: model,
				parameters: { resource: 'model', operation: 'getResult', requestId: id },
			});
			expect(limited.error?.message).toContain('429');
		} finally {
			sb.configure({ faults: { rate5xx: 0, rateDrop: 0, rate429: 0, pathPrefixes: [] } });
		}
		sb.configure({ quirks: { errorsAsHttp200: true } });
		try {
			const unknown = await run('errors as HTTP 200', { node: model, parameters: modelRun('acme/none/v1', { prompt: 'x' }) });
			expect(unknown.error?.message).toContain('404001');
		} finally {
			sb.configure({ quirks: { errorsAsHttp200: false } });
		}
	});

	it('Credential problems: a wrong token, "Bearer " pasted, a refused connection', async () => {
		const wrong = await run('wrong token', {
			node: model,
			credentials: { ...creds, accessToken: WRONG_TOKEN },
			parameters: modelRun(STABLE.flash, { prompt: 'x' }),
		});
		expect(wrong.error?.message).toContain('401');
		const bearer = await run('Bearer token', {
			node: model,
			credentials: { ...creds, accessToken: `Bearer ${SCAN_TOKEN}` },
			parameters: modelRun(STABLE.flash, { prompt: 'x' }),
		});
		expect(bearer.error?.message).toContain('Bearer');
		// A port nothing listens on: the sandbox's own port after it was closed would race; use port 1.
		const refused = await run('connection refused', {
			node: model,
			credentials: { ...creds, modelApiBaseUrl: 'http://127.0.0.1:1' },
			parameters: modelRun(STABLE.flash, { prompt: 'x' }),
		});
		expect(refused.error?.message).toContain('Could not reach RunComfy');
	});

	it('Deployment: a run with a binary input and downloads, a failing and a paused deployment', async () => {
		const ok = await run('deployment run', {
			node: deployment,
			inputItems: [{ json: {}, binary: { data: { data: PNG, mimeType: 'image/png', fileName: 'in.png' } } }],
			parameters: {
				resource: 'inference',
				operation: 'run',
				deploymentId: byId(sb.stable.deployments.imageToImage),
				inputMode: 'json',
				overridesJson: JSON.stringify({ '6': { inputs: { text: 'fox' } } }),
				binaryInputs: { files: [{ nodeId: '10', inputName: 'image', binaryPropertyName: 'data' }] },
				waitOptions: WAIT,
				options: { deleteRequestAfterDownload: true },
			},
		});
		expect(ok.error).toBeUndefined();
		expect(Object.keys(ok.items[0].binary ?? {}).length).toBeGreaterThan(0);
		sb.configure({ failingModels: { [sb.stable.deployments.textToImage]: 'KSampler: out of memory' } });
		try {
			const failing = await run('deployment failure', {
				node: deployment,
				continueOnFail: true,
				parameters: {
					resource: 'inference',
					operation: 'run',
					deploymentId: byId(sb.stable.deployments.textToImage),
					inputMode: 'json',
					overridesJson: JSON.stringify({ '6': { inputs: { text: 'x' } } }),
					waitOptions: WAIT,
				},
			});
			expect(String(failing.items[0].json.error)).toContain('out of memory');
		} finally {
			sb.configure({ failingModels: {} });
		}
		const paused = await run('paused deployment', {
			node: deployment,
			parameters: {
				resource: 'inference',
				operation: 'run',
				deploymentId: byId(sb.stable.deployments.paused),
				inputMode: 'json',
				overridesJson: JSON.stringify({ '6': { inputs: { text: 'x' } } }),
			},
		});
		expect(paused.error?.message).toContain('paused');
	});

	it('Dataset: uploads (binary, from a URL, caption), signed upload URLs; Training with artifact downloads', async () => {
		const created = await run('dataset create', {
			node: datasetNode,
			parameters: { resource: 'dataset', operation: 'create', name: 'scan-set' },
		});
		const datasetId = String(created.items[0].json.id);
		const upload = await run('dataset upload file', {
			node: datasetNode,
			inputItems: [{ json: { caption: 'a photo of sks' }, binary: { data: { data: PNG, mimeType: 'image/png', fileName: 'img_1.png' } } }],
			parameters: {
				resource: 'dataset',
				operation: 'uploadFile',
				dataset: byId(datasetId),
				binaryPropertyName: 'data',
				options: { captionField: 'caption' },
				waitOptions: WAIT,
			},
		});
		expect(upload.error).toBeUndefined();
		const fromUrl = await run('dataset upload from url', {
			node: datasetNode,
			parameters: {
				resource: 'dataset',
				operation: 'uploadFromUrl',
				dataset: byId(datasetId),
				url: `${sb.urls.files}/files/img_2.png`,
				waitOptions: WAIT,
			},
		});
		expect(fromUrl.error).toBeUndefined();
		const signed = await run('signed upload urls', {
			node: datasetNode,
			parameters: {
				resource: 'dataset',
				operation: 'getUploadUrls',
				dataset: byId(datasetId),
				fileSizes: JSON.stringify({ 'big.png': 1000 }),
			},
		});
		expect(JSON.stringify(signed.items)).toContain('upload_url');

		const ready = await readyDataset(sb, 'scan-train-set');
		const trained = await run('training submit, wait, download', {
			node: training,
			parameters: {
				resource: 'trainingJob',
				operation: 'submit',
				configMode: 'simple',
				jobName: 'scan_job',
				dataset: byId(ready.id),
				steps: 4,
				simpleOptions: { saveEvery: 2 },
				waitForCompletion: true,
				waitOptions: WAIT,
				downloadOutputs: true,
				artifactsToDownload: ['latestCheckpoint', 'config'],
			},
		});
		expect(trained.error).toBeUndefined();
		expect(Object.keys(trained.items[0].binary ?? {}).length).toBeGreaterThan(0);
		const notFound = await run('training job not found', {
			node: training,
			parameters: { resource: 'trainingJob', operation: 'getStatus', jobId: 'no-such-job' },
		});
		expect(notFound.error?.message).toContain('404');
	});

	it('Trigger, editor methods and the credential test', async () => {
		const id = await completedModelRun(sb, STABLE.flash, { prompt: 'trigger' });
		const fired = await thrown('trigger poll (wrong token)', () =>
			poll({
				node: trigger,
				parameters: { event: 'request', requestType: 'model', requestIds: id },
				credentials: { ...creds, accessToken: WRONG_TOKEN },
				staticData: {},
				mode: 'manual',
			}),
		);
		expect(fired.message).toContain('401');
		const events = await poll({
			node: trigger,
			parameters: { event: 'request', requestType: 'model', requestIds: id },
			credentials: creds,
			staticData: {},
			mode: 'manual',
		});
		exposed.push({ what: 'trigger poll', value: events });
		expect(events?.[0]).toHaveLength(1);

		const search = await listSearch({ node: model, method: 'searchModels', parameters: {}, credentials: creds, filter: 'flux' });
		exposed.push({ what: 'model picker', value: search });
		expect(search.results.length).toBeGreaterThan(0);
		const failedSearch = await thrown('model picker, wrong token', () =>
			listSearch({ node: model, method: 'searchModels', parameters: {}, credentials: { ...creds, accessToken: WRONG_TOKEN } }),
		);
		expect(failedSearch.message).toMatch(/401|token/i);

		const good = await testCredential(creds);
		const bad = await testCredential({ ...creds, accessToken: WRONG_TOKEN });
		exposed.push({ what: 'credential test', value: [good, bad] });
		expect(good.status).toBe('OK');
		expect(bad.status).toBe('Error');
	});
});

describe('the scan', () => {
	const leaks = (value: unknown): string[] => collectStrings(value).filter((text) => SECRETS.some((secret) => text.includes(secret)));

	it('the token reached the API hosts (so the scan is meaningful), and never a file host', () => {
		const log = sb.log();
		const api = log.filter((e) => ['model', 'serverless', 'trainer'].includes(e.api));
		expect(api.filter((e) => e.authorization === `Bearer ${SCAN_TOKEN}`).length).toBeGreaterThan(50);
		const fileHost = log.filter((e) => e.api === 'files' || e.api === 'foreign');
		// Downloads, uploads from a URL and signed uploads all went to the file host...
		expect(fileHost.filter((e) => e.method === 'GET').length).toBeGreaterThan(0);
		expect(fileHost.filter((e) => e.method === 'PUT').length).toBe(0); // no large file here: no signed PUT
		// ...and not one of them carried an Authorization header.
		expect(fileHost.filter((e) => e.authorization !== undefined)).toEqual([]);
		// No request anywhere carried the secret outside the Authorization header (path, query, body).
		expect(log.filter((e) => leaks({ path: e.path, query: e.query, body: e.body }).length > 0)).toEqual([]);
	});

	it('no output, error or run record contains the token', () => {
		expect(exposed.length).toBeGreaterThanOrEqual(25);
		const found = exposed.filter((e) => leaks(e.value).length > 0).map((e) => `${e.what}: ${leaks(e.value)[0].slice(0, 200)}`);
		expect(found).toEqual([]);
	});

	it("no line of n8n's logger or the console contains the token", () => {
		// n8n logged while the nodes ran (so there was something to scan).
		expect(capture.lines.filter((l) => l.source === 'n8n-logger').length).toBeGreaterThan(10);
		const found = capture.lines.filter((l) => leaks(l).length > 0).map((l) => `${l.source} ${l.level}: ${String(l.message).slice(0, 200)}`);
		expect(found).toEqual([]);
	});

	it('no file n8n wrote (binary data and its metadata) contains the token', async () => {
		const { tempDir } = await getRuntime();
		const files: string[] = [];
		const walk = (dir: string) => {
			for (const name of readdirSync(dir)) {
				const path = join(dir, name);
				const stat = statSync(path);
				if (stat.isDirectory()) walk(path);
				else files.push(path);
			}
		};
		walk(tempDir);
		expect(files.length).toBeGreaterThan(5);
		const found = files.filter((path) => {
			const content = readFileSync(path);
			return SECRETS.some((secret) => content.includes(secret));
		});
		expect(found).toEqual([]);
	});
});
