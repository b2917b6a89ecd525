/**
 * n8n's AI Agent calling the RunComfy tools in a REAL n8n (the pinned version, one `n8n start` for the file, each
 * workflow saved and executed through n8n's REST API as the editor's "Execute workflow" does): the agent's
 * OpenAI Chat Model node talks to a scripted stand-in model on loopback (test/helpers/fakeLlm.ts), which records
 * what n8n offered the model and what each tool answered. Both agent versions n8n ships run a tool differently
 * (3.x as a workflow node, 2.x in-process); each is driven here.
 */
import { startSandbox } from '../../sandbox';
import type { Sandbox } from '../../sandbox';
import { agentExampleWorkflow } from '../../scripts/e2e/agent-example';
import * as h from '../../scripts/e2e/n8n';
import type { N8nInstance, UserFolder } from '../../scripts/e2e/n8n';
import { answer, lastToolResult, startFakeLlm, textOf, toolResults } from '../helpers/fakeLlm';
import { jobReaches, readyDataset, submitJob } from '../helpers/sandboxCalls';
import type { ChatRequest, FakeLlm, Reply } from '../helpers/fakeLlm';
import {
	CAP_USD,
	FLUX,
	FLUX_PRO,
	agentWorkflow,
	fromAI,
	deploymentAndTrainingTools,
	modelTools,
	openAiCredential,
	parseToolResult,
	toolFor,
} from './agentKit';
import type { ToolNode } from './agentKit';

const TEST_TIMEOUT = 4 * 60 * 1000;

let sandbox: Sandbox;
let llm: FakeLlm;
let userFolder: UserFolder;
let n8n: N8nInstance;
let runcomfy: { id: string; name: string };
let openAi: { id: string; name: string };

/** A tool call by node name, resolved against the tools n8n offered in this request. */
const call =
	(nodeName: string, args: Record<string, unknown> | ((req: ChatRequest) => Record<string, unknown>)) =>
	(req: ChatRequest): Reply => ({
		toolCalls: [{ name: toolFor(req, nodeName).function.name, arguments: typeof args === 'function' ? args(req) : args }],
	});

