/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * The package inside a REAL n8n (the pinned version, provisioned once into a cache), engine side:
 * installed as a community package in a private user folder, one `n8n start` for the file, a sandbox credential
 * and every workflow in `examples/` saved through n8n's REST API and each run as the editor's "Execute workflow"
 * does; assertions are on what n8n itself returns and stores.
 */
import * as fs from 'fs';
import * as path from 'path';

import { startSandbox } from '../../sandbox';
import type { Sandbox } from '../../sandbox';
import * as h from '../../scripts/e2e/n8n';
import type { ExecutionItem, N8nInstance, RunJson, UserFolder, WorkflowJson } from '../../scripts/e2e/n8n';

const EXAMPLES_DIR = path.join(h.ROOT, 'examples');
const FLUX = 'blackforestlabs/flux-2/flash/text-to-image';
const FAILS = 'runcomfy/test/always-fails';
const VIDEO = 'google/veo-3/text-to-video';
const I2V = 'kling/kling-2-1/pro/image-to-video';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** One run is a few seconds; generous for loaded CI machines. */
const TEST_TIMEOUT = 4 * 60 * 1000;
/** Start nodes of the examples run here (the others start with a trigger that waits for an event). */
const MANUAL_START_TYPES = ['n8n-nodes-base.manualTrigger', 'n8n-nodes-base.executeWorkflowTrigger'];
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

let sandbox: Sandbox;
let userFolder: UserFolder;
let n8n: N8nInstance;
let credential: { id: string; name: string };
const workflows = new Map<string, WorkflowJson>();

function readExample(file: string): WorkflowJson {
	return JSON.parse(fs.readFileSync(path.join(EXAMPLES_DIR, file), 'utf8')) as WorkflowJson;
}

/** Runs an imported example; fails with n8n's own output when the execution is missing or unknown. */
async function runExample(file: string): Promise<RunJson> {
	const wf = workflows.get(file);
	if (!wf) throw new Error(`${file} was not imported`);
	return await runWorkflow(wf);
}

async function runWorkflow(wf: WorkflowJson): Promise<RunJson> {
	const logged = n8n.logs().length;
	const run = await n8n.rest.runManually(wf.id, { timeoutMs: TEST_TIMEOUT }).catch((error: Error) => {
		throw new Error(`n8n did not run "${wf.name}": ${error.message}\n${n8n.logs().slice(logged).slice(-4000)}`);
	});
	const printed = `${JSON.stringify(run)}\n${n8n.logs().slice(logged)}`;
	if (/Unrecognized node type|is not known/i.test(printed)) {
		throw new Error(`n8n does not know a node type of "${wf.name}": the package did not load.\n${printed.slice(-4000)}`);
	}
	// Whatever n8n stored (the execution data) and logged never contains the token.
	expect(printed.includes(sandbox.token)).toBe(false);
	return run;
}

/** Saves a workflow (file or object) as the editor does, its RunComfy nodes on the sandbox credential. */
async function saveWorkflow(fileOrObject: string | object): Promise<WorkflowJson> {
	return (await n8n.rest.createWorkflow(h.prepareWorkflow(fileOrObject, { credential }))) as unknown as WorkflowJson;
}

function items(run: RunJson, node: string, output = 0): ExecutionItem[] {
	const list = h.nodeItems(run, node, { output });
	if (!list) throw new Error(`node "${node}" has no output ${output} in the execution`);
	return list;
}

function expectSucceeded(run: RunJson): void {
	const error = run.data.resultData.error;
	expect(error ? String(error.message) : undefined).toBeUndefined();
	expect(run.status).toBe('success');
	expect(run.finished).toBe(true);
}

