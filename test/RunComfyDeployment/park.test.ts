/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * Inference → Run with Wait Mode "Park Until RunComfy Calls Back", in the real n8n engine (in-process) against
 * the sandbox: what the node submits and stores when it parks, and its webhook as n8n's waiting-webhook route
 * calls it (n8n-core's WebhookContext on the saved execution). The sandbox only records the callback URLs here;
 * the callbacks are made by the tests. Real n8n end to end: test/e2e/parking.test.ts.
 */
import dns from 'dns';

import { WebhookContext } from 'n8n-core';
import type { INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { assertReachable } from '../../nodes/shared/jobs/park/plan';
import { setRetryPolicy } from '../../nodes/shared/transport/request';
import { runNode } from '../helpers/engine';
import type { RunNodeResult } from '../helpers/engine';
import { callParkedWebhook } from '../helpers/engine-webhook';
import { holdDeploymentQueue } from '../helpers/sandboxCalls';
import { credentialsFor, deploymentId, inferences, isRequestDelete, isResult, isStatus, locator, node, until, useSandbox } from './setup';

const sb = useSandbox();
const NO_CALLBACKS = { webhooks: { enabled: false } };
beforeEach(() => sb.reset({ runDurationMs: 60_000, queueMs: 0, ...NO_CALLBACKS }));

const PROMPTS = ['a red fox', 'a blue heron', 'a green frog'];
const OVERRIDES = '={{ JSON.stringify({"6": {"inputs": {"text": $json.prompt} } }) }}';

function parkParams(extra: INodeParameters = {}): INodeParameters {
	return {
		resource: 'inference',
		operation: 'run',
		deploymentId: locator('={{ $json.deployment }}', 'id'),
		inputMode: 'json',
		overridesJson: OVERRIDES,
		waitMode: 'park',
		waitOptions: { maxWaitSeconds: 600, onTimeout: 'fail' },
		downloadOutputs: false,
		...extra,
	};
}

async function park(extra: INodeParameters = {}, deployments?: string[]): Promise<RunNodeResult> {
	const id = deploymentId(sb, 'sdxl-text-to-image');
	return await runNode({
		node,
		credentials: credentialsFor(sb),
		parameters: parkParams(extra),
		inputItems: PROMPTS.map((prompt, i) => ({ json: { prompt, deployment: deployments?.[i] ?? id } })),
	});
}

const stackItems = (r: RunNodeResult): INodeExecutionData[] => r.run.data.executionData?.nodeExecutionStack[0]?.data.main[0] ?? [];

const requestIds = (r: RunNodeResult) => r.items.map((i) => String(i.json.request_id));

/** What RunComfy POSTs when a request ends: its result record (as the sandbox's GET result answers it). */
async function finalEvent(requestId: string): Promise<Record<string, unknown>> {
	const run = sb.state().runs.find((x) => x.id === requestId);
	const res = await fetch(`${sb.urls.serverless}/prod/v2/deployments/${run?.target}/requests/${requestId}/result`, {
		headers: { authorization: `Bearer ${sb.token}` },
	});
	return (await res.json()) as Record<string, unknown>;
}

/** The node's requests (not the holders of a queue) ended. */
const requestsEnded = (ids: string[]) => () =>
	ids.every((id) => {
		const run = sb.state().runs.find((r) => r.id === id);
		return run?.finishedAt != null && run.finishedAt <= Date.now();
	});

describe('parking a batch', () => {
	it('submits each item with its callback URL, checks each status once and parks with the ids in its stack entry', async () => {
		const result = await park();
		expect(result.error).toBeUndefined();
		expect(result.status).toBe('waiting');
		const waitTill = new Date(result.run.waitTill as Date).getTime();
		expect(Math.abs(waitTill - (Date.now() + 600_000))).toBeLessThan(60_000);

		// Each request carries this execution's resume URL plus its item index.
		const submits = inferences(sb);
		expect(submits).toHaveLength(3);
		const hooks = sb.state().runs.map((r) => new URL(String(r.webhook)));
		for (const [i, hook] of hooks.entries()) {
			expect(hook.origin + hook.pathname).toMatch(/^http:\/\/localhost:5678\/webhook-waiting\/\d+$/);
			expect(hook.searchParams.get('item')).toBe(String(i));
			expect(hook.searchParams.get('park')).toBe(hooks[0].searchParams.get('park'));
		}
		expect(sb.log().filter(isStatus)).toHaveLength(3);
		expect(sb.log().filter(isResult)).toHaveLength(0);

		// The node's output while parked names every request.
		expect(result.items).toHaveLength(3);
		result.items.forEach((item, i) => {
			expect(item.pairedItem).toEqual({ item: i });
			expect(item.json).toMatchObject({ request_id: sb.state().runs[i].id, parked_until: expect.any(String) });
		});
		// The stack entry n8n saves with the execution: one fallback item per input item, ids and an explicit error.
		const stack = stackItems(result);
		expect(stack).toHaveLength(3);
		stack.forEach((item, i) => {
			expect(item.pairedItem).toEqual({ item: i });
			expect(item.json).toMatchObject({
				request_id: result.items[i].json.request_id,
				deployment_id: deploymentId(sb, 'sdxl-text-to-image'),
				timed_out: true,
				result_missing: true,
				delivered_by: 'none',
				error: expect.stringContaining('reached Max Wait (10 min)'),
				errorDescription: expect.stringContaining(`Inference → Get Result and Request ID ${String(result.items[i].json.request_id)}`),
				parked: { park: hooks[0].searchParams.get('park'), item: i, id: result.items[i].json.request_id, on_timeout: 'fail' },
			});
		});
	});

	it('with On Timeout "Return as Still Running", the fallback items carry a note instead of an error', async () => {
		const result = await park({ waitOptions: { maxWaitSeconds: 60, onTimeout: 'returnRunning' } });
		expect(result.status).toBe('waiting');
		for (const item of stackItems(result)) {
			expect(item.json.error).toBeUndefined();
			expect(item.json.note).toEqual(expect.stringContaining('has no result'));
		}
	});

	it('does not park when every request has ended by the status check before parking', async () => {
		sb.reset({ runDurationMs: 0, queueMs: 0, ...NO_CALLBACKS });
		const result = await park();
		expect(result.status).toBe('success');
		expect(result.items.map((i) => [i.json.status, i.json.delivered_by])).toEqual(PROMPTS.map(() => ['succeeded', 'poll']));
		expect(sb.log().filter(isResult)).toHaveLength(3);
	});

	it('with Delete Request After Download, deletes each request once the output is final', async () => {
		sb.reset({ runDurationMs: 0, queueMs: 0, ...NO_CALLBACKS });
		const result = await park({ downloadOutputs: true, options: { deleteRequestAfterDownload: true } });
		expect(result.status).toBe('success');
		expect(result.items.map((i) => i.json.request_deleted)).toEqual(PROMPTS.map(() => true));
		expect(sb.log().filter(isRequestDelete)).toHaveLength(3);
	});

	it('refuses before anything is paid: On Timeout "Cancel the Run", and a Deliver Results To of its own', async () => {
		const cancel = await park({ waitOptions: { onTimeout: 'cancel' } });
		expect(cancel.error?.message).toMatch(/"On Timeout" of item 0 cannot be "Cancel the Run" when the execution is parked/);
		const own = await park({ options: { webhookUrl: 'https://hooks.example.com/x' } });
		expect(own.error?.message).toMatch(/"Deliver Results To" cannot be used with the Wait Mode "Park Until RunComfy Calls Back"/);
		expect(inferences(sb)).toHaveLength(0);
	});

	it('waits in the execution when an AI agent calls the node', async () => {
		sb.reset({ runDurationMs: 30, queueMs: 0, ...NO_CALLBACKS });
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: parkParams({
				overridesJson: '{"6": {"inputs": {"text": "x"}}}',
				deploymentId: locator(deploymentId(sb, 'sdxl-text-to-image'), 'id'),
			}),
			asTool: true,
		});
		expect(result.status).toBe('success');
		expect(result.items[0].json.status).toBe('succeeded');
		expect(sb.state().runs[0].webhook).toBeUndefined();
	});
});

