/**
 * Retry On Fail on the node that calls a sub-workflow, in a REAL n8n (one `n8n start`, each caller saved and run as
 * the editor's "Execute workflow" does): each try of the caller runs
 * the sub-workflow as a new execution, so the RunComfy node inside it starts afresh every time. The service takes
 * every submission but its answer is lost (500 after the run was created): the sandbox must see one submit, not
 * one per try. Callers: the Execute Workflow node (canvas) and the Call n8n Workflow Tool under both AI Agent
 * versions (3.x runs the tool as a workflow node, 2.x in-process with its own tries).
 */
import { startSandbox } from '../../sandbox';
import type { Sandbox } from '../../sandbox';
import * as h from '../../scripts/e2e/n8n';
import type { CredentialJson, N8nInstance, UserFolder } from '../../scripts/e2e/n8n';
import { answer, lastToolResult, startFakeLlm } from '../helpers/fakeLlm';
import type { ChatRequest, FakeLlm, Reply } from '../helpers/fakeLlm';
import { FLUX, openAiCredential, toolFor } from './agentKit';

const TEST_TIMEOUT = 4 * 60 * 1000;
const RETRY = { retryOnFail: true, maxTries: 3, waitBetweenTries: 100 };

let sandbox: Sandbox;
let llm: FakeLlm;
let userFolder: UserFolder;
let n8n: N8nInstance;
let runcomfy: CredentialJson;
let openAi: CredentialJson;
/** The published sub-workflows (n8n runs a sub-workflow's published version outside manual runs). */
const subWorkflowIds: Record<string, string> = {};