const submits = () => sandbox.log().filter((e) => e.api === 'model' && e.method === 'POST' && /^\/v1\/models\//.test(e.path));

/** Saves the workflow, runs it as the editor does and waits for its end; neither n8n's log nor the execution holds the token. */
async function execute(workflow: object) {
	const wf = await n8n.rest.createWorkflow(h.prepareWorkflow(workflow, { credential: runcomfy }));
	sandbox.clearLog();
	llm.requests.length = 0;
	const run = await n8n.rest.runManually(wf.id, { timeoutMs: TEST_TIMEOUT });
	const printed = `${JSON.stringify(run)}\n${n8n.logs()}`;
	expect(printed.includes(sandbox.token)).toBe(false);
	return { run, printed };
}

async function runAgent(agentVersion: number, prompt: string, tools: ToolNode[] = modelTools()) {
	return await execute(agentWorkflow({ name: `Agent ${agentVersion}`, prompt, agentVersion, tools, runcomfy, openAi }));
}

// The sandbox merges fault settings: switch off the one a retry test sets.
beforeEach(() => sandbox.configure({ faults: { rate5xx: 0 } }));

beforeAll(
	async () => {
		await h.ensureN8n();
		await h.ensureBuilt();
		userFolder = h.createUserFolder();
		sandbox = await startSandbox({ runDurationMs: 300, queueMs: 20, modelDurations: { [FLUX_PRO]: 10 * 60 * 1000 } });
		llm = await startFakeLlm();
		n8n = await h.startN8n(userFolder);
		await n8n.rest.setupOwner();
		runcomfy = await n8n.rest.createCredential(h.sandboxCredential(sandbox));
		openAi = await n8n.rest.createCredential(openAiCredential(llm.baseUrl));
	},
	15 * 60 * 1000,
);

afterAll(async () => {
	await n8n?.stop();
	await llm?.close();
	await sandbox?.close();
	userFolder?.cleanup();
});

describe.each([3.1, 2.2])('AI Agent %s in a real n8n with the RunComfy tools', (agentVersion) => {
	it(
		'estimates, runs (one submit) and gets compact JSON with the output URL',
		async () => {
			llm.script([
				call('Estimate Cost', { model_id: FLUX, inputs: JSON.stringify({ prompt: 'a red fox' }) }),
				call('Run Model', { model_id: FLUX, inputs: JSON.stringify({ prompt: 'a red fox' }), max_wait_seconds: 60 }),
				(req) => answer(`done: ${lastToolResult(req)}`),
			]);
			const { run, printed } = await runAgent(agentVersion, 'Price a red fox picture, then make it.');
			expect([run.status, printed.slice(-2000)]).toEqual(['success', expect.anything()]);
			expect(llm.remaining()).toBe(0);
			const [estimate, result] = toolResults(llm.requests.at(-1) as ChatRequest).map(parseToolResult);
			expect(estimate).toMatchObject({ model_id: FLUX, estimated: true });
			expect(typeof estimate.estimated_cost_usd).toBe('number');
			const id = String(result.request_id);
			expect(result).toMatchObject({ status: 'succeeded' });
			expect(typeof result.summary).toBe('string');
			expect(String(result.summary)).toContain(id);
			expect(JSON.stringify(result.output_urls)).toMatch(/http:\/\/127\.0\.0\.1:\d+\/files\//);
			expect(submits()).toHaveLength(1);
			expect(sandbox.log().filter((e) => e.api === 'files')).toEqual([]);
		},
		TEST_TIMEOUT,
	);

	it(
		'a long run comes back as still running within the agent bound; the agent follows up with Get Status by its id',
		async () => {
			llm.script([
				call('Run Model', { model_id: FLUX_PRO, inputs: JSON.stringify({ prompt: 'a slow fox' }), max_wait_seconds: 2 }),
				call('Get Status', (req) => ({ request_id: parseToolResult(lastToolResult(req)).request_id })),
				(req) => answer(`still going: ${lastToolResult(req)}`),
			]);
			const { run } = await runAgent(agentVersion, 'Make a slow fox picture.');
			expect(run.status).toBe('success');
			expect(llm.remaining()).toBe(0);
			const [first, status] = toolResults(llm.requests.at(-1) as ChatRequest).map(parseToolResult);
			const id = String(first.request_id);
			expect(first).toMatchObject({ still_running: true, status: 'running' });
			expect(first.error).toBeUndefined();
			expect(String(first.summary)).toContain(id);
			expect(status).toMatchObject({ request_id: id, status: 'running' });
			expect(submits()).toHaveLength(1);
			expect(sandbox.log().filter((e) => e.path.endsWith('/cancel'))).toEqual([]);
		},
		TEST_TIMEOUT,
	);

	it(
		'Max Estimated Cost refuses an over-budget call with nothing paid, and the model reads the refusal',
		async () => {
			llm.script([
				call('Run Model', { model_id: FLUX, inputs: JSON.stringify({ prompt: 'four foxes', num_images: 4 }), max_wait_seconds: 60 }),
				(req) => answer(`refused: ${lastToolResult(req)}`),
			]);
			const { run } = await runAgent(agentVersion, 'Make four fox pictures.');
			expect(run.status).toBe('success');
			const refusal = lastToolResult(llm.requests.at(-1) as ChatRequest);
			expect(refusal).toMatch(/Max Estimated Cost/i);
			expect(refusal).toContain(String(CAP_USD));
			expect(submits()).toHaveLength(0);
		},
		TEST_TIMEOUT,
	);

	it(
		'Deployment → Inference → Run and Training → Get Status as tools: compact answers, one submit',
		async () => {
			const dataset = `dogs${String(agentVersion).replace('.', '')}`;
			await readyDataset(sandbox, dataset);
			const jobId = await submitJob(sandbox, 'fox_lora', dataset, 10);
			await jobReaches(sandbox, jobId, (j) => j.status === 'STOPPED');
			const deploymentId = sandbox.stable.deployments.textToImage;
			llm.script([
				call('Run Deployment', { deployment_id: deploymentId, overrides: JSON.stringify({ '6': { inputs: { text: 'a red fox' } } }) }),
				call('Training Status', { job_id: jobId }),
				(req) => answer(`done: ${toolResults(req).join(' | ')}`),
			]);
			const { run } = await runAgent(agentVersion, 'Run the deployment and check the training.', deploymentAndTrainingTools());
			expect(run.status).toBe('success');
			const [inference, training] = toolResults(llm.requests.at(-1) as ChatRequest).map(parseToolResult);
			expect(inference).toMatchObject({ status: 'succeeded' });
			expect(String(inference.summary)).toContain(String(inference.request_id));
			expect(JSON.stringify(inference)).toMatch(/http:\/\/127\.0\.0\.1:\d+\/files\//);
			expect(training).toMatchObject({ job_id: jobId, status: 'succeeded', finished: true });
			// Simplify is on by default: the agent gets the short status record, not the GPU fields or the result URL.
			expect(training.gpu_type).toBeUndefined();
			expect(training.result_url).toBeUndefined();
			const inferenceSubmits = sandbox.log().filter((e) => e.method === 'POST' && e.path.endsWith('/inference'));
			expect(inferenceSubmits).toHaveLength(1);
			expect(sandbox.log().filter((e) => e.api === 'files')).toEqual([]);
		},
		TEST_TIMEOUT,
	);

	it(
		'the six most used tools: balance, estimate, run, result, a slow run followed up and cancelled',
		async () => {
			const six: ToolNode[] = [
				...modelTools(),
				{
					name: 'Cancel',
					node: 'model',
					parameters: { resource: 'model', operation: 'cancel', requestId: fromAI('request_id', 'The request_id') },
				},
				{ name: 'Get Balance', node: 'model', parameters: { resource: 'account', operation: 'getBalance' } },
			];
			const idOf = (req: ChatRequest) => ({ request_id: parseToolResult(lastToolResult(req)).request_id });
			llm.script([
				call('Get Balance', {}),
				call('Estimate Cost', { model_id: FLUX, inputs: JSON.stringify({ prompt: 'a red fox' }) }),
				call('Run Model', { model_id: FLUX, inputs: JSON.stringify({ prompt: 'a red fox' }), max_wait_seconds: 60 }),
				call('Get Result', idOf),
				call('Run Model', { model_id: FLUX_PRO, inputs: JSON.stringify({ prompt: 'a slow fox' }), max_wait_seconds: 1 }),
				call('Get Status', idOf),
				call('Cancel', idOf),
				(req) => answer(`done: ${toolResults(req).length}`),
			]);
			const { run } = await runAgent(agentVersion, 'Check the balance, price and make a fox, then a slow one and cancel it.', six);
			expect(run.status).toBe('success');
			expect(llm.remaining()).toBe(0);
			const texts = toolResults(llm.requests.at(-1) as ChatRequest);
			const [balance, estimate, made, result, slow, status, cancel] = texts.map(parseToolResult);
			expect(typeof balance.balance_usd).toBe('number');
			expect(estimate).toMatchObject({ model_id: FLUX, estimated: true });
			expect(made).toMatchObject({ status: 'succeeded' });
			expect(result).toMatchObject({ request_id: made.request_id, status: 'succeeded' });
			expect(slow).toMatchObject({ still_running: true });
			expect(status).toMatchObject({ request_id: slow.request_id });
			expect(cancel).toMatchObject({ request_id: slow.request_id });
			expect(submits()).toHaveLength(2);
		},
		TEST_TIMEOUT,
	);

	// n8n checks a tool call's arguments against the `$fromAI` types before the tool node runs, except on AI Agent
	// 3.x, which hands them to the node; 2.x's LangChain AgentExecutor rethrows the schema error, ending the run.
	it(
		'inputs sent as an object instead of the JSON text the schema asks for: 3.x runs it, 2.2 fails before any tool runs',
		async () => {
			llm.script([
				call('Run Model', { model_id: FLUX, inputs: { prompt: 'an object fox' }, max_wait_seconds: 60 }),
				(req) => answer(`done: ${lastToolResult(req)}`),
			]);
			const { run } = await runAgent(agentVersion, 'Make a fox picture.');
			if (agentVersion >= 3) {
				expect(run.status).toBe('success');
				expect(parseToolResult(lastToolResult(llm.requests.at(-1) as ChatRequest))).toMatchObject({ status: 'succeeded' });
				expect(submits()).toHaveLength(1);
				return;
			}
			expect(run.status).toBe('error');
			expect(String(run.data.resultData.error?.message)).toMatch(
				/^Received tool input did not match expected schema[\s\S]*Expected string, received object[\s\S]*inputs/,
			);
			expect(llm.requests).toHaveLength(1);
			expect(run.data.resultData.runData['Run Model']).toBeUndefined();
			expect(submits()).toHaveLength(0);
		},
		TEST_TIMEOUT,
	);

	it(
		'what the model is shown: each tool says what it does and what it costs',
		async () => {
			llm.script([answer('nothing to do')]);
			const { run } = await runAgent(agentVersion, 'Say hello.');
			expect(run.status).toBe('success');
			const shown = (llm.requests[0].tools ?? []).map((t) => ({
				name: t.function.name,
				description: t.function.description,
				parameters: t.function.parameters,
			}));
			expect(shown.map((t) => t.name).sort()).toEqual(['Estimate_Cost', 'Get_Result', 'Get_Status', 'Run_Model']);
			for (const tool of shown) {
				expect(tool.description).toMatch(/RunComfy/);
				expect(tool.description).toMatch(/Free: nothing is charged\.|Paid: this spends RunComfy credit\./);
			}
			expect(shown.find((t) => t.name === 'Run_Model')?.description).toMatch(
				/^Runs a RunComfy hosted model.*Paid: this spends RunComfy credit\./,
			);
			expect(shown.find((t) => t.name === 'Estimate_Cost')?.description).toMatch(/Submits nothing\. Free/);
			expect(shown.sort((a, b) => a.name.localeCompare(b.name))).toMatchSnapshot();
		},
		TEST_TIMEOUT,
	);
});

/**
 * AI Agent 3.x runs a tool node as an ordinary node (n8n's retry reuses its run index); AI Agent 2.x gives each try
 * a new run index. On both the pick-up memory must find the earlier submission of the same call. On Error stays at
 * its default (a failed try throws): 2.x's tool handler runs the node again only when it throws.
 */
describe.each([3.1, 2.2])('AI Agent %s: Retry On Fail on a tool node', (agentVersion) => {
	it(
		'Retry On Fail on the tool node with every submit answer lost: a later try runs, one submit',
		async () => {
			sandbox.configure({ faults: { rate5xx: 1, paidFaultTiming: 'after', methods: ['POST'], pathPrefixes: [`/v1/models/${FLUX}`] } });
			const tools = modelTools().map((t) =>
				t.name === 'Run Model' ? { ...t, continueOnFail: false, extra: { retryOnFail: true, maxTries: 3, waitBetweenTries: 100 } } : t,
			);
			llm.script([
				call('Run Model', { model_id: FLUX, inputs: JSON.stringify({ prompt: `a lost fox ${agentVersion}` }), max_wait_seconds: 30 }),
				(req) => answer(`failed: ${lastToolResult(req)}`),
			]);
			const { run } = await runAgent(agentVersion, 'Make a fox picture.', tools);
			expect(llm.remaining()).toBe(0);
			// Only a try after the first says this (the first saw the lost answer itself): a retry ran. 3.x keeps one
			// run index for the call's tries, 2.x gives each try its own; the last one holds the last try's error.
			const notAgain = /is not submitted again: on an earlier try of this node its run may have been accepted/;
			const tries = run.data.resultData.runData['Run Model'] ?? [];
			expect(tries).toHaveLength(agentVersion >= 3 ? 1 : 3);
			expect(JSON.stringify(tries.at(-1))).toMatch(notAgain);
			// 3.x hands the model that error; 2.x's agent (LangChain's AgentExecutor) hands it an empty answer.
			expect(lastToolResult(llm.requests.at(-1) as ChatRequest)).toMatch(agentVersion >= 3 ? notAgain : /^$/);
			expect(submits()).toHaveLength(1);
			expect(sandbox.state().runs.filter((r) => (r.body as { prompt?: string }).prompt === `a lost fox ${agentVersion}`)).toHaveLength(1);
		},
		TEST_TIMEOUT,
	);
});

describe('examples/agent-generate-images.json in a real n8n', () => {
	it(
		'a chat message: the agent prices and runs the image and answers with its URL (one submit)',
		async () => {
			const wf = agentExampleWorkflow('Make a red fox picture', openAi);
			// The inputs once as an object and once as the JSON text the schema asks for: AI Agent 3.x runs both.
			llm.script([
				call('Estimate Cost', { model_id: FLUX, inputs: { prompt: 'a red fox' } }),
				call('Run Model', { model_id: FLUX, inputs: JSON.stringify({ prompt: 'a red fox' }) }),
				(req) => answer(`Here it is: ${lastToolResult(req)}`),
			]);
			const { run } = await execute(wf);
			expect(run.status).toBe('success');
			expect(llm.requests[0].messages.map((m) => m.role)).toEqual(['system', 'user']);
			expect(textOf(llm.requests[0].messages[1])).toBe('Make a red fox picture');
			const output = h.nodeItems(run, 'AI Agent')?.[0]?.json.output;
			expect(String(output)).toMatch(/^Here it is: .*http:\/\/127\.0\.0\.1:\d+\/files\//);
			expect(submits()).toHaveLength(1);
		},
		TEST_TIMEOUT,
	);
});
