/**
 * RunComfy as an MCP server through n8n: a published workflow with n8n's MCP Server Trigger and RunComfy tool
 * nodes, in a REAL n8n (`n8n start`), and the official MCP TypeScript SDK client (a devDependency)
 * connecting over loopback. The client lists the tools and calls Estimate Cost, Run Model, Get Status and Get Result; each
 * answer is the compact agent form and the sandbox sees one submit per paid call.
 */
import { startSandbox } from '../../sandbox';
import type { Sandbox } from '../../sandbox';
import * as h from '../../scripts/e2e/n8n';
import type { N8nInstance, UserFolder } from '../../scripts/e2e/n8n';
import { CAP_USD, FLUX, FLUX_PRO, modelTools } from './agentKit';
import type { ToolNode } from './agentKit';
import { connectMcp, mcpServerWorkflow, parseAnswer } from './mcpToolsKit';
import type { McpCallResult, McpClient } from './mcpToolsKit';

const TEST_TIMEOUT = 4 * 60 * 1000;
const MCP_PATH = 'runcomfy-tools';

let sandbox: Sandbox;
let userFolder: UserFolder;
let n8n: N8nInstance;
let client: McpClient;
/** A new MCP session with the workflow's server. */
const connect = async () => await connectMcp(`${n8n.url}/mcp/${MCP_PATH}`);

/** MCP Server Trigger → the RunComfy model tools. */
function mcpWorkflow(runcomfy: { id: string; name: string }): object {
	// A Run Model with Retry On Fail: a retry of one MCP call must not pay again. On Error stays at its default
	// (a failed try throws): with Continue, the error item would be the call's answer and nothing retried.
	const run = modelTools().find((t) => t.name === 'Run Model') as ToolNode;
	const tools = [
		...modelTools(),
		{ ...run, name: 'Run Model Retried', continueOnFail: false, extra: { retryOnFail: true, maxTries: 3, waitBetweenTries: 1000 } },
	];
	const trigger = { path: MCP_PATH, webhookId: '6a4c3a0e-5a53-4f55-9b39-2f5f0b5c1d11' };
	return mcpServerWorkflow('RunComfy MCP server', trigger, tools, runcomfy);
}

/** The JSON the tool answered. */
const answerOf = (result: McpCallResult) => parseAnswer(result).first;

/** The model inputs as the tools' schema asks for them: JSON text. */
const inputs = (value: object) => JSON.stringify(value);

/** What a retry that found a lost answer says (the last try's error is the call's answer). */
const NOT_AGAIN = /is not submitted again: on an earlier try of this node its run may have been accepted/;

