/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * Inference → Run with Wait Mode "Park Until RunComfy Calls Back" in a REAL n8n (`n8n start`, sqlite, the
 * package installed as a community package), with the sandbox delivering webhooks like the live service: the
 * execution is stored as waiting and polls nothing, RunComfy's callbacks resume it with every item's result and
 * files; duplicates, out-of-order and intermediate deliveries change nothing; a restart of n8n while parked
 * loses nothing; a lost last callback ends in explicit items at Max Wait; a second parking node in the same
 * execution parks and resumes on its own callbacks. One n8n for the file, restarted once
 * on the same port (the resume URLs name it). In-process tests of the details: test/RunComfyDeployment/park.test.ts.
 */
import * as fs from 'fs';

import { startSandbox } from '../../sandbox';
import type { RequestLogEntry, Sandbox, SandboxConfig } from '../../sandbox';
import * as h from '../../scripts/e2e/n8n';
import type { ExecutionItem, N8nInstance, RunJson, UserFolder, WorkflowJson } from '../../scripts/e2e/n8n';
import {
	deliveryInFlight,
	parkingWorkflow,
	requestsByItem,
	startRun,
	twoParksWorkflow,
	waitFor,
	waitForStatus,
} from '../../scripts/e2e/parking';
import type { ParkBody } from '../../scripts/e2e/parking';
import { holdDeploymentQueue } from '../helpers/sandboxCalls';

const TEST_TIMEOUT = 4 * 60 * 1000;
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
/** Callbacks are retried quickly and long enough to outlast a restart of n8n (about a minute). */
const CONFIG: SandboxConfig = {
	runDurationMs: 3000,
	queueMs: 0,
	webhooks: { baseDelayMs: 250, maxDelayMs: 2000, maxAttempts: 40, duplicateRate: 0, outOfOrderRate: 0 },
};

let sandbox: Sandbox;
let userFolder: UserFolder;
let n8n: N8nInstance;
let port: number;
let workflow: WorkflowJson;
let twoParks: WorkflowJson;
const known = new Set<string>();
let sdxl: string;
let flux: string;

const isStatus = (e: RequestLogEntry) => e.api === 'serverless' && e.method === 'GET' && /\/requests\/[^/]+\/status$/.test(e.path);
const isResult = (e: RequestLogEntry) => e.api === 'serverless' && e.method === 'GET' && /\/requests\/[^/]+\/result$/.test(e.path);
const isSubmit = (e: RequestLogEntry) => e.api === 'serverless' && e.method === 'POST' && /\/inference$/.test(e.path);
const isCallback = (e: RequestLogEntry) => e.api === 'webhook';
const about = (ids: string[]) => (e: RequestLogEntry) => ids.some((id) => e.path.includes(id) || e.requestId === id);

async function startN8n(): Promise<void> {
	n8n = await h.startN8n(userFolder, { port });
	await n8n.rest.login().catch(async () => await n8n.rest.setupOwner());
}

async function run(body: ParkBody): Promise<string> {
	return await startRun(n8n.rest, n8n.url, { workflowId: workflow.id, known, body });
}

async function finished(id: string, limitMs = 90_000): Promise<RunJson> {
	await waitForStatus(n8n.rest, workflow.id, id, ['success', 'error', 'crashed', 'canceled'], { limitMs });
	return await n8n.rest.getExecution(id);
}

function items(execution: RunJson, node: string): ExecutionItem[] {
	const list = h.nodeItems(execution, node);
	if (!list) throw new Error(`node "${node}" has no output in the execution`);
	return list;
}

/** The node's requests in item order (scripts/e2e/parking.js). */
const runsByItem = () => requestsByItem(sandbox.state().runs);

/**
 * Keeps the node's next `slots` requests queued until `release()` (../helpers/sandboxCalls), so n8n can be seen
 * parked, or stopped, before any of them ends, however slow the machine; the log starts after the holders.
 */
async function holdQueue(slots: number, deployment = sdxl) {
	const hold = await holdDeploymentQueue(sandbox, deployment, slots);
	sandbox.clearLog();
	return hold;
}