const submits = () => sandbox.log().filter((e) => e.api === 'model' && e.method === 'POST' && /^\/v1\/models\//.test(e.path));
const runsFor = (prompt: string) => sandbox.state().runs.filter((r) => (r.body as { prompt?: string }).prompt === prompt);

/** Execute Workflow Trigger (items passed through) → Model → Run with the prompt in `field`. */
function subWorkflow(field: string): object {
	return {
		name: `Generate one image from $json.${field}`,
		nodes: [
			{
				parameters: { inputSource: 'passthrough' },
				name: 'When Called',
				type: 'n8n-nodes-base.executeWorkflowTrigger',
				typeVersion: 1.1,
				position: [0, 0],
			},
			{
				parameters: {
					resource: 'model',
					operation: 'run',
					model: { __rl: true, mode: 'id', value: FLUX },
					inputMode: 'json',
					inputsJson: `={{ JSON.stringify({ prompt: $json.${field} }) }}`,
					downloadOutputs: false,
					waitOptions: { pollIntervalSeconds: 0.1, maxPollIntervalSeconds: 0.2, maxWaitSeconds: 30 },
				},
				name: 'Generate Image',
				type: h.NODE_TYPES.model,
				typeVersion: 1,
				position: [220, 0],
				credentials: { [h.CREDENTIAL_TYPE]: { id: runcomfy.id, name: runcomfy.name } },
			},
		],
		connections: { 'When Called': { main: [[{ node: 'Generate Image', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}

async function execute(workflow: object) {
	const wf = await n8n.rest.createWorkflow(h.prepareWorkflow(workflow));
	sandbox.clearLog();
	llm.requests.length = 0;
	const run = await n8n.rest.runManually(wf.id, { timeoutMs: TEST_TIMEOUT });
	expect(`${JSON.stringify(run)}\n${n8n.logs()}`.includes(sandbox.token)).toBe(false);
	return run;
}

beforeAll(
	async () => {
		await h.ensureN8n();
		await h.ensureBuilt();
		userFolder = h.createUserFolder();
		sandbox = await startSandbox({ runDurationMs: 200, queueMs: 20 });
		llm = await startFakeLlm();
		[runcomfy, openAi] = [h.sandboxCredential(sandbox), openAiCredential(llm.baseUrl)];
		const fields = ['prompt', 'query'];
		const started = await h.startN8nWithPublished(userFolder, { credentials: [runcomfy, openAi], workflows: fields.map(subWorkflow) });
		n8n = started.n8n;
		expect(started.statuses).toEqual(['published', 'published']);
		started.workflows.forEach((wf, i) => (subWorkflowIds[fields[i]] = wf.id));
		// Every submit's answer is lost: the run exists and is paid, the node cannot know it.
		sandbox.configure({ faults: { rate5xx: 1, paidFaultTiming: 'after', methods: ['POST'], pathPrefixes: [`/v1/models/${FLUX}`] } });
	},
	15 * 60 * 1000,
);

afterAll(async () => {
	await n8n?.stop();
	await llm?.close();
	await sandbox?.close();
	userFolder?.cleanup();
});

describe('Retry On Fail on the caller of a sub-workflow, in a real n8n', () => {
	it(
		'Execute Workflow with 3 tries, every submit answer lost: one submit, the error says it was not sent again',
		async () => {
			const prompt = 'a lost fox via Execute Workflow';
			const run = await execute({
				name: 'Execute Workflow with Retry On Fail',
				nodes: [
					{ parameters: {}, name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0] },
					{
						parameters: { mode: 'raw', jsonOutput: JSON.stringify({ prompt }), options: {} },
						name: 'Prompt',
						type: 'n8n-nodes-base.set',
						typeVersion: 3.4,
						position: [220, 0],
					},
					{
						parameters: {
							source: 'database',
							workflowId: { __rl: true, mode: 'id', value: subWorkflowIds.prompt },
							mode: 'once',
							options: {},
						},
						name: 'Generate in Sub-workflow',
						type: 'n8n-nodes-base.executeWorkflow',
						typeVersion: 1.2,
						position: [440, 0],
						...RETRY,
					},
				],
				connections: {
					Start: { main: [[{ node: 'Prompt', type: 'main', index: 0 }]] },
					Prompt: { main: [[{ node: 'Generate in Sub-workflow', type: 'main', index: 0 }]] },
				},
				settings: { executionOrder: 'v1' },
			});
			expect(run.status).toBe('error');
			expect(runsFor(prompt)).toHaveLength(1);
			expect(submits()).toHaveLength(1);
			expect(JSON.stringify(run.data.resultData.error)).toMatch(/not submitted again/);
		},
		TEST_TIMEOUT,
	);

	describe.each([3.1, 2.2])('AI Agent %s', (agentVersion) => {
		it(
			'Call n8n Workflow Tool with 3 tries, every submit answer lost: one submit',
			async () => {
				const prompt = `a lost fox via the workflow tool ${agentVersion}`;
				const callTool = (req: ChatRequest): Reply => ({
					toolCalls: [{ name: toolFor(req, 'Generate Image Tool').function.name, arguments: { input: prompt } }],
				});
				llm.script([callTool, (req) => answer(`tool said: ${lastToolResult(req)}`)]);
				const run = await execute({
					name: `Agent ${agentVersion} with a workflow tool`,
					nodes: [
						{ parameters: {}, name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0] },
						{
							parameters: { promptType: 'define', text: 'Make a fox picture.', options: { maxIterations: 5 } },
							name: 'AI Agent',
							type: '@n8n/n8n-nodes-langchain.agent',
							typeVersion: agentVersion,
							position: [220, 0],
						},
						{
							parameters: { model: { __rl: true, mode: 'id', value: 'gpt-4o-mini' }, options: {} },
							name: 'OpenAI Chat Model',
							type: '@n8n/n8n-nodes-langchain.lmChatOpenAi',
							typeVersion: 1.2,
							position: [120, 220],
							credentials: { openAiApi: { id: openAi.id, name: openAi.name } },
						},
						{
							parameters: {
								description: 'Generates one image from a text prompt (the input is the prompt).',
								source: 'database',
								workflowId: { __rl: true, mode: 'id', value: subWorkflowIds.query },
							},
							name: 'Generate Image Tool',
							type: '@n8n/n8n-nodes-langchain.toolWorkflow',
							typeVersion: 2.2,
							position: [320, 220],
							...RETRY,
						},
					],
					connections: {
						Start: { main: [[{ node: 'AI Agent', type: 'main', index: 0 }]] },
						'OpenAI Chat Model': { ai_languageModel: [[{ node: 'AI Agent', type: 'ai_languageModel', index: 0 }]] },
						'Generate Image Tool': { ai_tool: [[{ node: 'AI Agent', type: 'ai_tool', index: 0 }]] },
					},
					settings: { executionOrder: 'v1' },
				});
				expect(llm.remaining()).toBe(0);
				expect(run.status).toBe('success');
				expect(lastToolResult(llm.requests.at(-1) as ChatRequest)).toMatch(/not submitted again/);
				expect(runsFor(prompt)).toHaveLength(1);
				expect(submits()).toHaveLength(1);
			},
			TEST_TIMEOUT,
		);
	});
});
