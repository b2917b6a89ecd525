/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals */
/**
 * Every tool of RunComfy's own MCP server (31) through n8n's MCP Server Trigger in a REAL n8n (`n8n start`), called
 * by the official MCP SDK client with the arguments a model would send, in the order a model following the tool
 * descriptions would: free tools for real, paid ones against the sandbox with the cost guards on. Each answer is
 * compact JSON with its ids; errors come back as tool errors that say what to send instead; nothing is paid twice.
 * The table in docs/ai-agents.md is what this test measured (RUNCOMFY_WRITE_DOCS=1 writes it).
 */
import { readFileSync, writeFileSync } from 'fs';
import { join } from 'path';

import { startSandbox } from '../../sandbox';
import type { Sandbox } from '../../sandbox';
import * as h from '../../scripts/e2e/n8n';
import type { N8nInstance, UserFolder } from '../../scripts/e2e/n8n';
import { trainingConfig } from '../helpers/sandboxCalls';
import { MAX_TOOL_ITEM_BYTES } from '../helpers/toolSetup';
import { FLUX, FLUX_PRO } from './agentKit';
import {
	MODEL_INPUTS,
	TABLE_END,
	TABLE_START,
	connectMcp,
	mcpServerWorkflow,
	parseAnswer,
	renderTable,
	runcomfyMcpTools,
} from './mcpToolsKit';
import type { McpAnswer, McpClient, Measured } from './mcpToolsKit';

const TEST_TIMEOUT = 4 * 60 * 1000;
const MCP_PATH = 'runcomfy-all-tools';
const DOC = join(h.ROOT, 'docs/ai-agents.md');
/** The bound on one agent call's wait (docs/ai-agents.md), with room for n8n's own work. */
const AGENT_BOUND_MS = 120_000;
const GUARDS = { maxEstimatedCostUsd: 0.1, minimumBalanceUsd: 1 };
const TOOLS = runcomfyMcpTools(GUARDS);

/** A JSON argument as the tools' schema asks for it: JSON text. */
const text = (value: object) => JSON.stringify(value);

let sandbox: Sandbox;
let userFolder: UserFolder;
let n8n: N8nInstance;
let client: McpClient;
const measured = new Map<string, Measured>();
/** Ids of the paid submissions the sandbox took, in order (one per paid call made). */
const paid: string[] = [];

/** Calls a tool as a model would; `measure` records this call's answer size and requests for the docs table. */
async function call(name: string, args: Record<string, unknown>, opts: { measure?: boolean; error?: boolean } = {}): Promise<McpAnswer> {
	sandbox.clearLog();
	const started = Date.now();
	const answer = parseAnswer(await client.callTool({ name, arguments: args }));
	const elapsed = Date.now() - started;
	const log = sandbox.log().filter((e) => e.api !== 'webhook');
	paid.push(...log.filter((e) => e.createdId).map((e) => String(e.createdId)));
	expect({ name, elapsedWithinBound: elapsed < AGENT_BOUND_MS }).toEqual({ name, elapsedWithinBound: true });
	expect({ name, isError: answer.isError, text: answer.isError === Boolean(opts.error) ? '' : answer.text }).toEqual({
		name,
		isError: Boolean(opts.error),
		text: '',
	});
	expect(answer.text.includes(sandbox.token)).toBe(false);
	// Compact: small records, no file downloaded (Upload From URL fetches its source, which is its job).
	expect(answer.records.filter((r) => Buffer.byteLength(JSON.stringify(r)) >= MAX_TOOL_ITEM_BYTES)).toEqual([]);
	if (name !== 'upload_dataset_file_from_url') expect(log.filter((e) => e.api === 'files')).toEqual([]);
	if (opts.measure) measured.set(name, { bytes: Buffer.byteLength(answer.text), requests: log.length });
	return answer;
}

/** MCP Server Trigger → the 31 tools (and Estimate Cost), one published workflow. */
function workflow(runcomfy: { id: string; name: string }): object {
	const estimate = {
		name: 'estimate_cost',
		node: 'model' as const,
		parameters: { resource: 'model', operation: 'estimateCost', ...MODEL_INPUTS },
	};
	const trigger = { path: MCP_PATH, webhookId: '0c6f3b1e-8e1a-4f5b-9d3a-3e1f5c7a2b41' };
	return mcpServerWorkflow('RunComfy: all MCP tools', trigger, [...TOOLS, estimate], runcomfy);
}

beforeAll(
	async () => {
		await h.ensureN8n();
		await h.ensureBuilt();
		userFolder = h.createUserFolder();
		// Runs end before the first status poll and the dataset is ready at once, so the requests each call sends
		// do not depend on the machine's speed; training steps last long enough to cancel, edit and resume a job.
		sandbox = await startSandbox({ runDurationMs: 0, queueMs: 0, datasetReadyMs: 0, trainingStepMs: 60_000 });
		const runcomfy = h.sandboxCredential(sandbox);
		const started = await h.startN8nWithPublished(userFolder, { credentials: [runcomfy], workflows: [workflow(runcomfy)] });
		n8n = started.n8n;
		expect(started.statuses).toEqual(['published']);
		client = await connectMcp(`${n8n.url}/mcp/${MCP_PATH}`, 'runcomfy-e2e-all-tools');
	},
	15 * 60 * 1000,
);

