/**
 * The bad-input table: every row is one mistake a user can make, run through the real n8n engine against the
 * sandbox. Each row must give an error that names the problem (`error`) and a description that says how to fix
 * it (`fix`), and — from the sandbox's request log — nothing may reach a paid endpoint (model submit, deployment
 * inference, training submit/resume). Rows about an empty wallet do reach the paid endpoint, which refuses them:
 * for those the log must show the refusal and the service nothing created or charged.
 * Two rows are not errors by design (a download host outside the allow-list is skipped and listed, not fetched);
 * they assert that instead. The token never appears in any result.
 */
import type { IDataObject, INodeParameters, INodeType } from 'n8n-workflow';

import type { RequestLogEntry, Sandbox, SandboxConfig } from '../../sandbox';
import { RunComfyDataset } from '../../nodes/RunComfyDataset/RunComfyDataset.node';
import { RunComfyDeployment } from '../../nodes/RunComfyDeployment/RunComfyDeployment.node';
import { RunComfyModel } from '../../nodes/RunComfyModel/RunComfyModel.node';
import { RunComfyTraining } from '../../nodes/RunComfyTraining/RunComfyTraining.node';
import { RunComfyTrigger } from '../../nodes/RunComfyTrigger/RunComfyTrigger.node';
import { disposeEngine, poll, runNode } from '../helpers/engine';
import type { InputItem, RunComfyCredentialData, RunNodeResult } from '../helpers/engine';
import {
	SCAN_TOKEN,
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
} from '../helpers/faults-setup';

const NODES: Record<string, INodeType> = {
	model: new RunComfyModel(),
	deployment: new RunComfyDeployment(),
	dataset: new RunComfyDataset(),
	training: new RunComfyTraining(),
	trigger: new RunComfyTrigger(),
};

/** Things created in the sandbox before the table runs, for rows that act on existing resources. */
interface Fixtures {
	readyDataset: { id: string; name: string };
	draftDataset: { id: string; name: string };
	mixedHostsRun: string;
	largeRun: string;
	deploymentRequest: string;
	stoppedJob: { id: string; name: string };
	runningJob: string;
}

