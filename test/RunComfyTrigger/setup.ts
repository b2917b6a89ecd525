/**
 * Shared setup of the RunComfy Trigger tests: one sandbox per file (quick runs, training and datasets),
 * credentials pointing at it, a poll() bound to the trigger, and the direct calls to the sandbox that make
 * the things the trigger watches (../helpers/sandboxCalls). Not a test file itself.
 */
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import type { Sandbox, SandboxConfig } from '../../sandbox';
import { RunComfyTrigger } from '../../nodes/RunComfyTrigger/RunComfyTrigger.node';
import { pollWorkflow } from '../helpers/engine-trigger';
import { credentialsFor, openSandbox as openLoopbackSandbox } from '../helpers/sandboxSetup';

export * from '../helpers/sandboxCalls';
export { credentialsFor };

export const trigger = new RunComfyTrigger();

/** A sandbox on loopback with fast runs, training and dataset processing (`config` overrides). */
export async function openSandbox(config: SandboxConfig = {}): Promise<Sandbox> {
	return await openLoopbackSandbox({
		runDurationMs: 20,
		queueMs: 0,
		trainingStepMs: 1,
		trainingQueueMs: 0,
		datasetReadyMs: 10,
		...config,
	});
}

/**
 * One scheduled poll (mode 'trigger') or "Fetch Test Event" (mode 'manual'); returns the emitted JSON or null.
 * `staticData` is the workflow's static data (pass the same object to later polls); `node` names the trigger
 * node (default "RunComfy Trigger", id "trigger-node").
 */
export async function pollOnce(
	sb: Sandbox,
	parameters: INodeParameters,
	staticData: IDataObject,
	mode: 'trigger' | 'manual' = 'trigger',
	node: { name?: string; id?: string } = {},
): Promise<IDataObject[] | null> {
	const out: INodeExecutionData[][] | null = await pollWorkflow({
		node: trigger,
		parameters,
		credentials: credentialsFor(sb),
		workflowStaticData: staticData,
		mode,
		nodeName: node.name,
		nodeId: node.id,
	});
	if (out === null) return null;
	expect(out).toHaveLength(1);
	return out[0].map((item) => item.json);
}
