/**
 * Two parks in one execution (issue 24, item 3): two Inference → Run nodes that park one after the other, or one
 * node in a loop, share the execution's resume URL. Each park's callbacks must reach that park only: the second
 * park resumes with its own results after the first has finished, and a late callback of the first is ignored
 * by the second. In the real n8n engine (in-process) against the sandbox; the callbacks are made by the test.
 * Real n8n end to end: test/e2e/parking.test.ts.
 */
import type { INodeParameters } from 'n8n-workflow';

import { runNode } from '../helpers/engine';
import type { RunNodeResult } from '../helpers/engine';
import { callParkedWebhook } from '../helpers/engine-webhook';
import { holdDeploymentQueue } from '../helpers/sandboxCalls';
import { credentialsFor, deploymentId, isResult, locator, node, until, useSandbox } from '../RunComfyDeployment/setup';

const sb = useSandbox();
beforeEach(() => sb.reset({ runDurationMs: 200, queueMs: 0, webhooks: { enabled: false } }));

const params = (): INodeParameters => ({
	resource: 'inference',
	operation: 'run',
	deploymentId: locator(deploymentId(sb, 'sdxl-text-to-image'), 'id'),
	inputMode: 'json',
	overridesJson: '={{ JSON.stringify({"6": {"inputs": {"text": $json.prompt} } }) }}',
	waitMode: 'park',
	waitOptions: { maxWaitSeconds: 600 },
	downloadOutputs: false,
});

let executionCounter = 0;

/** Parks `prompts` as node `nodeName` of execution `executionId`; its requests are held in the queue until parked. */
async function parkIn(executionId: string, nodeName: string, prompts: string[]): Promise<{ result: RunNodeResult; ids: string[] }> {
	const hold = await holdDeploymentQueue(sb, deploymentId(sb, 'sdxl-text-to-image'), 1);
	const result = await runNode({
		node,
		nodeName,
		executionId,
		credentials: credentialsFor(sb),
		parameters: params(),
		inputItems: prompts.map((prompt) => ({ json: { prompt } })),
	});
	expect(result.status).toBe('waiting');
	const ids = result.items.map((i) => String(i.json.request_id));
	await hold.release();
	await until(
		() => ids.every((id) => (sb.state().runs.find((r) => r.id === id)?.finishedAt ?? Infinity) <= Date.now()),
		'the parked requests ended',
		20_000,
	);
	return { result, ids };
}

/** The URL RunComfy was given for a request, as the query the waiting-webhook route passes on. */
function callbackQuery(requestId: string): Record<string, string> {
	const url = new URL(String(sb.state().runs.find((r) => r.id === requestId)?.webhook));
	return Object.fromEntries(url.searchParams);
}

/** RunComfy's final event for a request, delivered to the webhook of the execution parked as `parked`. */
const deliver = async (parked: RunNodeResult, requestId: string) =>
	await callParkedWebhook(parked, { query: callbackQuery(requestId), body: { request_id: requestId, status: 'succeeded' } }, node);

const nextExecution = () => `park-twice-${++executionCounter}`;

describe('two parks in one execution', () => {
	it('each park gets a callback URL of its own, naming the park as well as the item', async () => {
		const execution = nextExecution();
		const first = await parkIn(execution, 'Run A', ['a', 'b']);
		const second = await parkIn(execution, 'Run B', ['c']);
		const queries = [...first.ids, ...second.ids].map(callbackQuery);
		expect(queries.map((q) => q.item)).toEqual(['0', '1', '0']);
		expect(queries[0].park).toMatch(/^[0-9a-f]{16}$/);
		expect(queries[1].park).toBe(queries[0].park);
		expect(queries[2].park).toMatch(/^[0-9a-f]{16}$/);
		expect(queries[2].park).not.toBe(queries[0].park);
	});

	it('the second park resumes with its own result after the first one resumed', async () => {
		const execution = nextExecution();
		const first = await parkIn(execution, 'Run A', ['a fox', 'a heron']);
		const resumedA = await deliver(first.result, first.ids[1]);
		expect((resumedA.response.workflowData?.[0] ?? []).map((i) => [i.json.request_id, i.json.status])).toEqual(
			first.ids.map((id) => [id, 'succeeded']),
		);

		const second = await parkIn(execution, 'Run B', ['a frog']);
		sb.clearLog();
		const resumedB = await deliver(second.result, second.ids[0]);
		expect(resumedB.status).toBe(200);
		expect((resumedB.response.workflowData?.[0] ?? []).map((i) => [i.json.request_id, i.json.status, i.json.delivered_by])).toEqual([
			[second.ids[0], 'succeeded', 'callback'],
		]);
		expect(sb.log().filter(isResult)).toHaveLength(1);
	});

	it('the same node parking again (a loop) resumes again', async () => {
		const execution = nextExecution();
		const first = await parkIn(execution, 'Run', ['one']);
		expect((await deliver(first.result, first.ids[0])).response.workflowData?.[0]).toHaveLength(1);
		const again = await parkIn(execution, 'Run', ['two']);
		const resumed = await deliver(again.result, again.ids[0]);
		expect(resumed.response.workflowData?.[0]?.map((i) => i.json.request_id)).toEqual(again.ids);
	});

	it("a late callback of the first park reaches the second one's webhook and is ignored, without a request", async () => {
		const execution = nextExecution();
		const first = await parkIn(execution, 'Run', ['one']);
		expect((await deliver(first.result, first.ids[0])).response.workflowData).toBeDefined();
		const second = await parkIn(execution, 'Run', ['two']);
		sb.clearLog();
		// Same item index (0) as the second park's item, so only the park id tells them apart.
		const late = await deliver(second.result, first.ids[0]);
		expect([late.status, late.body, late.response.workflowData]).toEqual([200, { received: true, ignored: 'other park' }, undefined]);
		expect(sb.log()).toHaveLength(0);
		// The second park still resumes on its own callback.
		expect((await deliver(second.result, second.ids[0])).response.workflowData?.[0]).toHaveLength(1);
	});

	it('a park of an earlier version (callback URL without a park id) still resumes', async () => {
		const execution = nextExecution();
		const parked = await parkIn(execution, 'Run', ['one']);
		// What an execution parked before the update holds: no park id in its stack entry, none in its URLs.
		for (const item of parked.result.run.data.executionData?.nodeExecutionStack[0]?.data.main[0] ?? []) {
			delete (item.json.parked as Record<string, unknown>).park;
		}
		const query = callbackQuery(parked.ids[0]);
		delete query.park;
		const resumed = await callParkedWebhook(parked.result, { query, body: { request_id: parked.ids[0], status: 'succeeded' } }, node);
		expect(resumed.response.workflowData?.[0]?.map((i) => i.json.request_id)).toEqual(parked.ids);
	});
});
