/**
 * n8n's AI Agent calling the RunComfy tools on the latest n8n 1.x (h.N8N_1X_VERSION), whose node contexts have no
 * `isToolExecution()` (n8n-core before 2.3): the nodes must still answer in the agent form, recognised by the tool
 * form's node type. Same stand-in model and tools as test/e2e/agent.test.ts; AI Agent 3 (1.x's default) and 2.2.
 */
import { startSandbox } from '../../sandbox';
import type { Sandbox } from '../../sandbox';
import * as h from '../../scripts/e2e/n8n';
import type { N8nInstance, UserFolder } from '../../scripts/e2e/n8n';
import { answer, lastToolResult, startFakeLlm, toolResults } from '../helpers/fakeLlm';
import type { ChatRequest, FakeLlm, Reply } from '../helpers/fakeLlm';
import { FLUX, FLUX_PRO, agentWorkflow, modelTools, openAiCredential, parseToolResult, toolFor } from './agentKit';

const TEST_TIMEOUT = 4 * 60 * 1000;

let home: string;
let sandbox: Sandbox;
let llm: FakeLlm;
let userFolder: UserFolder;
let n8n: N8nInstance;
let runcomfy: { id: string; name: string };
let openAi: { id: string; name: string };

const call =
	(nodeName: string, args: Record<string, unknown> | ((req: ChatRequest) => Record<string, unknown>)) =>
	(req: ChatRequest): Reply => ({
		toolCalls: [{ name: toolFor(req, nodeName).function.name, arguments: typeof args === 'function' ? args(req) : args }],
	});

beforeAll(
	async () => {
		home = await h.ensureN8n({ version: h.N8N_1X_VERSION });
		await h.ensureBuilt();
		userFolder = h.createUserFolder();
		sandbox = await startSandbox({ runDurationMs: 300, queueMs: 20, modelDurations: { [FLUX_PRO]: 10 * 60 * 1000 } });
		llm = await startFakeLlm();
		n8n = await h.startN8n(userFolder, { home });
		await n8n.rest.setupOwner();
		runcomfy = await n8n.rest.createCredential(h.sandboxCredential(sandbox));
		openAi = await n8n.rest.createCredential(openAiCredential(llm.baseUrl));
	},
	20 * 60 * 1000,
);

afterAll(async () => {
	await n8n?.stop();
	await llm?.close();
	await sandbox?.close();
	userFolder?.cleanup();
});

describe.each([3, 2.2])('n8n 1.x, AI Agent %s: the agent form without isToolExecution()', (agentVersion) => {
	it(
		'a run answers compact JSON with a summary; a long one comes back as still running; one submit each',
		async () => {
			llm.script([
				call('Run Model', { model_id: FLUX, inputs: JSON.stringify({ prompt: 'a red fox' }), max_wait_seconds: 60 }),
				call('Run Model', { model_id: FLUX_PRO, inputs: JSON.stringify({ prompt: 'a slow fox' }), max_wait_seconds: 2 }),
				(req) => answer(`done: ${lastToolResult(req)}`),
			]);
			const wf = await n8n.rest.createWorkflow(
				h.prepareWorkflow(
					agentWorkflow({
						name: `Agent ${agentVersion} on 1.x`,
						prompt: 'Make two foxes.',
						agentVersion,
						tools: modelTools(),
						runcomfy,
						openAi,
					}),
				),
			);
			sandbox.clearLog();
			llm.requests.length = 0;
			const run = await n8n.rest.runManually(wf.id, { timeoutMs: TEST_TIMEOUT });
			const printed = `${JSON.stringify(run)}\n${n8n.logs()}`;
			expect(printed.includes(sandbox.token)).toBe(false);
			expect([run.status, run.status === 'success' ? '' : printed.slice(-2000)]).toEqual(['success', '']);

			const [quick, long] = toolResults(llm.requests.at(-1) as ChatRequest).map(parseToolResult);
			expect(quick).toMatchObject({ status: 'succeeded' });
			expect(String(quick.summary)).toContain(String(quick.request_id));
			expect(long).toMatchObject({ still_running: true, status: 'running' });
			expect(long.error).toBeUndefined();
			const submits = sandbox.log().filter((e) => e.api === 'model' && e.method === 'POST' && /^\/v1\/models\//.test(e.path));
			expect(submits).toHaveLength(2);
			expect(sandbox.log().filter((e) => e.api === 'files')).toEqual([]);
			// What the model is shown on 1.x: the operation's own Tool Description.
			expect(toolFor(llm.requests[0], 'Run Model').function.description).toMatch(
				/^Runs a RunComfy hosted model.*Paid: this spends RunComfy credit\./,
			);
		},
		TEST_TIMEOUT,
	);
});