beforeAll(
	async () => {
		// First provisioning of n8n takes minutes (cached afterwards); the build runs only when dist/ is stale.
		await h.ensureN8n();
		await h.ensureBuilt();
		userFolder = h.createUserFolder();
		sandbox = await startSandbox({
			runDurationMs: 300,
			queueMs: 50,
			// The timeout example's video model must outlast its 5 s Max Wait by far.
			modelDurations: { [VIDEO]: 10 * 60 * 1000 },
		});
		n8n = await h.startN8n(userFolder);
		await n8n.rest.setupOwner();
		credential = await n8n.rest.createCredential(h.sandboxCredential(sandbox));
		const files = fs
			.readdirSync(EXAMPLES_DIR)
			.filter((f) => f.endsWith('.json'))
			.sort();
		for (const f of files) workflows.set(f, await saveWorkflow(path.join(EXAMPLES_DIR, f)));
	},
	15 * 60 * 1000,
);

afterAll(async () => {
	await n8n?.stop();
	await sandbox?.close();
	userFolder?.cleanup();
});

describe('the package in a real n8n (engine)', () => {
	it('installs every node and credential package.json lists (all built)', () => {
		const { nodes, credentials } = h.packageManifest();
		expect(nodes).toEqual(expect.arrayContaining(['dist/nodes/RunComfyModel/RunComfyModel.node.js']));
		expect(credentials).toEqual(['dist/credentials/RunComfyApi.credentials.js']);
		expect(userFolder.missing).toEqual([]);
		for (const file of [...nodes, ...credentials]) {
			expect(fs.existsSync(path.join(userFolder.packageDir, file))).toBe(true);
		}
		// Installed as n8n installs community packages: the published name, not CUSTOM.*.
		expect(userFolder.packageDir).toBe(path.join(userFolder.dir, '.n8n', 'nodes', 'node_modules', 'n8n-nodes-runcomfy'));
	});

	it(
		'text-to-image batch: three runs, results in the JSON, images in the binary store',
		async () => {
			sandbox.clearLog();
			const run = await runExample('text-to-image-batch.json');
			expectSucceeded(run);

			const prompts = (
				JSON.parse(String(readExample('text-to-image-batch.json').nodes.find((n) => n.name === 'Prompts')?.parameters.jsonOutput)) as {
					prompts: string[];
				}
			).prompts;
			expect(prompts.length).toBeGreaterThanOrEqual(3);

			const out = items(run, 'Generate Images');
			expect(out).toHaveLength(prompts.length);
			const ids = new Set<string>();
			out.forEach((item, i) => {
				expect(item.pairedItem).toEqual({ item: i });
				const json = item.json;
				expect(json).toMatchObject({ model_id: FLUX, status: 'succeeded' });
				expect(String(json.request_id)).toMatch(UUID);
				ids.add(String(json.request_id));
				expect(typeof json.cost).toBe('number');
				const urls = json.output_urls as Array<{ path: string; url: string }>;
				expect(urls).toHaveLength(1);
				expect(urls[0].path).toBe('output.images[0]');
				expect(urls[0].url.startsWith(`${sandbox.urls.files}/`)).toBe(true);
				expect(json.error).toBeUndefined();

				const bin = item.binary?.data;
				expect(bin).toBeDefined();
				expect(bin).toMatchObject({ mimeType: 'image/png', fileExtension: 'png' });
				expect(String(bin?.fileName)).toMatch(/\.png$/);
				expect(String(bin?.id)).toMatch(/^filesystem-v2:workflows\/.+\/binary_data\/.+/);
				const file = h.binaryFilePath(userFolder, String(bin?.id));
				const bytes = fs.readFileSync(file);
				expect(bytes.subarray(0, 8).equals(PNG_MAGIC)).toBe(true);
				expect(bytes.length).toBe(bin?.bytes);
			});
			expect(ids.size).toBe(prompts.length);

			// What reached the service: one submission per prompt, with the mapped inputs.
			const runs = sandbox.state().runs.filter((r) => ids.has(r.id));
			expect(runs).toHaveLength(prompts.length);
			const sent = runs.map((r) => r.body as Record<string, unknown>);
			expect(sent.map((b) => b.prompt).sort()).toEqual([...prompts].sort());
			for (const body of sent) expect(body).toMatchObject({ image_size: 'square_hd', output_format: 'png' });

			// The token went to the API only, never to the file host the images came from.
			const log = sandbox.log();
			const downloads = log.filter((e) => e.api === 'files');
			expect(downloads.length).toBeGreaterThanOrEqual(prompts.length);
			for (const e of downloads) expect(e.authorization).toBeUndefined();
			const submits = log.filter((e) => e.api === 'model' && e.method === 'POST' && e.path === `/v1/models/${FLUX}`);
			expect(submits).toHaveLength(prompts.length);
			for (const e of submits) expect(e.authorization).toBe(`Bearer ${sandbox.token}`);
		},
		TEST_TIMEOUT,
	);

	it(
		'continue-on-fail: the failed run is an error item with its request id, routed to the failure branch',
		async () => {
			const run = await runExample('continue-on-fail.json');
			expectSucceeded(run);

			const out = items(run, 'Run Model');
			expect(out).toHaveLength(2);
			const [ok, failed] = out;
			expect(ok.pairedItem).toEqual({ item: 0 });
			expect(ok.json).toMatchObject({ model_id: FLUX, status: 'succeeded' });
			expect(ok.json.error).toBeUndefined();
			expect(ok.binary?.data?.mimeType).toBe('image/png');

			expect(failed.pairedItem).toEqual({ item: 1 });
			expect(failed.json.model_id).toBe(FAILS);
			expect(String(failed.json.request_id)).toMatch(UUID);
			expect(String(failed.json.error)).toContain(String(failed.json.request_id));
			expect(String(failed.json.error)).toMatch(/failed/i);
			expect(failed.binary).toBeUndefined();
			const failedRun = sandbox.state().runs.find((r) => r.id === failed.json.request_id);
			expect(failedRun?.target).toBe(FAILS);

			// The If node: true branch = errors, false branch = results.
			const errors = items(run, 'Did It Fail?', 0);
			const results = items(run, 'Did It Fail?', 1);
			expect(errors.map((i) => i.json.request_id)).toEqual([failed.json.request_id]);
			expect(results.map((i) => i.json.request_id)).toEqual([ok.json.request_id]);
			expect(items(run, 'Report Failure').map((i) => i.json)).toEqual([
				{ failed_request_id: failed.json.request_id, model_id: FAILS, reason: failed.json.error },
			]);
			expect(items(run, 'Use Result')).toHaveLength(1);
		},
		TEST_TIMEOUT,
	);

	it(
		'without Continue on Fail, the failed run stops the workflow with an error naming its request id',
		async () => {
			const example = readExample('continue-on-fail.json');
			const runNode = example.nodes.find((n) => n.name === 'Run Model');
			if (!runNode) throw new Error('continue-on-fail.json has no "Run Model" node');
			delete runNode.onError;
			example.name = 'continue-on-fail without Continue on Fail';
			const run = await runWorkflow(await saveWorkflow(example));

			expect(run.status).toBe('error');
			const error = run.data.resultData.error as { message?: string; description?: string; node?: { name?: string } };
			expect(run.data.resultData.lastNodeExecuted).toBe('Run Model');
			expect(error.node?.name).toBe('Run Model');
			const failedRun = sandbox
				.state()
				.runs.filter((r) => r.target === FAILS)
				.pop();
			expect(failedRun).toBeDefined();
			expect(error.message).toContain(String(failedRun?.id));
			expect(error.message).toMatch(/failed/i);
			expect(String(error.description)).toContain(String(failedRun?.id));
			expect(h.nodeItems(run, 'Did It Fail?')).toBeUndefined();
		},
		TEST_TIMEOUT,
	);

	it(
		'timeout-still-running: the long run comes back as still running, with its request id, and keeps running',
		async () => {
			const run = await runExample('timeout-still-running.json');
			expectSucceeded(run);

			const [started] = items(run, 'Start Video');
			expect(items(run, 'Start Video')).toHaveLength(1);
			expect(started.pairedItem).toEqual({ item: 0 });
			expect(started.json).toMatchObject({ model_id: VIDEO, still_running: true });
			expect(String(started.json.request_id)).toMatch(UUID);
			// The nodes' one status vocabulary; the service's own word is kept in service_status.
			expect(['queued', 'running']).toContain(started.json.status);
			expect(['in_queue', 'in_progress']).toContain(started.json.service_status);
			expect(started.binary).toBeUndefined();

			const [checked] = items(run, 'Check Status');
			expect(checked.json.request_id).toBe(started.json.request_id);
			expect(['queued', 'running']).toContain(checked.json.status);
			expect(['in_queue', 'in_progress']).toContain(checked.json.service_status);

			// Not cancelled: "Return as Still Running" leaves the run going on the service.
			const remote = sandbox.state().runs.find((r) => r.id === started.json.request_id);
			expect(remote?.target).toBe(VIDEO);
			expect(['in_queue', 'in_progress']).toContain(remote?.status);
			const cancels = sandbox.log().filter((e) => e.path.endsWith(`/${String(started.json.request_id)}/cancel`));
			expect(cancels).toEqual([]);
		},
		TEST_TIMEOUT,
	);

	it(
		'text-to-image-then-video: one item per image, each animated from its own file URL',
		async () => {
			// The live service lists https output URLs, and the node takes only https file inputs; the sandbox serves
			// http, so here it lists https URLs (downloading them fails, which the run reports and survives).
			sandbox.configure({ httpsOutputUrls: true });
			try {
				sandbox.clearLog();
				const run = await runExample('text-to-image-then-video.json');
				expectSucceeded(run);

				const images = items(run, 'Generate Start Images');
				expect(images).toHaveLength(2);
				images.forEach((item, i) => {
					expect(item.pairedItem).toEqual({ item: 0 });
					expect(item.json).toMatchObject({ model_id: FLUX, status: 'succeeded', file_index: i, file_path: `output.images[${i}]` });
					expect(String(item.json.file_url)).toMatch(/^https:\/\//);
				});
				const videos = items(run, 'Animate Each Image');
				expect(videos).toHaveLength(2);
				const submits = sandbox.log().filter((e) => e.api === 'model' && e.method === 'POST' && e.path === `/v1/models/${I2V}`);
				videos.forEach((item, i) => {
					expect(item.pairedItem).toEqual({ item: i });
					expect(item.json).toMatchObject({ model_id: I2V, status: 'succeeded' });
					const body = submits.find((e) => e.createdId === item.json.request_id)?.body as { image_url?: string } | undefined;
					expect(body?.image_url).toBe(images[i].json.file_url);
				});
			} finally {
				sandbox.configure({ httpsOutputUrls: false });
			}
		},
		TEST_TIMEOUT,
	);

	it(
		'every other example in examples/ runs to success (those started by a manual trigger)',
		async () => {
			const covered = ['text-to-image-batch.json', 'continue-on-fail.json', 'timeout-still-running.json', 'text-to-image-then-video.json'];
			const others = [...workflows.keys()].filter((f) => !covered.includes(f));
			for (const file of others) {
				const wf = workflows.get(file) as WorkflowJson;
				if (!wf.nodes.some((n) => MANUAL_START_TYPES.includes(n.type))) {
					// A trigger example waits for its event: it is checked in the editor suite
					// (its node types are served by n8n) and in-process; here it must really start with one of ours.
					const start = wf.nodes.find((n) => n.type.endsWith('Trigger'))?.type;
					// The agent example starts with a chat message: test/e2e/agent.test.ts runs it.
					if (file === 'agent-generate-images.json' && start === '@n8n/n8n-nodes-langchain.chatTrigger') continue;
					const ours = new RegExp(`^(${h.NODE_TYPES.trigger}|${h.NODE_TYPES.webhookTrigger})$`.replace(/\./g, '\\.'));
					expect({ file, start }).toEqual({ file, start: expect.stringMatching(ours) });
					continue;
				}
				const run = await runExample(file);
				const error = run.data.resultData.error;
				expect({ file, status: run.status, error: error ? String(error.message) : undefined }).toEqual({
					file,
					status: 'success',
					error: undefined,
				});
			}
		},
		3 * TEST_TIMEOUT,
	);
});
