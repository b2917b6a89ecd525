/**
 * Retry On Fail on an AI agent's tool path: n8n-core's tool invocation handler (AI Agent 2.x, MCP Server Trigger)
 * runs the node again itself, with a new run index on every try. The service takes each submission but its answer
 * is lost (500 after the run was created), so the node cannot know it was accepted: a retry must not pay again.
 * Counted in the sandbox log over the whole execution: one submit for three tries of the same call, and one per
 * call when the agent calls the tool twice with different inputs (both are paid, neither is taken for the other).
 */
import type { IDataObject, INode, INodeParameters, INodeType } from 'n8n-workflow';

import { PICKED_UP, rememberedCount } from '../../nodes/shared/jobs/memory';
import { RunComfyDeployment } from '../../nodes/RunComfyDeployment/RunComfyDeployment.node';
import { RunComfyModel } from '../../nodes/RunComfyModel/RunComfyModel.node';
import { runNode } from '../helpers/engine';
import { STABLE, credentialsFor, isInference, isModelSubmit, useFaultSandbox } from '../helpers/faults-setup';

const RETRY = { retryOnFail: true, maxTries: 3, waitBetweenTries: 10 };
const WAIT = { pollIntervalSeconds: 0.02, maxPollIntervalSeconds: 0.05, maxWaitSeconds: 20 };
/** Every paid POST creates its run, then answers 500: the answer is lost. */
const LOST_ANSWER = { rate5xx: 1, paidFaultTiming: 'after' as const, methods: ['POST'] };
const NOT_AGAIN = /is not submitted again: on an earlier try of this node its (run|request) may have been accepted/;

const sb = useFaultSandbox();
beforeEach(() => sb.reset({ runDurationMs: 30, queueMs: 0, walletMicrodollars: 10_000_000 }));

const MODEL_RUN: INodeParameters = {
	resource: 'model',
	operation: 'run',
	model: { __rl: true, mode: 'id', value: STABLE.flash },
	inputMode: 'json',
	inputsJson: "={{ JSON.stringify({ prompt: $fromAI('prompt', 'What to draw') }) }}",
	waitOptions: WAIT,
};

/** Each call's arguments, one tool call after the other through the handler (or as the MCP Server Trigger calls). */
async function calls(
	node: INodeType,
	parameters: INodeParameters,
	args: IDataObject[],
	how: { overrides?: Partial<INode>; mcpTrigger?: boolean } = {},
): Promise<IDataObject[]> {
	const result = await runNode({
		node,
		parameters,
		credentials: credentialsFor(sb),
		nodeOverrides: how.overrides ?? RETRY,
		viaToolHandler: how.mcpTrigger ? 'mcpTrigger' : true,
		inputItems: args.map((json) => ({ json })),
	});
	expect(result.status).toBe('success');
	// The handler's tries add their own (ai_tool) runs of the node: the driver's answers are its main run.
	const driver = result.run.data.resultData.runData[result.nodeDefinition.name].find((task) => task.data?.main);
	const answers = driver?.data?.main?.[0] ?? [];
	expect(answers).toHaveLength(args.length);
	return answers.map((item) => item.json);
}