interface Row {
	name: string;
	node: keyof typeof NODES;
	parameters: INodeParameters | ((fx: Fixtures) => INodeParameters);
	inputItems?: InputItem[];
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

const WAIT = { pollIntervalSeconds: 0.05, maxPollIntervalSeconds: 0.1, maxWaitSeconds: 20 };
const byId = (value: string) => ({ __rl: true, mode: 'id', value });

function modelRun(model: string, body: unknown, extra: INodeParameters = {}): INodeParameters {
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
const modelOp = (operation: string, requestId: string, extra: INodeParameters = {}): INodeParameters => ({
	resource: 'model',
	operation,
	requestId,
	downloadOutputs: false,
	...extra,
});
const inference = (deploymentId: string, overrides: unknown, extra: INodeParameters = {}): INodeParameters => ({
	resource: 'inference',
	operation: 'run',
	deploymentId: byId(deploymentId),
	inputMode: 'json',
	overridesJson: typeof overrides === 'string' ? overrides : JSON.stringify(overrides),
	waitOptions: WAIT,
	downloadOutputs: false,
	...extra,
});
const createDeployment = (extra: INodeParameters): INodeParameters => ({
	resource: 'deployment',
	operation: 'create',
	name: 'bad-input-deployment',
	workflowId: '00000000-0000-0000-0000-000000000001',
	workflowVersion: 'v1',
	...extra,
});
const dataset = (operation: string, datasetId: string, extra: INodeParameters = {}): INodeParameters => ({
	resource: 'dataset',
	operation,
	dataset: byId(datasetId),
	waitForCompletion: false,
	...extra,
});
const simpleSubmit = (fx: Fixtures, extra: INodeParameters = {}): INodeParameters => ({
	resource: 'trainingJob',
	operation: 'submit',
	configMode: 'simple',
	jobName: 'bad_input_job',
	dataset: byId(fx.readyDataset.id),
	steps: 10,
	...extra,
});
const textSubmit = (config: unknown, extra: INodeParameters = {}): INodeParameters => ({
	resource: 'trainingJob',
	operation: 'submit',
	configMode: 'text',
	configText: typeof config === 'string' ? config : JSON.stringify(config),
	configFormat: 'auto',
	...extra,
});
const job = (operation: string, jobId: string, extra: INodeParameters = {}): INodeParameters => ({
	resource: 'trainingJob',
	operation,
	jobId,
	...extra,
});
const trigger = (requestIds: string): INodeParameters => ({ event: 'request', requestType: 'model', requestIds });

/** A config for the ready dataset with one thing changed. */
function configWith(fx: Fixtures, change: (process: IDataObject, config: IDataObject) => void, name = 'bad_input_job'): IDataObject {
	const cfg = trainingConfig(name, fx.readyDataset.name) as IDataObject;
	const config = cfg.config as IDataObject;
	change((config.process as IDataObject[])[0], config);
	return cfg;
}

const SDXL = '5f0c3a52-6b1e-4c8e-9a0d-2d4f7b8e1a01';
const PAUSED = '5f0c3a52-6b1e-4c8e-9a0d-2d4f7b8e1a03';
const NO_SUCH_DEPLOYMENT = '0b5c0000-dead-4bad-beef-000000000000';
/** Rows that are not errors by design check their result in `succeeds` instead. */
const NOT_AN_ERROR = /(?!)/;
const PNG_URL = 'https://files.example.com/a.png';

const SCHEMA_FIX = /Fix them in "Inputs" \(each field's description states its type, range and allowed values; file inputs take public HTTPS URLs\)\. Nothing was submitted\./;
const MODEL_ID_FIX = /enter its ID exactly as the catalog lists it/;
const REQUEST_ID_FIX = /Use the request_id from the output of a Run/;
const TOP_UP = /Top up the balance/;
const GUARD_FIX = /Top up the balance at runcomfy\.com, or lower "Minimum Balance \(USD\)"/;
const DEPLOYMENT_FIX = /Pick the deployment from the list, or enter its ID exactly as RunComfy shows it/;
const OVERRIDES_FIX = /Overrides are keyed by node id, e\.g\. \{"6": \{"inputs": \{"text": "a red fox"\}\}\}/;
const LOCAL_FILE_FIX = /read it with "Read\/Write Files from Disk" and use the Upload File operation/;
const GPU_FIX = /Change GPU Type or GPU Count/;
const noRequests = (log: RequestLogEntry[]) => expect(log).toEqual([]);
const noWrites = (log: RequestLogEntry[]) => expect(log.filter((e) => e.method !== 'GET')).toEqual([]);

const ROWS: Row[] = [
	// ---------------------------------------------------------------- Model → Run: ids and the catalog
	{
		name: 'unknown model id (the service 404001, with the id)',
		node: 'model',
		parameters: modelRun('acme/does-not-exist/v9', { prompt: 'x' }),
		error: /404 \(404001 ResourceNotFound\).*acme\/does-not-exist\/v9/,
		fix: /No model "acme\/does-not-exist\/v9" exists\. Use the model id exactly as listed by Get Many Models/,
	},
	{
		name: 'model id with a ".." segment (path injection)',
		node: 'model',
		parameters: modelRun('={{ "blackforestlabs/../../v1/requests" }}', { prompt: 'x' }),
		error: /The model ID "blackforestlabs\/\.\.\/\.\.\/v1\/requests" is not valid: it contains an empty, "\." or "\.\." part/,
		fix: MODEL_ID_FIX,
		check: noRequests,
	},
	{
		name: 'model id "a/../../b" (path injection)',
		node: 'model',
		parameters: modelRun('={{ "a/../../b" }}', { prompt: 'x' }),
		error: /The model ID "a\/\.\.\/\.\.\/b" is not valid: it contains an empty, "\." or "\.\." part/,
		fix: MODEL_ID_FIX,
		check: noRequests,
	},
	{
		name: 'model id with an empty segment',
		node: 'model',
		parameters: modelRun('={{ "blackforestlabs//flux-2" }}', { prompt: 'x' }),
		error: /is not valid: it contains an empty, "\." or "\.\." part/,
		fix: MODEL_ID_FIX,
		check: noRequests,
	},
	{
		name: 'model id with "?" (would become a query)',
		node: 'model',
		parameters: modelRun('={{ "blackforestlabs/flux-2?x=1" }}', { prompt: 'x' }),
		error: /The model ID "blackforestlabs\/flux-2\?x=1" is not valid: it contains spaces or one of \? # \\ %/,
		fix: MODEL_ID_FIX,
		check: noRequests,
	},
	{
		name: 'model id with "#" (would become a fragment)',
		node: 'model',
		parameters: modelRun('={{ "blackforestlabs/flux-2#frag" }}', { prompt: 'x' }),
		error: /The model ID "blackforestlabs\/flux-2#frag" is not valid: it contains spaces or one of \? # \\ %/,
		fix: MODEL_ID_FIX,
		check: noRequests,
	},
	{
		name: 'model id with a backslash',
		node: 'model',
		parameters: modelRun('={{ "blackforestlabs/flux-2\\\\..\\\\x" }}', { prompt: 'x' }),
		error: /The model ID "blackforestlabs\/flux-2\\\.\.\\x" is not valid: it contains spaces or one of \? # \\ %/,
		fix: MODEL_ID_FIX,
		check: noRequests,
	},
	// ---------------------------------------------------------------- Model → Run: the body
	{
		name: 'schema: a required input is missing',
		node: 'model',
		parameters: modelRun(STABLE.flash, { guidance_scale: 3 }),
		error: /^Item 0: prompt is required but has no value$/,
		fix: SCHEMA_FIX,
	},
	{
		name: 'schema: wrong type (text for a number)',
		node: 'model',
		parameters: modelRun(STABLE.flash, { prompt: 'x', guidance_scale: 'high' }),
		error: /guidance_scale must be a number, but got the text "high"/,
		fix: SCHEMA_FIX,
	},
	{
		name: 'schema: value outside the enum',
		node: 'model',
		parameters: modelRun(STABLE.flash, { prompt: 'x', image_size: 'gigantic' }),
		error: /image_size must be one of "square_hd", .*but got the text "gigantic"/,
		fix: SCHEMA_FIX,
	},
	{
		name: 'schema: number above the maximum',
		node: 'model',
		parameters: modelRun(STABLE.flash, { prompt: 'x', guidance_scale: 25 }),
		error: /guidance_scale must be at most 20, but got 25/,
		fix: SCHEMA_FIX,
	},
	{
		name: 'schema: number below the minimum',
		node: 'model',
		parameters: modelRun(STABLE.flash, { prompt: 'x', seed: -1 }),
		error: /seed must be at least 0, but got -1/,
		fix: SCHEMA_FIX,
	},
	{
		name: 'schema: integer expected, fraction given',
		node: 'model',
		parameters: modelRun(STABLE.flash, { prompt: 'x', num_images: 1.5 }),
		error: /num_images must be a whole number \(integer\); 1\.5 has a fractional part/,
		fix: SCHEMA_FIX,
	},
	{
		name: 'schema: text longer than maxLength',
		node: 'model',
		parameters: modelRun(STABLE.flash, { prompt: 'x'.repeat(4001) }),
		error: /prompt is too long: at most 4000 characters, but has 4001/,
		fix: SCHEMA_FIX,
	},
	{
		name: 'schema: array shorter than minItems',
		node: 'model',
		parameters: modelRun(STABLE.imageEditPlural, { prompt: 'x', image_urls: [] }),
		error: /image_urls needs at least 1 item\(s\), but has 0/,
		fix: SCHEMA_FIX,
	},
	{
		name: 'schema: array longer than maxItems',
		node: 'model',
		parameters: modelRun(STABLE.imageEditPlural, { prompt: 'x', image_urls: [1, 2, 3, 4, 5].map((n) => `https://files.example.com/${n}.png`) }),
		error: /image_urls accepts at most 4 item\(s\), but has 5/,
		fix: SCHEMA_FIX,
	},
	{
		name: 'schema: not a multiple of multipleOf',
		node: 'model',
		parameters: modelRun(STABLE.seedream, { prompt: 'x', width: 1030 }),
		error: /width must be a multiple of 16, but got 1030/,
		fix: SCHEMA_FIX,
	},
	{
		name: 'schema: several problems in several items, reported together',
		node: 'model',
		parameters: modelRun(STABLE.flash, '={{ JSON.stringify($json.body) }}'),
		inputItems: [{ json: { body: { prompt: 'ok' } } }, { json: { body: {} } }, { json: { body: { prompt: 'x', seed: 'abc' } } }],
		error: /^Item 1: prompt is required but has no value\. Item 2: seed must be a whole number/,
		fix: /2 of 3 items cannot be submitted; the first: .*Fix them in "Inputs".*Nothing was submitted\.$/,
	},
	{
		name: 'an input the model does not have',
		node: 'model',
		parameters: modelRun(STABLE.flash, { prompt: 'x', strength: 0.5 }),
		error: /strength is not an input of this model.*Known inputs: prompt, guidance_scale/,
		fix: SCHEMA_FIX,
	},
	{
		name: 'bad JSON body',
		node: 'model',
		parameters: modelRun(STABLE.flash, '{"prompt": "a fox",}'),
		error: /"Inputs \(JSON\)" is not valid JSON/,
		fix: /Enter a JSON object such as \{"prompt": "a red fox"\}, with double quotes/,
	},
	{
		name: 'body that is an array, not an object',
		node: 'model',
		parameters: modelRun(STABLE.flash, '[{"prompt": "a fox"}]'),
		error: /"Inputs \(JSON\)" must be a JSON object, not an array/,
		fix: /Enter the request body as one flat JSON object/,
	},
	{
		name: 'body wrapped in "input"',
		node: 'model',
		parameters: modelRun(STABLE.flash, { input: { prompt: 'a fox' } }),
		error: /input is not an input of this model/,
		fix: /put the inputs at the top level instead of inside "input"/,
	},
	{
		name: 'data URI where a URL is required',
		node: 'model',
		parameters: modelRun(STABLE.imageToVideo, { prompt: 'x', image_url: 'data:image/png;base64,iVBORw0KGgo=' }),
		error: /image_url is a Base64 data URI\. The Model API does not accept Base64 data/,
		fix: SCHEMA_FIX,
	},
	{
		name: 'local path where a URL is required (/tmp/x.png)',
		node: 'model',
		parameters: modelRun(STABLE.imageToVideo, { prompt: 'x', image_url: '/tmp/x.png' }),
		error: /image_url looks like a local file path \("\/tmp\/x\.png"\)/,
		fix: SCHEMA_FIX,
	},
	{
		name: 'file:// URL where a public URL is required',
		node: 'model',
		parameters: modelRun(STABLE.imageToVideo, { prompt: 'x', image_url: 'file:///tmp/x.png' }),
		error: /image_url looks like a local file path \("file:\/\/\/tmp\/x\.png"\)/,
		fix: SCHEMA_FIX,
	},
	{
		name: 'http:// file URL (HTTPS required)',
		node: 'model',
		parameters: modelRun(STABLE.imageToVideo, { prompt: 'x', image_url: 'http://files.example.com/x.png' }),
		error: /image_url must use https:\/\/.*got an http:\/\/ URL/,
		fix: SCHEMA_FIX,
	},
	{
		name: 'a data URI in a list of image URLs',
		node: 'model',
		parameters: modelRun(STABLE.imageEditPlural, { prompt: 'x', image_urls: [PNG_URL, 'data:image/png;base64,iVBORw0KGgo='] }),
		error: /image_urls\[1\] is a Base64 data URI/,
		fix: SCHEMA_FIX,
	},
	{
		name: 'a LoRA on a model that takes none',
		node: 'model',
		parameters: modelRun(STABLE.flash, { prompt: 'x' }, { lora: 'my_lora.safetensors' }),
		error: /the model blackforestlabs\/flux-2\/flash\/text-to-image does not accept a LoRA/,
		fix: /Clear the "LoRA" field, or pick a model whose inputs include "lora"/,
	},
	// ---------------------------------------------------------------- Model: account and credential
	{
		name: 'wrong token (401)',
		node: 'model',
		parameters: modelRun(STABLE.flash, { prompt: 'x' }),
		credentials: { accessToken: 'dummy-wrong-token-123' },
		error: /401 \(401001 Unauthorized\)/,
		fix: /RunComfy did not accept the access token\. Open the RunComfy API credential and paste the current token/,
	},
	{
		name: 'token pasted with "Bearer "',
		node: 'model',
		parameters: modelRun(STABLE.flash, { prompt: 'x' }),
		credentials: { accessToken: `Bearer ${SCAN_TOKEN}` },
		error: /The RunComfy access token starts with "Bearer "/,
		fix: /paste only the token itself, without the word "Bearer"/,
		check: noRequests,
	},
	{
		name: 'empty wallet (the service refuses: insufficient funds)',
		node: 'model',
		parameters: modelRun(STABLE.flash, { prompt: 'x' }),
		config: { walletMicrodollars: 0 },
		paidRefused: true,
		error: /400 \(400002 InsufficientResources\)/,
		fix: TOP_UP,
	},
	{
		name: 'minimum-balance guard (checked before submitting)',
		node: 'model',
		parameters: modelRun(STABLE.flash, { prompt: 'x' }, { options: { minimumBalanceUsd: 3 } }),
		config: { walletMicrodollars: 2_500_000 },
		error: /The RunComfy balance is \$2\.50, below the minimum of \$3\.00/,
		fix: GUARD_FIX,
		check: (log) => expect(log.some((e) => e.path === '/prod/v2/balance')).toBe(true),
	},
	{
		name: 'base URL that is not a URL',
		node: 'model',
		parameters: modelRun(STABLE.flash, { prompt: 'x' }),
		credentials: { modelApiBaseUrl: 'model-api.runcomfy' },
		error: /The Model API Base URL in the RunComfy API credential is not a valid URL/,
		fix: /Use a plain http\(s\) URL .*or clear the field to use the default/,
		check: noRequests,
	},
	// ---------------------------------------------------------------- Model: request ids
	{
		name: 'empty request id (from an expression)',
		node: 'model',
		parameters: modelOp('getStatus', '={{ $json.id }}'),
		inputItems: [{ json: { id: '' } }],
		error: /^The Request ID is empty$/,
		fix: REQUEST_ID_FIX,
		check: noRequests,
	},
	{
		name: 'whitespace request id',
		node: 'model',
		parameters: modelOp('getResult', '   '),
		error: /^The Request ID is empty$/,
		fix: REQUEST_ID_FIX,
		check: noRequests,
	},
	{
		name: 'request id "../x" (path injection)',
		node: 'model',
		parameters: modelOp('getStatus', '../x'),
		error: /The Request ID "\.\.\/x" is not valid/,
		fix: REQUEST_ID_FIX,
		check: noRequests,
	},
	{
		name: 'request id with "?" on Cancel',
		node: 'model',
		parameters: modelOp('cancel', 'abc?x=1'),
		error: /The Request ID "abc\?x=1" is not valid/,
		fix: REQUEST_ID_FIX,
		check: noRequests,
	},
	{
		name: 'request id with "#"',
		node: 'model',
		parameters: modelOp('getResult', 'abc#frag'),
		error: /The Request ID "abc#frag" is not valid/,
		fix: REQUEST_ID_FIX,
		check: noRequests,
	},
	{
		name: 'request id with a backslash',
		node: 'model',
		parameters: modelOp('getStatus', 'abc\\def'),
		error: /The Request ID "abc\\def" is not valid/,
		fix: REQUEST_ID_FIX,
		check: noRequests,
	},
	{
		name: 'Get Result of a request id that does not exist',
		node: 'model',
		parameters: modelOp('getResult', '6d2c1f8e-0000-4000-8000-000000000000'),
		error: /404 \(404001 ResourceNotFound\).*6d2c1f8e-0000-4000-8000-000000000000/,
		fix: /Check the request id: it must come from a model run/,
	},
	{
		name: 'Cancel of a request id that does not exist',
		node: 'model',
		parameters: modelOp('cancel', '6d2c1f8e-0000-4000-8000-000000000001'),
		error: /404 \(404001 ResourceNotFound\)/,
		fix: /Check the request id: it must come from a model run/,
	},
	{
		name: 'Get Result on the Model API of a deployment request id',
		node: 'model',
		parameters: (fx) => modelOp('getResult', fx.deploymentRequest),
		error: /404 \(404001 ResourceNotFound\)/,
		fix: /deployment request ids are not valid here/,
	},
	// ---------------------------------------------------------------- Model: downloads (not errors by design)
	{
		name: 'download host outside the allow-list: skipped and listed, never fetched',
		node: 'model',
		parameters: (fx) => modelOp('getResult', fx.mixedHostsRun, { downloadOutputs: true }),
		error: NOT_AN_ERROR,
		fix: NOT_AN_ERROR,
		succeeds: (result, log, fx) => {
			expect(result.error).toBeUndefined();
			const [item] = result.items;
			expect(item.json.request_id).toBe(fx.mixedHostsRun);
			const skipped = item.json.skipped_downloads as Array<{ url: string; reason: string }>;
			expect(skipped).toHaveLength(1);
			expect(skipped[0].url).toMatch(/^http:\/\/localhost:/);
			expect(skipped[0].reason).toMatch(/host not in the allowed download hosts.*add it to "Allowed Download Hosts"/);
			expect(Object.keys(item.binary ?? {}).length).toBeGreaterThan(0);
			expect(log.filter((e) => e.api === 'foreign')).toEqual([]);
			expect(log.filter((e) => e.api === 'files').length).toBeGreaterThan(0);
		},
	},
	{
		name: 'download over the size cap (1 MB cap, 3 MB output): aborted, nothing kept, reason and fix listed',
		node: 'model',
		parameters: (fx) => modelOp('getResult', fx.largeRun, { downloadOutputs: true, maxDownloadSizeMb: 1 }),
		error: NOT_AN_ERROR,
		fix: NOT_AN_ERROR,
		succeeds: (result, log, fx) => {
			expect(result.error).toBeUndefined();
			const [item] = result.items;
			expect(item.json.request_id).toBe(fx.largeRun);
			const skipped = item.json.skipped_downloads as Array<{ url: string; reason: string }>;
			expect(skipped).toHaveLength(1);
			expect(skipped[0].reason).toMatch(/over the 1 MiB download limit/);
			expect(skipped[0].reason).toMatch(/raise Max Download Size or turn off Download Outputs/);
			expect(item.binary).toBeUndefined();
			expect(log.filter((e) => e.api === 'files').length).toBeGreaterThan(0);
		},
	},
	// ---------------------------------------------------------------- Deployment
	{
		name: 'unknown deployment id',
		node: 'deployment',
		parameters: inference(NO_SUCH_DEPLOYMENT, { '6': { inputs: { text: 'x' } } }),
		error: new RegExp(`No deployment with ID "${NO_SUCH_DEPLOYMENT}" exists`),
		fix: DEPLOYMENT_FIX,
	},
	{
		name: 'deployment id "../x" (path injection)',
		node: 'deployment',
		parameters: inference('={{ "../x" }}', { '6': { inputs: { text: 'x' } } }),
		error: /The Deployment ID "\.\.\/x" is not valid/,
		fix: DEPLOYMENT_FIX,
		check: noRequests,
	},
	{
		name: 'paused deployment inference',
		node: 'deployment',
		parameters: inference(PAUSED, { '6': { inputs: { text: 'x' } } }),
		error: /The deployment "paused-text-to-image" \(5f0c3a52-6b1e-4c8e-9a0d-2d4f7b8e1a03\) is paused/,
		fix: /Resume it first/,
	},
	{
		name: 'override naming an unknown node id',
		node: 'deployment',
		parameters: inference(SDXL, { '99': { inputs: { text: 'x' } } }),
		error: /node "99" is not in the deployment's workflow \(its nodes: 3 \(KSampler\)/,
		fix: OVERRIDES_FIX,
	},
	{
		name: 'override naming an unknown input of a node',
		node: 'deployment',
		parameters: inference(SDXL, { '6': { inputs: { prompt_text: 'x' } } }),
		error: /#6 has no input "prompt_text" \(its inputs: text, clip\)/,
		fix: OVERRIDES_FIX,
	},
	{
		name: 'overrides that are not valid JSON',
		node: 'deployment',
		parameters: inference(SDXL, '{"6": {"inputs": {"text": "x"}'),
		error: /"Overrides \(JSON\)" is not valid JSON/,
		fix: /Enter a JSON object such as \{"6": \{"inputs": \{"text": "a red fox"\}\}\}, with double quotes/,
	},
	{
		name: 'overrides wrapped in "overrides"',
		node: 'deployment',
		parameters: inference(SDXL, { overrides: { '6': { inputs: { text: 'x' } } } }),
		error: /node "overrides" is not in the deployment's workflow/,
		fix: /Enter only the overrides object, without an "overrides" wrapper/,
	},
	{
		name: 'empty inference body',
		node: 'deployment',
		parameters: inference(SDXL, {}),
		error: /^No overrides to send$/,
		fix: /The service refuses an empty body\. Enter at least one override/,
	},
	{
		name: 'full workflow not in ComfyUI API format',
		node: 'deployment',
		parameters: inference(SDXL, '', { inputMode: 'fullWorkflow', workflowJson: JSON.stringify({ nodes: [], links: [] }) }),
		error: /The workflow is not in ComfyUI's API format/,
		fix: /Export the workflow from ComfyUI with "Export \(API\)"/,
	},
	{
		name: 'binary input from an item without binary data',
		node: 'deployment',
		parameters: inference('5f0c3a52-6b1e-4c8e-9a0d-2d4f7b8e1a02', { '6': { inputs: { text: 'x' } } }, {
			binaryInputs: { files: [{ nodeId: '10', inputName: 'image', binaryPropertyName: 'data' }] },
		}),
		error: /Binary Input: the item has no binary field "data"/,
		fix: /Add a node before this one that reads or downloads the file/,
	},
	{
		name: 'webhook URL that is not a URL',
		node: 'deployment',
		parameters: inference(SDXL, { '6': { inputs: { text: 'x' } } }, { options: { webhookUrl: 'my-webhook' } }),
		error: /The Webhook URL "my-webhook" is not a valid http\(s\) URL/,
		fix: /Enter the full URL RunComfy should POST progress and the result to/,
	},
	{
		name: 'empty wallet on a deployment (the service refuses: 10001)',
		node: 'deployment',
		parameters: inference(SDXL, { '6': { inputs: { text: 'x' } } }),
		config: { walletMicrodollars: 0 },
		paidRefused: true,
		error: /402 \(10001 InsufficientFunds\)/,
		fix: TOP_UP,
	},
	{
		name: 'minimum-balance guard on a deployment',
		node: 'deployment',
		parameters: inference(SDXL, { '6': { inputs: { text: 'x' } } }, { options: { minimumBalanceUsd: 100 } }),
		error: /below the minimum of \$100\.00/,
		fix: GUARD_FIX,
	},
	{
		name: 'create: min instances above max',
		node: 'deployment',
		parameters: createDeployment({ minInstances: 3, maxInstances: 1 }),
		error: /^Min Instances \(3\) is above Max Instances \(1\)$/,
		fix: /Lower "Min Instances" or raise "Max Instances" so that min ≤ max/,
		check: noWrites,
	},
	{
		name: 'create: unknown hardware SKU',
		node: 'deployment',
		parameters: createDeployment({ hardware: 'RTX_4090_FAKE' }),
		error: /"RTX_4090_FAKE" is not a known hardware SKU/,
		fix: /Choose one of .*AMPERE_48/,
		check: noWrites,
	},
	{
		name: 'update: min instances above max',
		node: 'deployment',
		parameters: { resource: 'deployment', operation: 'update', deploymentId: byId(SDXL), updateFields: { minInstances: 5, maxInstances: 2 } },
		error: /Min Instances \(5\) is above Max Instances \(2\)/,
		fix: /Lower "Min Instances" or raise "Max Instances"/,
		check: noWrites,
	},
	{
		name: 'update of a deployment that does not exist',
		node: 'deployment',
		parameters: { resource: 'deployment', operation: 'update', deploymentId: byId(NO_SUCH_DEPLOYMENT), updateFields: { maxInstances: 2 } },
		error: new RegExp(`No deployment with ID "${NO_SUCH_DEPLOYMENT}" exists`),
		fix: DEPLOYMENT_FIX,
		check: (log) => expect(log.filter((e) => e.method === 'PATCH' && e.status < 400)).toEqual([]),
	},
	{
		name: 'delete of a deployment that does not exist',
		node: 'deployment',
		parameters: { resource: 'deployment', operation: 'delete', deploymentId: byId(NO_SUCH_DEPLOYMENT) },
		error: new RegExp(`No deployment with ID "${NO_SUCH_DEPLOYMENT}" exists`),
		fix: DEPLOYMENT_FIX,
	},
	{
		name: 'Get Result of a deployment request id that does not exist',
		node: 'deployment',
		parameters: { resource: 'inference', operation: 'getResult', deploymentId: byId(SDXL), requestId: 'f033c4a2-0000-4000-8000-000000000000' },
		error: /404 \(404001 ResourceNotFound\).*f033c4a2-0000-4000-8000-000000000000/,
		fix: /the request id must come from an inference on this deployment/,
	},
	{
		name: 'instance proxy path escaping the proxy route ("../../")',
		node: 'deployment',
		parameters: { resource: 'inference', operation: 'callInstanceProxy', deploymentId: byId(SDXL), instanceId: 'inst-1', path: 'api/../../../prod/v2/balance' },
		error: /The backend path "api\/\.\.\/\.\.\/\.\.\/prod\/v2\/balance" has an empty, "\." or "\.\." segment/,
		fix: /Give the backend path without the host/,
		check: noRequests,
	},
	// ---------------------------------------------------------------- Dataset
	{
		name: 'upload from a local path',
		node: 'dataset',
		parameters: (fx) => dataset('uploadFromUrl', fx.readyDataset.id, { url: '/tmp/x.png' }),
		error: /Cannot upload from "\/tmp\/x\.png": "\/tmp\/x\.png" is not a URL but a local path/,
		fix: LOCAL_FILE_FIX,
		check: noWrites,
	},
	{
		name: 'upload from a file:// URL',
		node: 'dataset',
		parameters: (fx) => dataset('uploadFromUrl', fx.readyDataset.id, { url: 'file:///etc/passwd' }),
		error: /The URL is a local file; only public http\(s\) URLs can be uploaded/,
		fix: LOCAL_FILE_FIX,
		check: noWrites,
	},
	{
		name: 'upload from a data: URI',
		node: 'dataset',
		parameters: (fx) => dataset('uploadFromUrl', fx.readyDataset.id, { url: 'data:image/png;base64,iVBORw0KGgo=' }),
		error: /The URL is a data: URI; only public http\(s\) URLs can be uploaded/,
		fix: /Give a public http\(s\) URL/,
		check: noWrites,
	},
	{
		name: 'oversize file for the direct upload (160 MB from a URL)',
		node: 'dataset',
		parameters: (fx) => dataset('uploadFromUrl', fx.readyDataset.id, { url: '={{ $json.url }}' }),
		error: /is larger than 150 MB \(167772160 bytes declared\)/,
		fix: /use Upload File: larger files go through a signed upload URL/,
		check: (log) => expect(log.filter((e) => e.api === 'trainer' && e.method === 'POST')).toEqual([]),
	},
	{
		name: 'upload file from an item without binary data',
		node: 'dataset',
		parameters: (fx) => dataset('uploadFile', fx.readyDataset.id, { binaryPropertyName: 'data' }),
		error: /expects the node's input data to contain a binary file 'data'/,
		fix: /previous node outputs a binary file/,
		check: (log) => expect(log.filter((e) => e.method === 'POST')).toEqual([]),
	},
	{
		name: 'dataset id "a/../../b" (path injection)',
		node: 'dataset',
		parameters: dataset('getStatus', 'a/../../b'),
		error: /The dataset id "a\/\.\.\/\.\.\/b" contains "\/"/,
		fix: /Use the dataset id exactly as the service returned it/,
		check: noRequests,
	},
	{
		name: 'dataset id with "?" on Delete',
		node: 'dataset',
		parameters: dataset('delete', 'abc?force=1'),
		error: /The dataset id "abc\?force=1" contains "\?"/,
		fix: /Use the dataset id exactly as the service returned it/,
		check: noRequests,
	},
	{
		name: 'unknown dataset id',
		node: 'dataset',
		parameters: dataset('getStatus', 'ds-does-not-exist'),
		error: /404 \(40401 DATASET_NOT_FOUND\)/,
		fix: /No dataset "ds-does-not-exist" was found\. Check the dataset id \(use List Datasets\)/,
	},
	{
		name: 'dataset name with characters the service refuses',
		node: 'dataset',
		parameters: { resource: 'dataset', operation: 'create', name: 'my dataset!' },
		error: /422 \(42201\).*name must be/,
		fix: /These inputs were rejected: name: .*Fix them and run again/,
		check: (log) => expect(log.filter((e) => e.method === 'POST' && e.status < 400)).toEqual([]),
	},
	{
		name: 'dataset name that is already taken',
		node: 'dataset',
		parameters: (fx) => ({ resource: 'dataset', operation: 'create', name: fx.readyDataset.name }),
		error: /409 \(40901 DATASET_NAME_CONFLICT\)/,
		fix: /Choose another name, or use the existing resource/,
	},
	// ---------------------------------------------------------------- Training
	{
		name: 'wrong GPU combination (8 × HOPPER_141)',
		node: 'training',
		parameters: (fx) => simpleSubmit(fx, { gpuType: 'HOPPER_141', gpuCount: 8 }),
		error: /8 GPUs are available only with ADA_80_PLUS \(H100\), not with HOPPER_141/,
		fix: GPU_FIX,
		check: noRequests,
	},
	{
		name: 'unknown GPU type',
		node: 'training',
		parameters: (fx) => simpleSubmit(fx, { gpuType: 'A100_40' }),
		error: /GPU type "A100_40" is not offered for training; use ADA_80_PLUS or HOPPER_141/,
		fix: GPU_FIX,
		check: noRequests,
	},
	{
		name: 'GPU count other than 1 or 8',
		node: 'training',
		parameters: (fx) => simpleSubmit(fx, { gpuCount: 4 }),
		error: /GPU count must be 1 or 8 \(got 4\)/,
		fix: GPU_FIX,
		check: noRequests,
	},
	{
		name: 'wrong training_folder',
		node: 'training',
		parameters: (fx) => textSubmit(configWith(fx, (p) => (p.training_folder = '/workspace/output'))),
		error: /training_folder is "\/workspace\/output"/,
		fix: /must be "\/app\/ai-toolkit\/output"/,
	},
	{
		name: 'wrong dataset folder_path (a dataset that does not exist)',
		node: 'training',
		parameters: (fx) =>
			textSubmit(configWith(fx, (p) => ((p.datasets as IDataObject[])[0].folder_path = '/app/ai-toolkit/datasets/no-such-set'))),
		error: /refers to dataset "no-such-set", which does not exist in this account/,
		fix: /the datasets are: ready-set \(READY\)/,
	},
	{
		name: 'dataset folder_path outside /app/ai-toolkit/datasets/',
		node: 'training',
		parameters: (fx) => textSubmit(configWith(fx, (p) => ((p.datasets as IDataObject[])[0].folder_path = '/data/my-images'))),
		error: /folder_path is "\/data\/my-images"/,
		fix: /must be "\/app\/ai-toolkit\/datasets\/<dataset name>" \(the dataset's name, not its id\)/,
	},
	{
		name: 'folder_path naming the dataset by id instead of name',
		node: 'training',
		parameters: (fx) =>
			textSubmit(configWith(fx, (p) => ((p.datasets as IDataObject[])[0].folder_path = `/app/ai-toolkit/datasets/${fx.readyDataset.id}`))),
		error: /folder_path uses the dataset's id/,
		fix: /use its name: "\/app\/ai-toolkit\/datasets\/ready-set"/,
	},
	{
		name: 'dataset not READY (config text)',
		node: 'training',
		parameters: (fx) =>
			textSubmit(configWith(fx, (p) => ((p.datasets as IDataObject[])[0].folder_path = `/app/ai-toolkit/datasets/${fx.draftDataset.name}`))),
		error: /Dataset "draft-set" is DRAFT, not READY/,
		fix: /Wait for it with RunComfy Dataset → Wait Until Ready/,
	},
	{
		name: 'dataset not READY (simple form)',
		node: 'training',
		parameters: (fx) => simpleSubmit(fx, { dataset: byId(fx.draftDataset.id) }),
		error: /dataset "draft-set" is DRAFT, not READY/,
		fix: /Wait for it with RunComfy Dataset → Wait Until Ready/,
	},
	{
		name: 'config that is not valid JSON',
		node: 'training',
		parameters: textSubmit('{"job": "extension", "config": {', { configFormat: 'json' }),
		error: /The config is not valid JSON/,
		// The description points at the position of the mistake (it names no further fix).
		fix: /Nothing was submitted\.\n- The config is not valid JSON: .*position \d+/,
	},
	{
		name: 'empty config (from an expression)',
		node: 'training',
		parameters: textSubmit('={{ $json.config }}'),
		inputItems: [{ json: { config: '' } }],
		error: /the Config field is empty/,
		fix: /Nothing was submitted\.\n- the Config field is empty/,
	},
	{
		name: 'minimum-balance guard on a training submit',
		node: 'training',
		parameters: (fx) => simpleSubmit(fx, { options: { minimumBalanceUsd: 1000 } }),
		error: /below the minimum of \$1000\.00/,
		fix: GUARD_FIX,
	},
	{
		name: 'renamed edit (config.name changed)',
		node: 'training',
		parameters: (fx) => job('edit', fx.stoppedJob.id, { configText: JSON.stringify(trainingConfig('renamed_job', fx.readyDataset.name)), configFormat: 'json' }),
		error: /config\.name is "renamed_job" but must stay "fixture_job", the job's original name/,
		fix: /Set config\.name to "fixture_job" in the new config/,
		check: (log) => expect(log.filter((e) => e.path.endsWith('/edit'))).toEqual([]),
	},
	{
		name: 'edit while RUNNING',
		node: 'training',
		parameters: (fx) => job('edit', fx.runningJob, { configText: JSON.stringify(trainingConfig('running_job', fx.readyDataset.name)), configFormat: 'json' }),
		error: /is RUNNING; only a STOPPED, CANCELED or FAILED job can be edited/,
		fix: /Cancel the job first \(its checkpoints are kept\), then edit and resume it/,
		check: (log) => expect(log.filter((e) => e.path.endsWith('/edit'))).toEqual([]),
	},
	{
		name: 'resume while RUNNING',
		node: 'training',
		parameters: (fx) => job('resume', fx.runningJob),
		error: /is RUNNING; only a stopped, failed or cancelled job can be resumed/,
		fix: /Wait for it with Get Status, or cancel it first/,
	},
	{
		name: 'resume with the wrong GPU combination',
		node: 'training',
		parameters: (fx) => job('resume', fx.stoppedJob.id, { gpuType: 'HOPPER_141', gpuCount: 8 }),
		error: /8 GPUs are available only with ADA_80_PLUS/,
		fix: GPU_FIX,
	},
	{
		name: 'job id "../x" (path injection)',
		node: 'training',
		parameters: job('getStatus', '../x'),
		error: /The job id "\.\.\/x" contains "\/"/,
		fix: /Use the job id exactly as the service returned it/,
		check: noRequests,
	},
	{
		name: 'job id that does not exist',
		node: 'training',
		parameters: job('getResult', 'job-does-not-exist'),
		error: /404 \(40451\).*job-does-not-exist/,
		fix: /Check the job id returned when the job was submitted/,
	},
	{
		name: 'empty job id',
		node: 'training',
		parameters: job('getStatus', ' '),
		error: /^No job ID was given$/,
		fix: /Enter the job ID that Submit output as "job_id"/,
		check: noRequests,
	},
	// ---------------------------------------------------------------- Trigger ("Fetch test event")
	{
		name: 'trigger watching a request id "../x"',
		node: 'trigger',
		parameters: trigger('../x'),
		error: /The request id "\.\.\/x" contains "\/"/,
		fix: /Use the request id exactly as the service returned it/,
		check: noRequests,
	},
	{
		name: 'trigger watching a request id that does not exist',
		node: 'trigger',
		parameters: trigger('6d2c1f8e-0000-4000-8000-000000000002'),
		error: /404 \(404001 ResourceNotFound\)/,
		fix: /Check the request id: it must come from a model run/,
	},
	{
		name: 'trigger with a wrong token',
		node: 'trigger',
		parameters: trigger('6d2c1f8e-0000-4000-8000-000000000000'),
		credentials: { accessToken: 'dummy-wrong-token-456' },
		error: /401 \(401001 Unauthorized\)/,
		fix: /RunComfy did not accept the access token/,
	},
];

let sb: Sandbox;
let fx: Fixtures;
const WALLET = 20_000_000;

beforeAll(async () => {
	sb = await openFaultSandbox({ walletMicrodollars: WALLET, datasetReadyMs: 10, trainingStepMs: 1, trainingQueueMs: 0, largeOutputBytes: 3 * 1024 * 1024 });
	const ready = await readyDataset(sb, 'ready-set');
	const draft = await direct(sb, 'trainer', 'POST', '/prod/v1/trainers/datasets', { name: 'draft-set' });
	const mixedHostsRun = await completedModelRun(sb, STABLE.mixedHosts, { prompt: 'mixed' });
	const largeRun = await completedModelRun(sb, STABLE.large, { prompt: 'large' });
	const inferenceAnswer = await direct(sb, 'serverless', 'POST', `/prod/v1/deployments/${SDXL}/inference`, {
		overrides: { '6': { inputs: { text: 'fixture' } } },
	});
	// A finished job (4 steps of 1 ms) and one that stays RUNNING (a million steps of 1 ms).
	const stopped = await direct(sb, 'trainer', 'POST', '/prod/v1/trainers/ai-toolkit/jobs', {
		config_file_format: 'json',
		config_file: JSON.stringify(trainingConfig('fixture_job', ready.name)),
		gpu_type: 'ADA_80_PLUS',
	});
	const stoppedId = String(stopped.body.job_id ?? stopped.body.id);
	await until(() => sb.state().jobs.some((j) => j.id === stoppedId && j.status === 'STOPPED'), 'fixture job STOPPED');
	// (The sandbox reads trainingStepMs live, so the long job gets many steps instead of slow ones.)
	const running = await direct(sb, 'trainer', 'POST', '/prod/v1/trainers/ai-toolkit/jobs', {
		config_file_format: 'json',
		config_file: JSON.stringify(trainingConfig('running_job', ready.name, 1_000_000, 100_000)),
		gpu_type: 'ADA_80_PLUS',
	});
	const runningId = String(running.body.job_id ?? running.body.id);
	await until(() => sb.state().jobs.some((j) => j.id === runningId && j.status === 'RUNNING'), 'fixture job RUNNING');
	fx = {
		readyDataset: ready,
		draftDataset: { id: String(draft.body.id), name: 'draft-set' },
		mixedHostsRun,
		largeRun,
		deploymentRequest: String(inferenceAnswer.body.request_id),
		stoppedJob: { id: stoppedId, name: 'fixture_job' },
		runningJob: runningId,
	};
});
afterAll(async () => {
	await sb.close();
	await disposeEngine();
});

interface Outcome {
	result?: RunNodeResult;
	error?: { message: string; description?: string };
}

async function execute(row: Row): Promise<Outcome> {
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
	let inputItems = row.inputItems;
	if (!inputItems && row.name.startsWith('oversize')) {
		inputItems = [{ json: { url: `${sb.urls.files}/files/gen/${160 * 1024 * 1024}/big.png` } }];
	}
	const result = await runNode({ node: NODES[row.node], parameters, credentials, inputItems });
	expect(leaksOf(exposedBy(result), sb.token)).toEqual([]);
	return { result, error: result.error };
}

it('has at least 40 rows covering every node', () => {
	expect(ROWS.length).toBeGreaterThanOrEqual(40);
	expect(new Set(ROWS.map((r) => r.node))).toEqual(new Set(Object.keys(NODES)));
	expect(new Set(ROWS.map((r) => r.name)).size).toBe(ROWS.length);
});

describe('bad input: a clear error naming the problem and its fix, and no paid call', () => {
	it.each(ROWS.map((row) => [row.node, row.name, row] as const))('%s: %s', async (_node, _name, row) => {
		sb.clearLog();
		const before = sb.state();
		if (row.config) sb.configure(row.config);
		const walletSet = sb.state().walletMicrodollars;
		let outcome: Outcome;
		let after: ReturnType<Sandbox['state']>;
		try {
			outcome = await execute(row);
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
