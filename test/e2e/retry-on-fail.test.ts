/**
 * Retry On Fail in a REAL n8n (the pinned version, run as the editor runs it like test/e2e/engine.test.ts): five prompts
 * through Model → Run, one of them fails on the service, the node's "Retry On Fail" is on with 3 tries. n8n runs
 * the node three times (n8n-core workflow-execute.js); the sandbox log must show each of the four good prompts
 * submitted exactly once, the failing one on each try. Before the fix n8n paid 15 submits for this workflow.
 * Also what survives outside the node: one info line per paid submit in n8n's log, and the ids in the execution's
 * custom data.
 */
import { startSandbox } from '../../sandbox';
import type { Sandbox } from '../../sandbox';
import * as h from '../../scripts/e2e/n8n';
import type { N8nInstance, UserFolder } from '../../scripts/e2e/n8n';
import { MODEL_RUN_PARAMETERS } from '../../scripts/e2e/polling';

const FLUX = 'blackforestlabs/flux-2/flash/text-to-image';
const FAILS = 'runcomfy/test/always-fails';
const TEST_TIMEOUT = 4 * 60 * 1000;
const PROMPTS = ['a red fox', 'a lighthouse', 'a tiny robot', 'a paper boat', 'a glass owl'];
const FAILING = 2;

let sandbox: Sandbox;
let userFolder: UserFolder;
let n8n: N8nInstance;
let credential: { id: string; name: string };

/** Manual Trigger → five items (prompt, model) → RunComfy Model → Run with Retry On Fail (3 tries). */
function retryWorkflow(): object {
	const items = PROMPTS.map((prompt, i) => ({ prompt, model: i === FAILING ? FAILS : FLUX }));
	return {
		name: 'Retry On Fail never pays twice',
		nodes: [
			{ parameters: {}, name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0] },
			{
				parameters: { mode: 'raw', jsonOutput: JSON.stringify({ items }), options: {} },
				name: 'Prompts',
				type: 'n8n-nodes-base.set',
				typeVersion: 3.4,
				position: [220, 0],
			},
			{
				parameters: { fieldToSplitOut: 'items', options: {} },
				name: 'One Item per Prompt',
				type: 'n8n-nodes-base.splitOut',
				typeVersion: 1,
				position: [440, 0],
			},
			{
				parameters: {
					...MODEL_RUN_PARAMETERS,
					waitOptions: { pollIntervalSeconds: 0.1, maxPollIntervalSeconds: 0.2, maxWaitSeconds: 60 },
				},
				name: 'Generate Images',
				type: h.NODE_TYPES.model,
				typeVersion: 1,
				position: [660, 0],
				retryOnFail: true,
				maxTries: 3,
				waitBetweenTries: 100,
				credentials: { [h.CREDENTIAL_TYPE]: { id: credential.id, name: credential.name } },
			},
		],
		connections: {
			Start: { main: [[{ node: 'Prompts', type: 'main', index: 0 }]] },
			Prompts: { main: [[{ node: 'One Item per Prompt', type: 'main', index: 0 }]] },
			'One Item per Prompt': { main: [[{ node: 'Generate Images', type: 'main', index: 0 }]] },
		},
	};
}

beforeAll(
	async () => {
		await h.ensureN8n();
		await h.ensureBuilt();
		userFolder = h.createUserFolder();
		sandbox = await startSandbox({ runDurationMs: 200, queueMs: 20 });
		n8n = await h.startN8n(userFolder);
		await n8n.rest.setupOwner();
		credential = await n8n.rest.createCredential(h.sandboxCredential(sandbox));
	},
	15 * 60 * 1000,
);

afterAll(async () => {
	await n8n?.stop();
	await sandbox?.close();
	userFolder?.cleanup();
});

describe('Retry On Fail in a real n8n', () => {
	it(
		'five prompts, one failing run, 3 tries: each good prompt is submitted exactly once, the failing one on each try',
		async () => {
			const wf = await n8n.rest.createWorkflow(h.prepareWorkflow(retryWorkflow(), { credential }));
			sandbox.clearLog();
			const run = await n8n.rest.runManually(wf.id, { timeoutMs: TEST_TIMEOUT });
			const printed = `${JSON.stringify(run)}\n${n8n.logs()}`;
			if (/Unrecognized node type|is not known/i.test(printed)) throw new Error(`the package did not load:\n${printed.slice(-3000)}`);
			expect(printed.includes(sandbox.token)).toBe(false);

			// The failing run fails every try, so the execution ends in an error naming it.
			expect(run.status).toBe('error');
			expect(run.data.resultData.lastNodeExecuted).toBe('Generate Images');
			const runs = sandbox.state().runs;
			const failingRuns = runs.filter((r) => r.target === FAILS);
			expect(failingRuns).toHaveLength(3);
			expect(String(run.data.resultData.error?.message)).toContain(failingRuns[2].id);

			// What the service received: the four good prompts exactly once, the failing one three times.
			const submits = sandbox.log().filter((e) => e.api === 'model' && e.method === 'POST' && /^\/v1\/models\//.test(e.path));
			const perPrompt = new Map<string, number>();
			for (const e of submits) {
				const prompt = String((e.body as { prompt?: string }).prompt);
				perPrompt.set(prompt, (perPrompt.get(prompt) ?? 0) + 1);
			}
			PROMPTS.forEach((prompt, i) => expect([prompt, perPrompt.get(prompt)]).toEqual([prompt, i === FAILING ? 3 : 1]));
			expect(submits).toHaveLength(7);
			expect(runs).toHaveLength(7);

			// Every paid submit left one info line in n8n's log (node, item, request id).
			const lines = n8n
				.logs()
				.split('\n')
				.filter((l) => /RunComfy paid: run submitted \(node "Generate Images", item \d, request_id /.test(l));
			expect(lines).toHaveLength(7);
			for (const r of runs) expect(lines.some((l) => l.includes(r.id))).toBe(true);

			// The execution's custom data (what the execution list shows) lists the ids of every try within n8n's 255
			// characters and counts the rest ("+N more, see the log").
			const metadata = (run.data.resultData as { metadata?: Record<string, string> }).metadata ?? {};
			const value = String(metadata.runcomfy_Generate_Images ?? '');
			expect(value.length).toBeLessThanOrEqual(255);
			const more = / ?\+(\d+) more, see the log$/.exec(value);
			const listed = value
				.slice(0, more?.index ?? value.length)
				.split(' ')
				.filter(Boolean)
				.map((pair) => pair.split(':')[1]);
			for (const id of listed) expect(runs.map((r) => r.id)).toContain(id);
			expect(new Set(listed).size + Number(more?.[1] ?? 0)).toBe(runs.length);
		},
		TEST_TIMEOUT,
	);
});