afterAll(async () => {
	await client?.close();
	await n8n?.stop();
	await sandbox?.close();
	userFolder?.cleanup();
});

describe("RunComfy's 31 MCP tools through n8n's MCP Server Trigger", () => {
	it(
		'lists every tool under its RunComfy name, each saying what it does, what it costs and its arguments',
		async () => {
			const { tools } = await client.listTools();
			expect(tools.map((t) => t.name).sort()).toEqual([...TOOLS.map((t) => t.name), 'estimate_cost'].sort());
			for (const t of tools) {
				expect(t.description).toMatch(/RunComfy.*(Free: nothing is charged\.|Paid: this spends RunComfy credit\.|spends RunComfy credit)/);
				expect(t.description).toMatch(/Arguments: /);
			}
		},
		TEST_TIMEOUT,
	);

	let runId = '';
	let outputUrl = '';
	it(
		'models: catalog, estimate → run → status → result, a run without waiting cancelled, the balance',
		async () => {
			await call('get_balance', {}, { measure: true });
			expect((await call('list_model_categories', {}, { measure: true })).records.length).toBeGreaterThan(3);
			const models = await call('list_models', { search: 'flux', limit: 5 }, { measure: true });
			expect(models.records.length).toBeLessThanOrEqual(5);
			await call('get_model', { model_id: FLUX }, { measure: true });
			const estimate = await call('estimate_cost', { model_id: FLUX, inputs: text({ prompt: 'a red fox' }) });
			expect(estimate.first).toMatchObject({ model_id: FLUX, estimated: true });
			expect(paid).toEqual([]);

			const run = await call('run_model', { model_id: FLUX, inputs: text({ prompt: 'a red fox' }) }, { measure: true });
			runId = String(run.first.request_id);
			expect(run.first).toMatchObject({ status: 'succeeded' });
			expect(String(run.first.summary)).toContain(runId);
			outputUrl = String((run.first.output_urls as Array<{ url: string }>)[0].url);
			expect(outputUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/files\//);
			// The inputs as an object, not the JSON text the schema asks for: n8n's schema check refuses it before the
			// node runs, naming the argument and the type it must be, so the model can send it again; nothing is paid.
			const schema = (await client.listTools()).tools.find((t) => t.name === 'run_model')?.inputSchema.properties;
			expect(schema?.inputs).toMatchObject({ type: 'string' });
			const asObject = await call('run_model', { model_id: FLUX, inputs: { prompt: 'a blue fox' } }, { error: true });
			expect(asObject.text).toMatch(/Expected string, received object[\s\S]*inputs/);

			expect((await call('get_model_request_status', { request_id: runId }, { measure: true })).first).toMatchObject({ request_id: runId });
			const result = await call('get_model_request_result', { request_id: runId }, { measure: true });
			expect(result.first).toMatchObject({ request_id: runId, status: 'succeeded' });

			sandbox.configure({ modelDurations: { [FLUX_PRO]: 600_000 } });
			const slow = await call('run_model', { model_id: FLUX_PRO, inputs: text({ prompt: 'a slow fox' }), wait_for_completion: false });
			const slowId = String(slow.first.request_id);
			await call('cancel_model_request', { request_id: slowId }, { measure: true });
			expect(paid).toHaveLength(2);
		},
		TEST_TIMEOUT,
	);

	it(
		'deployments: get, run and follow up, a running request through the instance proxy and cancelled, create → update → delete',
		async () => {
			const deployments = await call('list_deployments', {}, { measure: true });
			const deploymentId = sandbox.stable.deployments.textToImage;
			expect(deployments.records.map((d) => d.id)).toContain(deploymentId);
			const deployment = await call('get_deployment', { deployment_id: deploymentId, include_readme: true }, { measure: true });
			const overrides = text({ '6': { inputs: { text: 'a red fox' } } });
			const run = await call('submit_request', { deployment_id: deploymentId, overrides }, { measure: true });
			const requestId = String(run.first.request_id);
			expect(run.first).toMatchObject({ status: 'succeeded' });
			const ids = { deployment_id: deploymentId, request_id: requestId };
			expect((await call('get_request_status', ids, { measure: true })).first).toMatchObject({ request_id: requestId });
			expect((await call('get_request_result', ids, { measure: true })).first).toMatchObject({
				request_id: requestId,
				status: 'succeeded',
			});

			// A request that keeps running: the instance serving it takes proxy calls until it is cancelled.
			sandbox.configure({ modelDurations: { [deploymentId]: 600_000 } });
			const long = await call('submit_request', { deployment_id: deploymentId, overrides, wait_for_completion: false });
			sandbox.configure({ modelDurations: { [deploymentId]: undefined as unknown as number } });
			const longIds = { deployment_id: deploymentId, request_id: String(long.first.request_id) };
			const status = await call('get_request_status', longIds);
			const instanceId = String(status.first.instance_id);
			await call(
				'call_instance_proxy',
				{
					deployment_id: deploymentId,
					instance_id: instanceId,
					comfy_backend_path: 'api/free',
					request_body: text({ unload_models: true }),
				},
				{ measure: true },
			);
			await call('cancel_request', longIds, { measure: true });

			const workflowId = String(deployment.first.workflow_id);
			const created = await call(
				'create_deployment',
				{ name: 'fox-maker', workflow_id: workflowId, workflow_version: 'v1', hardware: 'AMPERE_24', max_instances: 1 },
				{ measure: true },
			);
			const newId = String(created.first.id);
			await call('update_deployment', { deployment_id: newId, name: 'fox-maker-2', max_instances: 2 }, { measure: true });
			await call('delete_deployment', { deployment_id: newId }, { measure: true });
		},
		TEST_TIMEOUT,
	);

	it(
		'datasets and training: create, upload a caption and a file, ready; submit, status, cancel, edit, resume, result',
		async () => {
			const dataset = await call('create_dataset', { name: 'foxes' }, { measure: true });
			const datasetId = String(dataset.first.id ?? dataset.first.dataset_id);
			await call(
				'upload_dataset_text_file',
				{ dataset_id: datasetId, filename: 'fox_1.txt', text: 'a photo of sks fox' },
				{ measure: true },
			);
			await call(
				'upload_dataset_file_from_url',
				{ dataset_id: datasetId, source_url: outputUrl, filename: 'fox_1.png' },
				{ measure: true },
			);
			await call(
				'get_dataset_upload_urls',
				{ dataset_id: datasetId, filename_to_byte_size: text({ 'fox_2.jpg': 1000 }) },
				{ measure: true },
			);
			await call('get_dataset_status', { dataset_id: datasetId }, { measure: true });
			expect((await call('list_datasets', {}, { measure: true })).records.length).toBeGreaterThan(0);

			const config = trainingConfig({ name: 'fox_lora', dataset: 'foxes', steps: 20 });
			const job = await call('submit_training_job', { config_file: config, gpu_type: 'ADA_80_PLUS', gpu_count: 1 }, { measure: true });
			const jobId = String(job.first.job_id);
			expect((await call('get_training_job_status', { job_id: jobId }, { measure: true })).first).toMatchObject({ job_id: jobId });
			await call('cancel_training_job', { job_id: jobId }, { measure: true });
			await call(
				'edit_training_job',
				{ job_id: jobId, config_file: trainingConfig({ name: 'fox_lora', dataset: 'foxes', steps: 10 }) },
				{ measure: true },
			);
			await call('resume_training_job', { job_id: jobId }, { measure: true });
			await call('get_training_job_result', { job_id: jobId }, { measure: true });
			await call('cancel_training_job', { job_id: jobId });
			await call('delete_dataset', { dataset_id: datasetId }, { measure: true });
			expect(new Set(paid).size).toBe(paid.length);
		},
		TEST_TIMEOUT,
	);

	it(
		'mistakes come back as tool errors that say what to send instead, with nothing paid',
		async () => {
			const before = paid.length;
			const over = await call('run_model', { model_id: FLUX, inputs: text({ prompt: 'four foxes', num_images: 4 }) }, { error: true });
			expect(over.text).toMatch(/Max Estimated Cost/);
			const bad = await call('run_model', { model_id: FLUX, inputs: text({ promt: 'a fox' }) }, { error: true });
			expect(bad.text).toMatch(/prompt/);
			const hardware = await call('create_deployment', { name: 'x', workflow_id: 'w', hardware: 'A100' }, { error: true });
			expect(hardware.text).toMatch(/AMPERE_24/);
			const unknown = await call('get_model_request_status', { request_id: 'no-such-request' }, { error: true });
			expect(unknown.text).toMatch(/no-such-request/);
			expect(paid.length).toBe(before);
		},
		TEST_TIMEOUT,
	);

	it('docs/ai-agents.md has the table this test measured, every row measured', () => {
		const table = renderTable(TOOLS, measured);
		expect(table).not.toMatch(/not measured/);
		const doc = readFileSync(DOC, 'utf8');
		const start = doc.indexOf(TABLE_START);
		const end = doc.indexOf(TABLE_END);
		expect([start, end].every((i) => i >= 0)).toBe(true);
		if (process.env.RUNCOMFY_WRITE_DOCS === '1') {
			writeFileSync(DOC, doc.slice(0, start) + table + doc.slice(end + TABLE_END.length));
			return;
		}
		const committed = doc.slice(start, end + TABLE_END.length);
		// Ports, ids and timings make an answer's size vary a little from run to run: sizes match within 10 %.
		const sizes = (text: string) => [...text.matchAll(/measured: (\d+) B/g)].map((m) => Number(m[1]));
		const shape = (text: string) => text.replace(/measured: \d+ B/g, 'measured: N B');
		expect(shape(committed)).toEqual(shape(table));
		const [was, now] = [sizes(committed), sizes(table)];
		expect(was.filter((b, i) => Math.abs(b - now[i]) > now[i] / 10)).toEqual([]);
	});
});