describe('Retry On Fail through the agent tool handler (a new run index per try)', () => {
	it('Model → Run: a lost answer is paid once across three tries, the call ends naming it', async () => {
		sb.configure({ faults: { ...LOST_ANSWER, pathPrefixes: ['/v1/models/'] } });
		const answers = await calls(new RunComfyModel(), MODEL_RUN, [{ prompt: 'a red fox' }]);
		expect(sb.log().filter(isModelSubmit)).toHaveLength(1);
		expect(sb.state().runs).toHaveLength(1);
		expect(String(answers[0].toolError)).toMatch(NOT_AGAIN);
		expect(rememberedCount()).toBe(0);
	});

	it('Deployment → Inference → Run: the same, one request across three tries', async () => {
		sb.configure({ faults: { ...LOST_ANSWER, pathPrefixes: ['/prod/v1/deployments/', '/prod/v2/deployments/'] } });
		const answers = await calls(
			new RunComfyDeployment(),
			{
				resource: 'inference',
				operation: 'run',
				deploymentId: { __rl: true, mode: 'id', value: sb.stable.deployments.textToImage },
				inputMode: 'json',
				overridesJson: "={{ JSON.stringify({ '6': { inputs: { text: $fromAI('prompt', 'What to draw') } } }) }}",
				downloadOutputs: false,
				waitOptions: WAIT,
			},
			[{ prompt: 'a red fox' }],
		);
		expect(sb.log().filter(isInference)).toHaveLength(1);
		expect(String(answers[0].toolError)).toMatch(NOT_AGAIN);
		expect(rememberedCount()).toBe(0);
	});

	it('two calls with different inputs in one agent run are two paid submissions, each sent once', async () => {
		sb.configure({ faults: { ...LOST_ANSWER, pathPrefixes: ['/v1/models/'] } });
		const answers = await calls(new RunComfyModel(), MODEL_RUN, [{ prompt: 'a red fox' }, { prompt: 'a blue fox' }]);
		const prompts = sb
			.log()
			.filter(isModelSubmit)
			.map((e) => (e.body as IDataObject).prompt);
		expect(prompts.sort()).toEqual(['a blue fox', 'a red fox']);
		for (const answer of answers) expect(String(answer.toolError)).toMatch(NOT_AGAIN);
		expect(rememberedCount()).toBe(0);
	});

	it('two calls with different inputs, answers not lost: both paid and both answered with their own run', async () => {
		const answers = await calls(new RunComfyModel(), MODEL_RUN, [{ prompt: 'a red fox' }, { prompt: 'a blue fox' }]);
		const runs = sb.state().runs;
		expect(runs.map((r) => (r.body as IDataObject).prompt).sort()).toEqual(['a blue fox', 'a red fox']);
		const answered = answers.map((answer) => JSON.parse(String(answer.response)) as IDataObject[]);
		expect(answered.map((a) => a[0].request_id)).toEqual(runs.map((r) => r.id));
		expect(rememberedCount()).toBe(0);
	});

	it('MCP Server Trigger (no execution id yet): the connection closed after the run was taken, 1 s between tries: paid once', async () => {
		sb.configure({ faults: { rateDrop: 1, paidFaultTiming: 'after', methods: ['POST'], pathPrefixes: ['/v1/models/'] } });
		const answers = await calls(new RunComfyModel(), MODEL_RUN, [{ prompt: 'a red fox' }], {
			overrides: { ...RETRY, waitBetweenTries: 1000 },
			mcpTrigger: true,
		});
		expect(sb.log().filter(isModelSubmit)).toHaveLength(1);
		expect(sb.state().runs).toHaveLength(1);
		expect(String(answers[0].toolError)).toMatch(NOT_AGAIN);
		expect(rememberedCount()).toBe(0);
	});

	it('MCP Server Trigger: two calls with the same arguments, answers not lost, are two paid runs', async () => {
		const answers = await calls(new RunComfyModel(), MODEL_RUN, [{ prompt: 'a red fox' }, { prompt: 'a red fox' }], {
			mcpTrigger: true,
		});
		const runs = sb.state().runs;
		expect(runs).toHaveLength(2);
		const answered = answers.map((answer) => (JSON.parse(String(answer.response)) as IDataObject[])[0]);
		expect(answered.map((a) => a.request_id)).toEqual(runs.map((r) => r.id));
		for (const a of answered) expect(a).not.toHaveProperty(PICKED_UP);
		expect(rememberedCount()).toBe(0);
	});
});

describe('A retry of a failed try versus a new call with the same arguments', () => {
	/** Each try waits less than the run takes and then fails (On Timeout = Fail). */
	const SHORT_WAIT: INodeParameters = { ...MODEL_RUN, waitOptions: { ...WAIT, maxWaitSeconds: 0.4, onTimeout: 'fail' } };

	it('a retry follows the run its failed try submitted, and the compact answer says so', async () => {
		sb.configure({ modelDurations: { [STABLE.flash]: 1000 } });
		const answers = await calls(new RunComfyModel(), SHORT_WAIT, [{ prompt: 'a red fox' }], {
			overrides: { retryOnFail: true, maxTries: 5, waitBetweenTries: 10 },
		});
		const runs = sb.state().runs;
		expect(runs).toHaveLength(1);
		const answer = (JSON.parse(String(answers[0].response)) as IDataObject[])[0];
		expect(answer).toMatchObject({ request_id: runs[0].id, status: 'succeeded', [PICKED_UP]: true });
		expect(String(answer.summary)).toMatch(/earlier try of this call: followed, not paid again/);
		expect(rememberedCount()).toBe(0);
	});

	it('On Error = Continue: an error item delivered as the answer ends the call; the same call again is paid', async () => {
		sb.configure({ modelDurations: { [STABLE.flash]: 60_000 } });
		const answers = await calls(new RunComfyModel(), SHORT_WAIT, [{ prompt: 'a red fox' }, { prompt: 'a red fox' }], {
			overrides: { ...RETRY, onError: 'continueRegularOutput' },
		});
		const runs = sb.state().runs;
		expect(runs).toHaveLength(2);
		const answered = answers.map((answer) => (JSON.parse(String(answer.response)) as IDataObject[])[0]);
		expect(answered.map((a) => a.request_id)).toEqual(runs.map((r) => r.id));
		for (const a of answered) {
			expect(String(a.error)).toMatch(/did not finish|timed out|Max Wait/i);
			expect(a).not.toHaveProperty(PICKED_UP);
		}
		expect(rememberedCount()).toBe(0);
	});
});