describe('the public URL check', () => {
	const realLookup = dns.lookup;
	const looked: string[] = [];
	beforeEach(() => {
		looked.length = 0;
		// A fake resolver: any name lookup is refused (and recorded), so no request can leave this machine.
		(dns as { lookup: unknown }).lookup = (host: string, ...rest: unknown[]) => {
			looked.push(host);
			const callback = rest[rest.length - 1] as (error: Error) => void;
			void Promise.resolve().then(() => callback(Object.assign(new Error(`the test resolver refuses ${host}`), { code: 'ENOTFOUND' })));
		};
	});
	afterEach(() => {
		(dns as { lookup: unknown }).lookup = realLookup;
	});

	it.each([
		['http://10.1.2.3:5678/webhook-waiting/7?signature=x', 'https://api.runcomfy.net', 'on 10.1.2.3, a private network address'],
		['http://169.254.169.254/webhook-waiting/7?signature=x', 'https://api.runcomfy.net', 'on 169.254.169.254, a link-local address'],
		['http://[::1]:5678/webhook-waiting/7?signature=x', 'https://api.runcomfy.net', 'on [::1], a loopback address'],
		['not a url', 'https://api.runcomfy.net', 'no resume URL'],
		['https://n8n.example.com/webhook-waiting/7?signature=x', 'https://api.runcomfy.net', undefined],
		['http://127.0.0.1:5678/webhook-waiting/7?signature=x', 'http://127.0.0.1:41000', undefined],
		['http://192.168.1.20:5678/webhook-waiting/7?signature=x', 'http://10.0.0.8:8080', undefined],
	])('resume URL %s with the service at %s: %s', (resumeUrl, service, refusal) => {
		const ctx = { getNode: () => ({ name: 'Run', type: 'x', typeVersion: 1, position: [0, 0], parameters: {} }) } as unknown as Parameters<
			typeof assertReachable
		>[0];
		const check = () => assertReachable(ctx, resumeUrl, service, 'serverless');
		if (refusal === undefined) expect(check).not.toThrow();
		else expect(check).toThrow(new RegExp(refusal.replace(/[[\]]/g, '\\$&')));
	});

	it('refuses to park when n8n is on a loopback address and RunComfy is not: before any request, naming WEBHOOK_URL', async () => {
		const result = await runNode({
			node,
			credentials: credentialsFor(sb, { serverlessApiBaseUrl: 'https://api.runcomfy.invalid' }),
			parameters: parkParams({ deploymentId: locator(deploymentId(sb, 'sdxl-text-to-image'), 'id') }),
			inputItems: [{ json: { prompt: 'x' } }],
		});
		expect(result.error?.message).toBe(
			'RunComfy cannot call back this n8n: its resume URL is on localhost, a loopback address (this machine)',
		);
		expect(result.error?.description).toMatch(
			/Set the N8N_WEBHOOK_URL environment variable \(WEBHOOK_URL in older n8n\) of every n8n process, .* Nothing was submitted\.$/,
		);
		expect(looked).toEqual([]);
		expect(sb.log()).toHaveLength(0);
	});
});