const prompts = (n: number, deployment = sdxl): ParkBody['items'] =>
	Array.from({ length: n }, (_, i) => ({ deployment, prompt: `parked prompt ${i}` }));

beforeAll(
	async () => {
		await h.ensureN8n();
		await h.ensureBuilt();
		sandbox = await startSandbox(CONFIG);
		sdxl = sandbox.stable.deployments.textToImage;
		flux = sandbox.stable.deployments.imageToImage;
		userFolder = h.createUserFolder();
		const credential = h.sandboxCredential(sandbox);
		port = await h.freePort();
		const started = await h.startN8nWithPublished(
			userFolder,
			{ credentials: [credential], workflows: [parkingWorkflow({ credential }), twoParksWorkflow({ credential })] },
			{ port },
		);
		n8n = started.n8n;
		[workflow, twoParks] = started.workflows;
		expect(started.statuses).toEqual(['published', 'published']);
	},
	15 * 60 * 1000,
);

afterAll(async () => {
	await n8n?.stop();
	await sandbox?.close();
	userFolder?.cleanup();
});

beforeEach(() => sandbox.reset(CONFIG));

describe('parked Inference → Run in a real n8n', () => {
	it(
		'a batch parks (stored as waiting, no status request while parked) and resumes on the callbacks with every result and file',
		async () => {
			const hold = await holdQueue(4);
			const id = await run({ items: prompts(4), maxWait: 600 });
			const parked = await waitForStatus(n8n.rest, workflow.id, id, ['waiting']);
			expect(Date.parse(String(parked.waitTill)) - Date.now()).toBeGreaterThan(500_000);
			await hold.release();
			const execution = await finished(id);
			expect(execution.status).toBe('success');
			// Every delivery under way answered (an entry without status or error is still in flight).
			await waitFor('no delivery in flight', async () => !sandbox.log().some(deliveryInFlight) || undefined);

			const log = sandbox.log();
			const runs = runsByItem();
			expect(log.filter(isSubmit)).toHaveLength(4);
			// Each request carries this execution's resume URL (its signature redacted in the log) and its item.
			runs.forEach((r, i) => {
				const url = new URL(String(r.webhook));
				expect(url.pathname).toBe(`/webhook-waiting/${id}`);
				expect([url.searchParams.get('signature'), url.searchParams.get('item')]).toEqual(['REDACTED', String(i)]);
				expect(r.body).toEqual({ overrides: { 6: { inputs: { text: `parked prompt ${i}` } } } });
			});
			// While parked nothing polls: one status check per request before parking, the rest only on callbacks.
			const firstCallback = log.find(isCallback)?.seq ?? Infinity;
			const statuses = log.filter(isStatus);
			expect(statuses.filter((e) => e.seq < firstCallback)).toHaveLength(4);
			expect(statuses.length).toBeLessThanOrEqual(4 + 3 * 4);
			expect(log.filter(isResult)).toHaveLength(4);
			// Every callback answered by the node (200); a 5xx from n8n under load is delivered again by RunComfy.
			const answered = log.filter(isCallback);
			expect(answered.filter((e) => e.status !== 200 && !(Number(e.status) >= 500)).map((e) => [e.event, e.status])).toEqual([]);
			for (const r of runs) expect(answered.some((e) => e.requestId === r.id && e.status === 200)).toBe(true);

			const out = items(execution, 'Run');
			expect(out.map((i) => [i.json.request_id, i.json.status, i.pairedItem])).toEqual(
				runs.map((r, i) => [r.id, 'succeeded', { item: i }]),
			);
			expect(out.filter((i) => i.json.delivered_by === 'callback').length).toBeGreaterThanOrEqual(1);
			expect(out.every((i) => ['callback', 'poll'].includes(String(i.json.delivered_by)))).toBe(true);
			for (const item of out) {
				const bytes = fs.readFileSync(h.binaryFilePath(userFolder, String(item.binary?.data?.id)));
				expect(bytes.subarray(0, 4).equals(PNG_MAGIC)).toBe(true);
				expect(item.json.parked).toBeUndefined();
			}
			expect(items(execution, 'After').map((i) => i.json.request_id)).toEqual(runs.map((r) => r.id));
			expect(n8n.logs().includes(sandbox.token)).toBe(false);
		},
		TEST_TIMEOUT,
	);

	it(
		'duplicate, out-of-order and intermediate deliveries change nothing',
		async () => {
			sandbox.configure({ webhooks: { duplicateRate: 1, outOfOrderRate: 0.5, holdMs: 300 } });
			const id = await run({ items: prompts(3), maxWait: 600, intermediate: true });
			const execution = await finished(id);
			expect(execution.status).toBe('success');
			const runs = runsByItem();
			// Let the held and duplicated deliveries of the final events go out before looking at the log. A final event
			// taken (200) is sent once more; one that came after the resume (409) is not, since only a delivery that was
			// taken is duplicated (runs that end together are all seen by the first resume).
			await waitFor('every final event taken and sent again, or answered after the resume', async () => {
				const finals = sandbox.log().filter((e) => isCallback(e) && e.event === 'succeeded');
				return runs.every((r) => finals.some((e) => e.requestId === r.id && ((e.duplicate && e.status) || e.status === 409))) || undefined;
			});
			// ... and every delivery under way answered (an entry without status or error is still in flight).
			await waitFor('no delivery in flight', async () => !sandbox.log().some(deliveryInFlight) || undefined);
			const log = sandbox.log();
			const callbacks = log.filter(isCallback);
			expect(new Set(callbacks.map((e) => e.event))).toEqual(new Set(['in_queue', 'in_progress', 'succeeded']));
			expect(callbacks.some((e) => e.duplicate)).toBe(true);
			// Answered by the node (200) while parked; n8n itself answers 409 once the execution has resumed. A 5xx
			// can come from n8n under load (its database busy) before the node is reached: RunComfy delivers that
			// event again, so it changes nothing either. No other answer is right.
			const wrong = callbacks.filter((e) => e.status !== 200 && e.status !== 409 && !(Number(e.status) >= 500));
			expect(wrong.map((e) => [e.event, e.status, e.error])).toEqual([]);
			// Every request's final event was taken (200) or came after the resume (409).
			for (const r of runs) {
				const finals = callbacks.filter((e) => e.requestId === r.id && e.event === 'succeeded');
				expect(finals.some((e) => e.status === 200 || e.status === 409)).toBe(true);
			}
			// Each result fetched once, the execution resumed once, every item once.
			expect(log.filter(isResult)).toHaveLength(3);
			expect(execution.data.resultData.runData.After).toHaveLength(1);
			expect(items(execution, 'Run').map((i) => [i.json.request_id, i.json.status])).toEqual(runs.map((r) => [r.id, 'succeeded']));
		},
		TEST_TIMEOUT,
	);

	it(
		'a restart of n8n while parked loses nothing',
		async () => {
			const hold = await holdQueue(3);
			const id = await run({ items: prompts(3), maxWait: 600 });
			await waitForStatus(n8n.rest, workflow.id, id, ['waiting']);
			await n8n.stop();
			// The requests run and end only now, while n8n is down: their callbacks fail and RunComfy retries them.
			await hold.release();
			const ids = runsByItem().map((r) => r.id);
			await waitFor(
				'a failed callback for every request',
				async () => ids.every((rid) => sandbox.log().some((e) => isCallback(e) && e.requestId === rid && e.status !== 200)) || undefined,
				{ limitMs: 30_000 },
			);
			await startN8n();
			const execution = await finished(id);
			expect(execution.status).toBe('success');
			expect(items(execution, 'Run').map((i) => [i.json.request_id, i.json.status])).toEqual(ids.map((rid) => [rid, 'succeeded']));
			expect(sandbox.log().filter(isResult)).toHaveLength(3);
		},
		TEST_TIMEOUT,
	);

	it(
		'a lost last callback: at Max Wait (n8n looks about every 60 s) each request is output with its ids and an explicit error',
		async () => {
			sandbox.configure({ modelDurations: { [sdxl]: 500, [flux]: 8000 } });
			const id = await run({
				items: [
					{ deployment: sdxl, prompt: 'short' },
					{ deployment: flux, prompt: 'long' },
				],
				maxWait: 12,
				download: false,
			});
			await waitForStatus(n8n.rest, workflow.id, id, ['waiting']);
			const [short, long] = runsByItem().map((r) => r.id);
			// The short request's callback lands; then every later callback is lost.
			await waitFor(
				'the first callback answered',
				async () => sandbox.log().some((e) => isCallback(e) && e.requestId === short && e.status === 200) || undefined,
			);
			sandbox.configure({ webhooks: { enabled: false } });
			const seqAfterFirst = sandbox.log().at(-1)?.seq ?? 0;

			const execution = await finished(id, 150_000);
			expect(execution.status).toBe('success');
			const out = items(execution, 'Run');
			expect(out.map((i) => [i.json.request_id, i.json.deployment_id, i.json.delivered_by, i.json.timed_out, i.pairedItem])).toEqual([
				[short, sdxl, 'none', true, { item: 0 }],
				[long, flux, 'none', true, { item: 1 }],
			]);
			for (const item of out) {
				expect(item.json.error).toBe(
					`Request ${String(item.json.request_id)} has no result: the parked execution reached Max Wait (12 s) before RunComfy had reported every request of this batch`,
				);
				expect(String(item.json.errorDescription)).toContain(`Inference → Get Result and Request ID ${String(item.json.request_id)}`);
			}
			expect(items(execution, 'After')).toHaveLength(2);
			// Nothing was polled after the first callback's check: n8n resumed the node without running it.
			expect(sandbox.log().filter((e) => e.seq > seqAfterFirst && (isStatus(e) || isResult(e)))).toHaveLength(0);
			expect(sandbox.log().some((e) => isCallback(e) && about([long])(e))).toBe(false);
		},
		TEST_TIMEOUT,
	);

	it(
		'two parking nodes in one execution: each parks and resumes with its own results',
		async () => {
			// "Run Again" runs on flux, held until its status checks have seen its requests queued: so it parks too.
			const hold = await holdQueue(2, flux);
			const id = await startRun(n8n.rest, n8n.url, {
				path: 'runcomfy-park-twice',
				workflowId: twoParks.id,
				known,
				body: { items: [0, 1].map((i) => ({ deployment: sdxl, again: flux, prompt: `twice ${i}` })), maxWait: 120, download: false },
			});
			const runsOn = (deployment: string) => runsByItem().filter((r) => r.target === deployment);
			const checked = (r: { id: string }) => sandbox.log().some((e) => isStatus(e) && e.path.includes(r.id));
			await waitFor(
				'"Run Again" submitted and checked its requests',
				async () => {
					const again = runsOn(flux);
					return (again.length === 2 && again.every(checked)) || undefined;
				},
				{ limitMs: 90_000 },
			);
			await hold.release();
			await waitForStatus(n8n.rest, twoParks.id, id, ['success', 'error', 'crashed', 'canceled'], { limitMs: 90_000 });
			const execution = await n8n.rest.getExecution(id);
			expect(execution.status).toBe('success');

			// Two parks, each with a park id of its own in its callback URLs.
			const parkOf = (r: { webhook?: unknown }) => new URL(String(r.webhook)).searchParams.get('park');
			const [first, second] = [runsOn(sdxl), runsOn(flux)];
			expect(new Set(first.map(parkOf)).size).toBe(1);
			expect(new Set(second.map(parkOf)).size).toBe(1);
			expect(parkOf(first[0])).not.toBe(parkOf(second[0]));
			for (const [node, runs] of [
				['Run', first],
				['Run Again', second],
			] as const) {
				const out = items(execution, node);
				expect(out.map((i) => [i.json.request_id, i.json.status, i.json.timed_out, i.pairedItem])).toEqual(
					runs.map((r, i) => [r.id, 'succeeded', undefined, { item: i }]),
				);
				// Resumed by a callback of its own park, not by Max Wait.
				expect(out.some((i) => i.json.delivered_by === 'callback')).toBe(true);
			}
			expect(items(execution, 'After').map((i) => i.json.request_id)).toEqual(second.map((r) => r.id));
			expect(sandbox.log().filter(isResult)).toHaveLength(4);
		},
		TEST_TIMEOUT,
	);
});