const submits = () => sandbox.log().filter((e) => e.api === 'model' && e.method === 'POST' && /^\/v1\/models\//.test(e.path));

beforeAll(
	async () => {
		await h.ensureN8n();
		await h.ensureBuilt();
		userFolder = h.createUserFolder();
		sandbox = await startSandbox({ runDurationMs: 300, queueMs: 20, modelDurations: { [FLUX_PRO]: 10 * 60 * 1000 } });
		const runcomfy = h.sandboxCredential(sandbox);
		const started = await h.startN8nWithPublished(userFolder, { credentials: [runcomfy], workflows: [mcpWorkflow(runcomfy)] });
		n8n = started.n8n;
		expect(started.statuses).toEqual(['published']);
		client = await connect();
	},
	15 * 60 * 1000,
);

afterAll(async () => {
	await client?.close();
	await n8n?.stop();
	await sandbox?.close();
	userFolder?.cleanup();
});

beforeEach(() => {
	sandbox.configure({ faults: { rate5xx: 0, rateDrop: 0 } });
	sandbox.clearLog();
});

describe("RunComfy tools through n8n's MCP Server Trigger", () => {
	it(
		'lists the tools, each saying what it does and what it costs',
		async () => {
			const { tools } = await client.listTools();
			expect(tools.map((t) => t.name).sort()).toEqual(['Estimate_Cost', 'Get_Result', 'Get_Status', 'Run_Model', 'Run_Model_Retried']);
			for (const tool of tools)
				expect(tool.description).toMatch(/RunComfy.*(Free: nothing is charged\.|Paid: this spends RunComfy credit\.)/);
			const run = tools.find((t) => t.name === 'Run_Model');
			expect(Object.keys(run?.inputSchema.properties ?? {}).sort()).toEqual(['inputs', 'max_wait_seconds', 'model_id']);
			// `inputs` is typed: the client is told to send JSON text.
			expect(run?.inputSchema.properties?.inputs).toMatchObject({ type: 'string' });
		},
		TEST_TIMEOUT,
	);

	it(
		'Estimate Cost, Run Model, Get Status and Get Result: compact answers, one submit for the run',
		async () => {
			const estimate = answerOf(
				await client.callTool({ name: 'Estimate_Cost', arguments: { model_id: FLUX, inputs: inputs({ prompt: 'a red fox' }) } }),
			);
			expect(estimate).toMatchObject({ model_id: FLUX, estimated: true });
			expect(submits()).toHaveLength(0);

			const run = answerOf(
				await client.callTool({
					name: 'Run_Model',
					arguments: { model_id: FLUX, inputs: inputs({ prompt: 'a red fox' }), max_wait_seconds: 60 },
				}),
			);
			const id = String(run.request_id);
			expect(run).toMatchObject({ status: 'succeeded' });
			expect(String(run.summary)).toContain(id);
			expect(JSON.stringify(run.output_urls)).toMatch(/http:\/\/127\.0\.0\.1:\d+\/files\//);
			expect(submits()).toHaveLength(1);

			const status = answerOf(await client.callTool({ name: 'Get_Status', arguments: { request_id: id } }));
			expect(status).toMatchObject({ request_id: id, status: 'completed' });
			const result = answerOf(await client.callTool({ name: 'Get_Result', arguments: { request_id: id } }));
			expect(result).toMatchObject({ request_id: id, status: 'succeeded' });
			expect(String(result.summary)).toContain(id);
			expect(submits()).toHaveLength(1);
			expect(sandbox.log().filter((e) => e.api === 'files')).toEqual([]);
		},
		TEST_TIMEOUT,
	);

	it(
		'a long run comes back as still running; Max Estimated Cost refuses an over-budget call with nothing paid',
		async () => {
			const long = answerOf(
				await client.callTool({
					name: 'Run_Model',
					arguments: { model_id: FLUX_PRO, inputs: inputs({ prompt: 'a slow fox' }), max_wait_seconds: 2 },
				}),
			);
			expect(long).toMatchObject({ still_running: true, status: 'running' });
			expect(submits()).toHaveLength(1);

			sandbox.clearLog();
			const refused = await client.callTool({
				name: 'Run_Model',
				arguments: { model_id: FLUX, inputs: inputs({ prompt: 'four foxes', num_images: 4 }), max_wait_seconds: 60 },
			});
			const { text } = parseAnswer(refused);
			expect(text).toMatch(/Max Estimated Cost/i);
			expect(text).toContain(String(CAP_USD));
			expect(submits()).toHaveLength(0);
		},
		TEST_TIMEOUT,
	);

	// n8n runs the tool inside the MCP request, before the execution has an id: the tries are still one call.
	it.each([
		['a 500 answer', { rate5xx: 1 }, '5xx'],
		['the connection closed before any byte', { rateDrop: 1 }, 'drop'],
	])(
		'Retry On Fail, 1 s between tries, %s after the run was taken: one submit for the call',
		async (_, fault, seen) => {
			sandbox.configure({ faults: { ...fault, paidFaultTiming: 'after', methods: ['POST'], pathPrefixes: [`/v1/models/${FLUX}`] } });
			const prompt = `a lost fox over MCP (${seen})`;
			const session = await connect();
			const failed = await session.callTool({
				name: 'Run_Model_Retried',
				arguments: { model_id: FLUX, inputs: inputs({ prompt }), max_wait_seconds: 30 },
			});
			// The client is told the run may have been accepted, and that it was not sent again.
			expect(parseAnswer(failed).text).toMatch(NOT_AGAIN);
			expect(
				sandbox
					.log()
					.filter((e) => e.method === 'POST')
					.map((e) => `${e.api} ${e.path} ${e.fault}`),
			).toEqual([`model /v1/models/${FLUX} ${seen}`]);
			expect(sandbox.state().runs.filter((r) => (r.body as { prompt?: string }).prompt === prompt)).toHaveLength(1);
			await session.close();
		},
		TEST_TIMEOUT,
	);

	it(
		'Max Estimated Cost is per call: two client sessions, two $0.04 runs each under a $0.10 cap, every call runs',
		async () => {
			const sessions = [await connect(), await connect()];
			for (let i = 0; i < 2; i++) {
				for (const [s, session] of sessions.entries()) {
					const run = answerOf(
						await session.callTool({
							name: 'Run_Model',
							arguments: { model_id: FLUX, inputs: inputs({ prompt: `fox ${i} of session ${s}` }), max_wait_seconds: 60 },
						}),
					);
					expect(run).toMatchObject({ status: 'succeeded' });
				}
			}
			expect(submits()).toHaveLength(4);
			await Promise.all(sessions.map(async (session) => await session.close()));
		},
		TEST_TIMEOUT,
	);
});