describe('the webhook of a parked batch', () => {
	/**
	 * Three parked requests of 300 ms that end in item order, the later two only when the test lets them: request 0
	 * runs on the text-to-image deployment at once; requests 1 and 2 wait on the image-to-image deployment, whose one
	 * slot a holder takes (../helpers/sandboxCalls), until `release()`; then they run one after the other. So the
	 * test sees request 0 ended while 1 is provably not, however slow the machine.
	 */
	async function parkInOrder(): Promise<{ result: RunNodeResult; release: () => Promise<void> }> {
		sb.reset({ runDurationMs: 300, queueMs: 0, ...NO_CALLBACKS });
		const held = deploymentId(sb, 'flux-image-to-image');
		const hold = await holdDeploymentQueue(sb, held, 1);
		const result = await park({ downloadOutputs: true }, [deploymentId(sb, 'sdxl-text-to-image'), held, held]);
		expect(result.status).toBe('waiting');
		return { result, release: hold.release };
	}

	/** The park's id, as each of its callback URLs carries it. */
	const parkOf = (result: RunNodeResult): string => String((stackItems(result)[0]?.json.parked as { park?: string } | undefined)?.park);

	const call = async (result: RunNodeResult, item: string | undefined, body: unknown) =>
		await callParkedWebhook(
			result,
			{ query: { signature: 'checked-by-n8n', park: parkOf(result), ...(item === undefined ? {} : { item }) }, body },
			node,
		);

	it('ignores (and acknowledges) intermediate events and callbacks that name no request of this execution', async () => {
		const { result } = await parkInOrder();
		const [r0, r1] = requestIds(result);
		sb.clearLog();
		const answers = [
			await call(result, '0', { request_id: r0, status: 'in_queue', queue_position: 1 }),
			await call(result, '0', { request_id: r0, status: 'in_progress' }),
			await call(result, '0', { request_id: r1, status: 'succeeded' }),
			await call(result, '7', { request_id: r0, status: 'succeeded' }),
			await call(result, undefined, { request_id: r0, status: 'succeeded' }),
			await call(result, '0', 'not json'),
		];
		for (const a of answers) {
			expect(a.status).toBe(200);
			expect(a.response.workflowData).toBeUndefined();
		}
		// The answer says why without naming ids (n8n's log has the details).
		expect(answers.slice(2).map((a) => (a.body as { ignored?: string }).ignored)).toEqual([
			'unknown request',
			'unknown item',
			'no item',
			'unknown request',
		]);
		expect(sb.log()).toHaveLength(0);
	});

	it('stays parked while a later request runs, checking only the next one; the last callback resumes with every result', async () => {
		const { result, release } = await parkInOrder();
		const ids = requestIds(result);
		await until(requestsEnded(ids.slice(0, 1)), 'the first request ended');
		const firstEvent = await finalEvent(ids[0]);
		sb.clearLog();
		const first = await call(result, '0', firstEvent);
		expect(first.status).toBe(200);
		expect(first.response.workflowData).toBeUndefined();
		// Only the next request was checked (it has not ended), nothing fetched.
		expect(
			sb
				.log()
				.filter(isStatus)
				.map((e) => e.path),
		).toEqual([expect.stringContaining(ids[1])]);
		expect(sb.log().filter(isResult)).toHaveLength(0);

		await release();
		await until(requestsEnded(ids), 'every request ended', 20_000);
		const lastEvent = await finalEvent(ids[2]);
		sb.clearLog();
		const last = await call(result, '2', lastEvent);
		expect(last.status).toBe(200);
		const out = last.response.workflowData?.[0] ?? [];
		expect(last.response.noWebhookResponse).toBe(true);
		// Request 0 is known to have ended (its callback came): only request 1 is checked; then one result fetch
		// and one download per request.
		expect(
			sb
				.log()
				.filter(isStatus)
				.map((e) => e.path),
		).toEqual([expect.stringContaining(ids[1])]);
		expect(sb.log().filter(isResult)).toHaveLength(3);
		expect(sb.log().filter((e) => e.api === 'files')).toHaveLength(3);
		expect(out.map((i) => [i.json.request_id, i.json.status, i.json.delivered_by, i.pairedItem])).toEqual([
			[ids[0], 'succeeded', 'poll', { item: 0 }],
			[ids[1], 'succeeded', 'poll', { item: 1 }],
			[ids[2], 'succeeded', 'callback', { item: 2 }],
		]);
		for (const item of out) {
			expect(item.binary?.data?.mimeType).toBe('image/png');
			expect((await result.readBinary(item, 'data')).subarray(1, 4).toString()).toBe('PNG');
			expect(item.json.parked).toBeUndefined();
		}
	});

	it('finishes a batch once when the last callback is delivered twice at the same time', async () => {
		const { result, release } = await parkInOrder();
		const ids = requestIds(result);
		await release();
		await until(requestsEnded(ids), 'every request ended', 20_000);
		const event = await finalEvent(ids[2]);
		sb.clearLog();
		const both = await Promise.all([call(result, '2', event), call(result, '2', event)]);
		expect(both.map((a) => a.status)).toEqual([200, 200]);
		expect(both.filter((a) => a.response.workflowData !== undefined)).toHaveLength(1);
		expect(sb.log().filter(isResult)).toHaveLength(3);
		// A later duplicate (n8n would answer 409 once the execution runs) is acknowledged without a request.
		sb.clearLog();
		const late = await call(result, '2', event);
		expect([late.status, late.response.workflowData]).toEqual([200, undefined]);
		expect(sb.log()).toHaveLength(0);
	});

	it('every request ending at once: the callbacks arriving together cost one check of each request, and one resumes', async () => {
		sb.reset({ runDurationMs: 300, queueMs: 0, ...NO_CALLBACKS });
		const id = deploymentId(sb, 'sdxl-text-to-image');
		// held in the queue until the node has parked, then all six run at once
		const hold = await holdDeploymentQueue(sb, id, 6);
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: parkParams(),
			inputItems: Array.from({ length: 6 }, (_, i) => ({ json: { prompt: `p${i}`, deployment: id } })),
		});
		expect(result.status).toBe('waiting');
		const ids = requestIds(result);
		await hold.release();
		await until(requestsEnded(ids), 'every request ended', 20_000);
		const events = await Promise.all(ids.map(async (rid) => await finalEvent(rid)));
		sb.clearLog();
		const answers = await Promise.all(ids.map(async (_, i) => await call(result, String(i), events[i])));
		expect(answers.map((a) => a.status)).toEqual(ids.map(() => 200));
		expect(answers.filter((a) => a.response.workflowData !== undefined)).toHaveLength(1);
		const statuses = sb
			.log()
			.filter(isStatus)
			.map((e) => e.path);
		expect(new Set(statuses).size).toBe(statuses.length);
		expect(statuses.length).toBeLessThanOrEqual(5);
		expect(sb.log().filter(isResult)).toHaveLength(6);
	});

	it('with Delete Request After Download, the callback that resumes deletes each request after its files arrived', async () => {
		sb.reset({ runDurationMs: 300, queueMs: 0, ...NO_CALLBACKS });
		const result = await park({ downloadOutputs: true, options: { deleteRequestAfterDownload: true } });
		expect(result.status).toBe('waiting');
		const ids = requestIds(result);
		await until(requestsEnded(ids), 'every request ended', 20_000);
		const event = await finalEvent(ids[2]);
		sb.clearLog();
		const answer = await call(result, '2', event);
		const out = answer.response.workflowData?.[0] ?? [];
		expect(out.map((i) => [i.json.request_id, i.json.request_deleted])).toEqual(ids.map((id) => [id, true]));
		expect(sb.log().filter((e) => e.api === 'files')).toHaveLength(3);
		expect(sb.log().filter(isRequestDelete)).toHaveLength(3);
	});

	it('answers 503 when another request cannot be checked, so RunComfy calls again', async () => {
		const { result, release } = await parkInOrder();
		const ids = requestIds(result);
		await release();
		await until(requestsEnded(ids), 'every request ended', 20_000);
		const event = await finalEvent(ids[0]);
		sb.configure({ faults: { rate5xx: 1, pathPrefixes: ['/prod/v2/deployments/'] } });
		const previous = setRetryPolicy({ baseDelayMs: 5, maxDelayMs: 20 });
		let answer;
		try {
			answer = await call(result, '0', event);
		} finally {
			setRetryPolicy(previous);
		}
		expect(answer.status).toBe(503);
		expect(answer.response.workflowData).toBeUndefined();
		sb.configure({ faults: { rate5xx: 0 } });
		const again = await call(result, '0', event);
		expect(again.response.workflowData?.[0]).toHaveLength(3);
	});

	it('finishes on the resume context only: nothing of an execute context is looked for on the webhook (no $runIndex)', async () => {
		// A webhook context has no getWorkflowDataProxy; here it has one that records being called.
		const proxyOf = jest.fn(() => {
			throw new Error('not a member of the resume context');
		});
		Object.defineProperty(WebhookContext.prototype, 'getWorkflowDataProxy', { value: proxyOf, configurable: true, writable: true });
		try {
			const { result, release } = await parkInOrder();
			const ids = requestIds(result);
			await release();
			await until(requestsEnded(ids), 'every request ended', 20_000);
			const last = await call(result, '2', await finalEvent(ids[2]));
			expect((last.response.workflowData?.[0] ?? []).map((i) => i.json.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
			expect(proxyOf).not.toHaveBeenCalled();
		} finally {
			delete (WebhookContext.prototype as unknown as Record<string, unknown>).getWorkflowDataProxy;
		}
	});

	it('a failed request comes back as an item with its error and ids; the others keep their results', async () => {
		const failing = deploymentId(sb, 'flux-image-to-image');
		sb.reset({ runDurationMs: 200, queueMs: 0, failingModels: { [failing]: 'CLIPTextEncode: text too long' }, ...NO_CALLBACKS });
		const ok = deploymentId(sb, 'sdxl-text-to-image');
		// held in the queues until the node has parked
		const holds = [await holdDeploymentQueue(sb, ok, 2), await holdDeploymentQueue(sb, failing, 1)];
		const result = await park({}, [ok, failing, ok]);
		expect(result.status).toBe('waiting');
		const ids = requestIds(result);
		for (const hold of holds) await hold.release();
		await until(requestsEnded(ids), 'every request ended', 20_000);
		const answer = await call(result, '1', await finalEvent(ids[1]));
		const out = answer.response.workflowData?.[0] ?? [];
		expect(out.map((i) => i.json.status)).toEqual(['succeeded', 'failed', 'succeeded']);
		expect(out[1].json).toMatchObject({
			request_id: ids[1],
			deployment_id: failing,
			delivered_by: 'callback',
			error: `Request ${ids[1]} on deployment ${failing} failed: CLIPTextEncode: text too long`,
		});
	});
});
