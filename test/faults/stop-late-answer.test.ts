/**
 * Stop pressed while a paid submission is on the wire, and its answer comes after Stop's grace: the node has
 * returned ("may have been accepted"), but the submission is not forgotten. When the answer arrives its id is
 * logged at warn level with node and item, and the run, still queued, is cancelled on the service (outcome
 * logged), for model runs and deployment requests. The grace is timed on the wait engine's real clock: the
 * test ends it at once instead of waiting 10 s.
 */
import type { IDataObject } from 'n8n-workflow';

import { STABLE_DEPLOYMENTS } from '../../sandbox';

import { STOP_GRACE_MS } from '../../nodes/shared/jobs/defaults';
import { realClock } from '../../nodes/shared/wait';
import { RunComfyDeployment } from '../../nodes/RunComfyDeployment/RunComfyDeployment.node';
import { RunComfyModel } from '../../nodes/RunComfyModel/RunComfyModel.node';
import { getRuntime, runNode } from '../helpers/engine';
import { captureLogs } from '../helpers/faults-capture';
import type { CapturedLine } from '../helpers/faults-capture';
import {
	credentialsFor,
	flashPromptRun,
	isDeploymentCancel,
	isInference,
	isModelCancel,
	isModelSubmit,
	requestIdIn,
	until,
	useFaultSandbox,
} from '../helpers/faults-setup';

const WALLET = 50_000_000;
const WAIT = { pollIntervalSeconds: 0.05, maxPollIntervalSeconds: 0.1, maxWaitSeconds: 120 };

const sb = useFaultSandbox();
let capture: { lines: CapturedLine[]; stop: () => void };
beforeAll(async () => {
	await getRuntime();
	capture = captureLogs();
});
afterAll(() => capture.stop());

/** Stop's grace ends as soon as the flow starts it; every other sleep is the real one. */
function graceEndsAtOnce(): { started: () => number; restore: () => void } {
	const real = realClock.sleep;
	let started = 0;
	const spy = jest.spyOn(realClock, 'sleep').mockImplementation(async (ms: number, signal?: AbortSignal) => {
		if (ms !== STOP_GRACE_MS) return await real(ms, signal);
		started++;
	});
	return { started: () => started, restore: () => spy.mockRestore() };
}

const logged = (level: string, text: string) =>
	capture.lines.filter((l) => l.source === 'n8n-logger' && l.level === level && String(l.message).includes(text));

const DEPLOYMENT_RUN = (deploymentId: string) => ({
	inputItems: [{ json: { prompt: 'item 0' } }],
	parameters: {
		resource: 'inference',
		operation: 'run',
		deploymentId: { __rl: true, mode: 'id', value: deploymentId },
		inputMode: 'json',
		overridesJson: '={{ JSON.stringify({ "6": { "inputs": { "text": $json.prompt } } }) }}',
		downloadOutputs: false,
		waitOptions: WAIT,
	},
});

const CASES = [
	{
		name: 'Model → Run',
		node: () => new RunComfyModel(),
		run: () => flashPromptRun(1, WAIT),
		isSubmit: isModelSubmit,
		isCancel: isModelCancel,
		paths: ['/v1/models/'],
	},
	{
		name: 'Deployment → Inference → Run',
		node: () => new RunComfyDeployment(),
		run: () => DEPLOYMENT_RUN(sb.stable.deployments.textToImage),
		isSubmit: isInference,
		isCancel: isDeploymentCancel,
		// The inference path only: a slow cancel would add its delay to the test and prove nothing more.
		paths: ['v1', 'v2'].map((v) => `/prod/${v}/deployments/${STABLE_DEPLOYMENTS.textToImage}/inference`),
	},
];

describe('Stop: an answer that comes after the grace', () => {
	it.each(CASES)(
		'$name: the id is logged at warn (node, item) and the queued run is cancelled',
		async ({ node, run, isSubmit, isCancel, paths }) => {
			// The run is created at once, its answer comes 3 s later, and it stays queued.
			sb.reset({
				runDurationMs: 60_000,
				queueMs: 60_000,
				walletMicrodollars: WALLET,
				faults: { rateSlow: 1, slowMs: 3000, paidFaultTiming: 'after', methods: ['POST'], pathPrefixes: paths },
			});
			capture.lines.length = 0;
			const grace = graceEndsAtOnce();
			let inFlightAtStop = false;
			try {
				const result = await runNode({
					node: node(),
					nodeName: 'Make Images',
					credentials: credentialsFor(sb),
					...run(),
					onStart: (stop) => {
						const inFlight = () => sb.log().some((e) => isSubmit(e) && e.createdId && e.status === 0);
						void until(inFlight, 'the submit in flight').finally(() => {
							inFlightAtStop = inFlight();
							stop();
						});
					},
				});
				expect(inFlightAtStop).toBe(true);
				expect(grace.started()).toBe(1);
				const [submit] = sb.log().filter(isSubmit);
				// The node returned before the answer: the item says it may have been accepted, without an id.
				expect(submit.status).toBe(0);
				expect(result.stopped).toBe(true);
				expect(result.items[0].json).toMatchObject({ stopped: true, may_have_been_accepted: true });
				expect(result.items[0].json.request_id).toBeUndefined();

				const id = submit.createdId as string;
				await until(() => logged('info', `accepted after Stop (request_id ${id}): cancelled`).length > 0, 'the cancel outcome logged');
				const [warn] = logged('warn', id);
				expect(String(warn.message)).toMatch(/accepted after the execution stopped .*cancelling it/);
				expect(warn.metadata as IDataObject).toMatchObject({ node: 'Make Images', itemIndex: 0, request_id: id });
				expect(sb.log().filter(isCancel).map(requestIdIn)).toEqual([id]);
				expect(sb.state().runs.find((r) => r.id === id)?.status).toBe('cancelled');
				expect(sb.state().walletMicrodollars).toBe(WALLET);
			} finally {
				grace.restore();
			}
		},
	);
});
