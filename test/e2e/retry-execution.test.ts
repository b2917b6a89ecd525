/**
 * n8n's Retry of a failed execution in a REAL n8n (2.x pinned and the latest 1.x), through the REST call the
 * Executions list's Retry button makes (`POST /rest/executions/:id/retry`, "with currently saved workflow"
 * `loadWorkflow: true` and "with original workflow" `false`). A webhook-started Model → Run of 3 prompts whose
 * last run outlasts Max Wait (On Timeout = Fail): the execution fails. Its retry must pay nothing again: the
 * sandbox sees 3 paid runs, not 6, and the retried execution outputs the 3 runs of the failed one.
 */
import { startSandbox } from '../../sandbox';
import type { Sandbox } from '../../sandbox';
import * as h from '../../scripts/e2e/n8n';
import type { N8nInstance, UserFolder, WorkflowJson } from '../../scripts/e2e/n8n';
import { modelRunWorkflow, runModels } from '../../scripts/e2e/polling';
import { waitFor as pollUntil } from '../../scripts/e2e/parking';

const TEST_TIMEOUT = 4 * 60 * 1000;
const FLUX = 'blackforestlabs/flux-2/flash/text-to-image';
const SLOW = 'google/veo-3/text-to-video';
const PROMPTS = [
	{ model: FLUX, prompt: 'a red fox' },
	{ model: FLUX, prompt: 'a lighthouse' },
	{ model: SLOW, prompt: 'a paper boat' },
];

type Summary = { id: string; status?: string; mode?: string; retryOf?: string | null };

/** scripts/e2e/parking.js's poll, until one deadline shared by a test's waits. */
const waitFor = <T>(what: string, probe: () => T | undefined | Promise<T | undefined>, deadline: number): Promise<T> =>
	pollUntil(what, async () => await probe(), { limitMs: Math.max(0, deadline - Date.now()), intervalMs: 200 });

let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox({ runDurationMs: 100, queueMs: 10, modelDurations: { [SLOW]: 2500 } });
});

afterAll(async () => {
	await sandbox?.close();
});

describe.each([h.N8N_VERSION, h.N8N_1X_VERSION])('Retry of a failed execution in n8n %s', (version) => {
	let home: string;
	let userFolder: UserFolder;
	let n8n: N8nInstance | undefined;
	let workflow: WorkflowJson;

	beforeAll(
		async () => {
			home = await h.ensureN8n({ version });
			await h.ensureBuilt();
			userFolder = h.createUserFolder();
			const credential = h.sandboxCredential(sandbox);
			const wf = modelRunWorkflow({ credential, name: `Retry on ${version}` }) as WorkflowJson;
			const run = wf.nodes.find((n) => n.name === 'Run') as { parameters: Record<string, unknown> };
			run.parameters.waitOptions = { pollIntervalSeconds: 0.1, maxPollIntervalSeconds: 0.2, maxWaitSeconds: 1 };
			const started = await h.startN8nWithPublished(userFolder, { credentials: [credential], workflows: [wf] }, { home });
			n8n = started.n8n;
			[workflow] = started.workflows;
			expect(started.statuses).toEqual(['published']);
		},
		20 * 60 * 1000,
	);

	afterAll(async () => {
		await n8n?.stop();
		userFolder?.cleanup();
	});

	it.each([false, true])(
		'loadWorkflow %s: the retry follows the 3 runs of the failed execution and pays none again',
		async (loadWorkflow) => {
			const rest = (n8n as N8nInstance).rest;
			const deadline = Date.now() + TEST_TIMEOUT / 2;
			const executions = async () => (await rest.listExecutions({ workflowId: workflow.id })) as Summary[];
			const seen = new Set((await executions()).map((e) => e.id));
			const before = sandbox.state().runs.length;
			const mine = () => sandbox.state().runs.slice(before);

			// The webhook answers with the error when the execution fails.
			await runModels((n8n as N8nInstance).url, PROMPTS).catch((error: Error) => error);
			const failed = await waitFor(
				'the failed execution',
				async () => (await executions()).find((e) => !seen.has(e.id) && e.status === 'error'),
				deadline,
			);
			expect(mine()).toHaveLength(3);
			const failedRun = await rest.getExecution(failed.id);
			expect(String(h.nodeError(failedRun, 'Run')?.message)).toMatch(/did not finish within/);
			// What the retry reads: the failed execution's custom data lists the 3 paid runs (also on 1.x).
			const customData = (failedRun as { customData?: Record<string, string> }).customData ?? {};
			const itemOf = (prompt: string) => PROMPTS.findIndex((p) => p.prompt === prompt);
			expect(customData.runcomfy_Run?.split(' ').sort()).toEqual(
				mine()
					.map((r) => `${itemOf((r.body as { prompt: string }).prompt)}:${r.id}`)
					.sort(),
			);
			// The slow run has ended on RunComfy by the time the user presses Retry.
			await waitFor('the slow run to end', () => mine().find((r) => r.target === SLOW && r.status === 'completed'), deadline);

			await rest.post(`/rest/executions/${failed.id}/retry`, { loadWorkflow });
			const retried = await waitFor(
				'the retried execution',
				async () =>
					(await executions()).find((e) => !seen.has(e.id) && e.id !== failed.id && !['running', 'new'].includes(String(e.status))),
				deadline,
			);
			const retriedRun = await rest.getExecution(retried.id);
			expect(h.nodeError(retriedRun, 'Run')).toBeUndefined();
			expect(retried.status).toBe('success');
			expect(mine()).toHaveLength(3);
			const items = h.nodeItems(retriedRun, 'Run') ?? [];
			// Each item is its own prompt's run of the failed execution.
			const runOf = new Map(mine().map((r) => [(r.body as { prompt: string }).prompt, r.id]));
			expect(items.map((i) => i.json.request_id)).toEqual(PROMPTS.map((p) => runOf.get(p.prompt)));
			for (const item of items) expect(item.json.status).toBe('succeeded');
		},
		TEST_TIMEOUT,
	);
});
