/**
 * Polled waiting in a REAL n8n (`n8n start`, sqlite, the package installed as a community package), the two
 * ways it lands its polls where a run ends:
 * - Model → Run learns a model's run time in the n8n process, so from the model's second execution on each run
 *   is seen by the one result request it needs (the learned state lives as long as the process, across
 *   executions); with Polling Goal "Fewest Requests", runs of half a minute that vary are seen with three;
 * - Training → Submit with Wait for Completion reads the job's step progress and polls where the last step ends.
 * And what the node learns stays in the process: beside n8n's RSS Feed Trigger, an execution never writes back a
 * cursor that the trigger moved meanwhile (n8n writes static data back whole when an execution changed it).
 * Workflows: scripts/e2e/polling.js. In-process tests of the details: test/RunComfyModel/resultPolls.test.ts,
 * test/RunComfyTraining/submit.test.ts, test/shared/wait/.
 */
import { startSandbox } from '../../sandbox';
import type { RequestLogEntry, Sandbox, SandboxConfig } from '../../sandbox';
import * as h from '../../scripts/e2e/n8n';
import type { N8nInstance, UserFolder } from '../../scripts/e2e/n8n';
import { waitFor, waitForStatus } from '../../scripts/e2e/parking';
import {
	RSS_TRIGGER,
	besidePollingTriggerWorkflow,
	modelRunWorkflow,
	requestsPerRun,
	runModels,
	runModelsBeside,
	staticData,
	train,
	trainingWorkflow,
} from '../../scripts/e2e/polling';
import { LoopbackHost } from '../helpers/loopbackHost';
import { readyDataset } from '../helpers/sandboxCalls';

const TEST_TIMEOUT = 4 * 60 * 1000;
/** Runs of exactly 2 s that start at once: what the node learns from one execution holds for the next. */
const CONFIG: SandboxConfig = { runDurationMs: 2000, queueMs: 0 };

let sandbox: Sandbox;
let userFolder: UserFolder;
let n8n: N8nInstance;
let n8nHome: string;
let besideId: string;
/** A one-item RSS feed on loopback for the RSS Feed Trigger, which polls it when the workflow is published. */
let feed: LoopbackHost;
const FEED_ITEM_DATE = '2026-01-02T03:04:05.000Z';

const isTrainingStatus = (e: RequestLogEntry) => e.api === 'trainer' && e.method === 'GET' && /\/jobs\/[^/]+\/status$/.test(e.path);

beforeAll(
	async () => {
		n8nHome = await h.ensureN8n();
		await h.ensureBuilt();
		sandbox = await startSandbox(CONFIG);
		feed = await new LoopbackHost({
			'/feed.xml': (_req, res) => {
				res.setHeader('content-type', 'application/rss+xml');
				res.end(
					`<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><link>http://127.0.0.1/</link><description>d</description>` +
						`<item><title>one</title><link>http://127.0.0.1/1</link><guid>1</guid><pubDate>${new Date(FEED_ITEM_DATE).toUTCString()}</pubDate></item>` +
						`</channel></rss>`,
				);
			},
		}).start();
		const feedUrl = feed.url('/feed.xml');
		userFolder = h.createUserFolder();
		const credential = h.sandboxCredential(sandbox);
		const started = await h.startN8nWithPublished(userFolder, {
			credentials: [credential],
			workflows: [
				modelRunWorkflow({ credential }),
				trainingWorkflow({ credential }),
				besidePollingTriggerWorkflow({ credential, feedUrl }),
			],
		});
		n8n = started.n8n;
		besideId = started.workflows[2].id;
		expect(started.statuses).toEqual(['published', 'published', 'published']);
	},
	15 * 60 * 1000,
);

afterAll(async () => {
	await n8n?.stop();
	await sandbox?.close();
	await feed?.stop();
	userFolder?.cleanup();
});

beforeEach(() => sandbox.reset(CONFIG));

/** The catalog's prompt-only models other than the stable text-to-image one (what is learned is per model). */
async function promptOnlyModels(): Promise<string[]> {
	const response = await fetch(`${sandbox.urls.modelApi}/v1/models?limit=500`, { headers: { authorization: `Bearer ${sandbox.token}` } });
	const catalog = (await response.json()) as { models: Array<{ model_id: string; required_inputs: string[] }> };
	const models = catalog.models
		.filter(
			(m) =>
				m.model_id !== sandbox.stable.models.textToImage &&
				!m.model_id.startsWith('runcomfy/test/') &&
				m.required_inputs.join() === 'prompt',
		)
		.map((m) => m.model_id);
	expect(models.length).toBeGreaterThanOrEqual(2);
	return models;
}

