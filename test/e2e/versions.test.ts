/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals */
/**
 * The package on both ends of the supported range: the pinned n8n 2.x (h.N8N_VERSION) and the latest 1.x
 * (h.N8N_1X_VERSION), each installed by scripts/provision-n8n.sh (n8n-nodes-base 1.x's xlsx comes from the npm
 * registry through `overrides`).
 *
 * - 1.x: the nodes load, a Model → Run batch run as the editor runs it downloads its files, the credential test
 *   answers.
 * - Both: Stop reaches a node sleeping between hour-long polls (1.x's `sleep` ignores the abort signal, so
 *   clock.ts races it): the accepted run is cancelled on RunComfy at once, and its request id is recorded where
 *   docs/compatibility.md says (n8n discards a stopped node's output): custom data on 2.x, the log on both.
 */
import * as fs from 'fs';
import * as path from 'path';

import { startSandbox } from '../../sandbox';
import type { Sandbox } from '../../sandbox';
import * as h from '../../scripts/e2e/n8n';
import type { N8nInstance, UserFolder, WorkflowJson } from '../../scripts/e2e/n8n';
import { modelRunWorkflow, runModels } from '../../scripts/e2e/polling';

const TEST_TIMEOUT = 4 * 60 * 1000;
const FLUX = 'blackforestlabs/flux-2/flash/text-to-image';
const VIDEO = 'google/veo-3/text-to-video';

type ExecutionSummary = { id: string; status?: string };

/** Polls until `probe` returns a value; fails naming `what` after `deadline`. */
async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, deadline: number): Promise<T> {
	for (;;) {
		const found = await probe();
		if (found !== undefined) return found;
		if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 200));
	}
}

const homeVersion = (home: string): string =>
	JSON.parse(fs.readFileSync(path.join(home, 'node_modules', 'n8n', 'package.json'), 'utf8')).version;

let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox({ runDurationMs: 300, queueMs: 50, modelDurations: { [VIDEO]: 10 * 60 * 1000 } });
});

afterAll(async () => {
	await sandbox?.close();
});

describe(`the package in n8n ${h.N8N_1X_VERSION}`, () => {
	let home: string;
	let userFolder: UserFolder | undefined;
	let n8n: N8nInstance;
	let credential: { id: string; name: string };

	beforeAll(
		async () => {
			home = await h.ensureN8n({ version: h.N8N_1X_VERSION });
			await h.ensureBuilt();
			userFolder = h.createUserFolder();
			n8n = await h.startN8n(userFolder, { home });
			await n8n.rest.setupOwner();
			credential = await n8n.rest.createCredential(h.sandboxCredential(sandbox));
		},
		20 * 60 * 1000,
	);

	afterAll(async () => {
		await n8n?.stop();
		userFolder?.cleanup();
	});

	it('is that version', () => {
		expect(homeVersion(home)).toBe(h.N8N_1X_VERSION);
	});

	it(
		'loads and runs a Model → Run batch with downloads (as the editor runs it)',
		async () => {
			const batch = h.prepareWorkflow(path.join(h.ROOT, 'examples', 'text-to-image-batch.json'), { credential });
			const saved = await n8n.rest.createWorkflow(batch);
			const run = await n8n.rest.runManually(saved.id, { timeoutMs: TEST_TIMEOUT });
			const printed = `${JSON.stringify(run)}\n${n8n.logs()}`;
			expect(printed).not.toMatch(/Unrecognized node type|is not known/i);
			expect(run.status).toBe('success');
			const runNode = batch.nodes.find((n) => n.type === h.NODE_TYPES.model);
			const items = h.nodeItems(run, String(runNode?.name)) ?? [];
			expect(items).toHaveLength(3);
			for (const item of items) {
				expect(item.json).toMatchObject({ model_id: FLUX, status: 'succeeded' });
				expect(item.binary?.data?.mimeType).toBe('image/png');
			}
			expect(printed.includes(sandbox.token)).toBe(false);
		},
		TEST_TIMEOUT,
	);

	it(
		'the credential test answers OK, and Error for a wrong token',
		async () => {
			const good = await n8n.rest.testCredential({ ...h.sandboxCredential(sandbox), id: credential.id });
			expect(good.status).toBe('OK');
			const wrong = h.sandboxCredential({ token: 'not-the-token', urls: sandbox.urls }, { id: credential.id });
			expect((await n8n.rest.testCredential(wrong)).status).toBe('Error');
		},
		TEST_TIMEOUT,
	);
});

describe.each([h.N8N_VERSION, h.N8N_1X_VERSION])('Stop in n8n %s', (version) => {
	let userFolder: UserFolder | undefined;
	let n8n: N8nInstance | undefined;
	let workflow: WorkflowJson;

	beforeAll(
		async () => {
			const home = await h.ensureN8n({ version });
			await h.ensureBuilt();
			userFolder = h.createUserFolder();
			// Model → Run (scripts/e2e/polling.js) polled once an hour: only Stop can end the wait of a 10-minute run.
			const credential = h.sandboxCredential(sandbox);
			const wf = modelRunWorkflow({ credential, name: `Stop on ${version}` }) as WorkflowJson;
			const run = wf.nodes.find((n) => n.name === 'Run') as { parameters: Record<string, unknown> };
			run.parameters.waitOptions = { pollIntervalSeconds: 3600, maxPollIntervalSeconds: 3600, maxWaitSeconds: 7200 };
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

	it(
		'cancels the accepted run at once and records its request id',
		async () => {
			const rest = (n8n as N8nInstance).rest;
			const deadline = Date.now() + TEST_TIMEOUT / 2;
			const before = sandbox.state().runs.length;
			// The webhook answers when the workflow ends; the execution is read from n8n instead.
			const call = runModels((n8n as N8nInstance).url, [{ model: VIDEO, prompt: 'a fox' }]).catch((error: Error) => error);
			const executions = async () => (await rest.listExecutions({ workflowId: workflow.id })) as ExecutionSummary[];
			const running = await waitFor(
				'the running execution',
				async () => (await executions()).find((e) => e.status === 'running'),
				deadline,
			);
			const submitted = await waitFor(
				'the submit',
				() =>
					sandbox
						.state()
						.runs.slice(before)
						.find((r) => r.target === VIDEO),
				deadline,
			);
			// Submitted: the node is in (or about to start) its hour-long sleep.
			await rest.request('POST', `/rest/executions/${running.id}/stop`, {});

			await waitFor(
				'the cancel request',
				() => sandbox.log().find((e) => e.method === 'POST' && e.path.endsWith(`/${submitted.id}/cancel`)),
				deadline,
			);
			const ended = await waitFor(
				'the stopped execution',
				async () => (await executions()).find((e) => e.id === running.id && !['running', 'new'].includes(String(e.status))),
				deadline,
			);
			expect(ended.status).toBe('canceled');
			expect(
				sandbox
					.state()
					.runs.slice(before)
					.filter((r) => r.target === VIDEO),
			).toHaveLength(1);
			expect((n8n as N8nInstance).logs()).toContain(`RunComfy paid: run submitted (node "Run", item 0, request_id ${submitted.id})`);
			if (!version.startsWith('1.')) {
				const execution = (await rest.getExecution(running.id)) as { customData?: Record<string, string> };
				expect(execution.customData).toEqual({ runcomfy_Run: `0:${submitted.id}` });
			}
			await call;
		},
		TEST_TIMEOUT,
	);
});