describe('polled waiting in a real n8n', () => {
	it(
		'Model → Run: the first execution of a model polls status; from the second on, each run is seen by its one result request',
		async () => {
			const model = sandbox.stable.models.textToImage;
			const batch = (tag: string) => [0, 1, 2].map((i) => ({ model, prompt: `${tag} ${i}` }));

			const first = await runModels(n8n.url, batch('first'));
			expect(first.items.map((item) => item.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
			// Nothing learned: the batch is polled as one until a run ends (nodes/shared/wait/coldBatch.ts), then the others
			// follow what it taught; each run's result is asked for at least once.
			const firstRuns = requestsPerRun(sandbox.log(), first.items);
			expect(firstRuns.reduce((n, run) => n + run.status, 0)).toBeGreaterThanOrEqual(1);
			for (const run of firstRuns) expect(run.result).toBeGreaterThanOrEqual(1);

			// A new execution (a new webhook call) in the same n8n process: the run time learned above plans it. Its runs
			// end sooner than learned, so the planned result request finds them ended however late the machine sends
			// it; a node that had not learned would still ask for their status first.
			sandbox.configure({ runDurationMs: CONFIG.runDurationMs! / 2 });
			const second = await runModels(n8n.url, batch('second'));
			expect(second.items.map((item) => item.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
			expect(requestsPerRun(sandbox.log(), second.items)).toEqual([0, 1, 2].map(() => ({ status: 0, result: 1 })));
			// The same output either way: what the result request brought is the fetched result, cost included.
			expect(Object.keys(second.items[0]).sort()).toEqual(Object.keys(first.items[0]).sort());
			expect(second.items[0]).toMatchObject({ model_id: model, cost: expect.any(Number) });
		},
		TEST_TIMEOUT,
	);

	it(
		'Model → Run with Polling Goal "Fewest Requests" from an expression: from the second execution on, the typical 30 s run is seen with at most three requests',
		async () => {
			// Another prompt-only model than the test above: what is learned is per model.
			const [model] = await promptOnlyModels();
			// Runs of 30 s within ±20 %, the same draws every time (seed 1). On these draws the default goal's typical run
			// of the second execution pays 6 requests, this goal's 2 (the built engine on the virtual clock).
			sandbox.reset({ ...CONFIG, runDurationMs: 30_000, spread: 0.2, seed: 1 });
			const batch = (tag: string) =>
				Array.from({ length: 10 }, (_, i) => ({ model, prompt: `${tag} ${i}`, pollingGoal: 'fewestRequests' as const }));

			const first = await runModels(n8n.url, batch('first'));
			expect(first.items.map((item) => item.status)).toEqual(first.items.map(() => 'succeeded'));
			const second = await runModels(n8n.url, batch('second'));
			expect(second.items.map((item) => item.status)).toEqual(second.items.map(() => 'succeeded'));
			// Requests to see each run ended, besides its one result fetch.
			const paid = requestsPerRun(sandbox.log(), second.items)
				.map((run) => run.status + run.result - 1)
				.sort((a, b) => a - b);
			expect(paid).toHaveLength(10);
			expect((paid[4] + paid[5]) / 2).toBeLessThanOrEqual(3);
		},
		TEST_TIMEOUT,
	);

	it(
		'Training → Submit with Wait for Completion polls where the last step ends, at the pace the job reports',
		async () => {
			// 0.6 s loading at step 0, then 400 steps of 20 ms: the end comes 8.6 s after the start. The backoff's polls
			// (0.8 s growing ×1.5 up to 8 s) land at about 0.8, 2, 3.8, 6.5 and 10.6 s; the pace seen from the second
			// poll on puts one just after 8.6 s instead.
			sandbox.configure({ trainingStepMs: 20, trainingLoadMs: 600 });
			const dataset = await readyDataset(sandbox, 'pace-e2e');
			const call = await train(n8n.url, { name: 'p3r5on_e2e', dataset, steps: 400, pollSeconds: 0.8, maxPollSeconds: 8 });
			const job = sandbox.state().jobs[0];
			expect(call.items).toHaveLength(1);
			expect(call.items[0]).toMatchObject({ job_id: job.id, status: 'succeeded', progress: { current: 400, total: 400 } });

			const polls = sandbox
				.log()
				.filter(isTrainingStatus)
				.map((e) => e.time);
			const gaps = polls.slice(1).map((t, k) => t - polls[k]);
			expect(gaps.length).toBeGreaterThanOrEqual(3);
			// The backoff grows each gap ×1.5 (±10 % jitter: at least ×1.23); the poll that saw the end came sooner
			// (about 2.1 s after a gap of 2.7 s), with room for a loaded machine's timer delays.
			expect(gaps[gaps.length - 1]).toBeLessThan(gaps[gaps.length - 2] * 1.1);
		},
		TEST_TIMEOUT,
	);

	it(
		"Model → Run beside n8n's RSS Feed Trigger leaves the trigger's cursor where the trigger last saved it",
		async () => {
			const cursorKey = `node:${RSS_TRIGGER}`;
			const model = sandbox.stable.models.textToImage;
			sandbox.configure({ runDurationMs: 4000 });
			const call = runModelsBeside(n8n.url, [{ model, prompt: 'beside a poll' }]);
			await waitFor('the run to be submitted', async () => sandbox.state().runs.length > 0);
			// As the trigger's next poll would save it while the execution runs (n8n polls at most once a minute).
			const saved = await staticData(n8nHome, userFolder, besideId);
			const moved = { ...saved, [cursorKey]: { lastItemDate: '2026-12-06T00:00:00.000Z' } };
			await staticData(n8nHome, userFolder, besideId, moved);
			// Written while the node still waits for its run, so before the execution could save anything.
			expect(sandbox.state().runs[0].status).not.toBe('completed');
			const { items } = await call;
			expect(items.map((item) => item.status)).toEqual(['succeeded']);
			const [execution] = await n8n.rest.listExecutions({ workflowId: besideId, limit: 1 });
			// n8n saves changed static data before it marks the execution ended.
			await waitForStatus(n8n.rest, besideId, execution.id, ['success']);
			expect(await staticData(n8nHome, userFolder, besideId)).toEqual(moved);
		},
		TEST_TIMEOUT,
	);
});
