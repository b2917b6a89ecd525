/**
 * Shared setup of the RunComfy Webhook Trigger tests: one sandbox per file whose deployment requests finish
 * at once, credentials pointing at it, and the direct calls that make the requests whose results are delivered
 * (../helpers/sandboxCalls). The trigger confirms every final event with the sandbox's API, so deliveries name
 * requests made here. Deliveries go through ../helpers/engine-trigger. Not a test file itself.
 */
import type { IDataObject } from 'n8n-workflow';

import type { Sandbox, SandboxConfig } from '../../sandbox';
import { RunComfyWebhookTrigger } from '../../nodes/RunComfyWebhookTrigger/RunComfyWebhookTrigger.node';
import { client, runReaches, submitInference } from '../helpers/sandboxCalls';
import { openSandbox as openLoopbackSandbox } from '../helpers/sandboxSetup';

export { client, runReaches, submitInference } from '../helpers/sandboxCalls';
export { credentialsFor } from '../helpers/sandboxSetup';

export const webhookTrigger = new RunComfyWebhookTrigger();

/** A sandbox on loopback whose requests run 20 ms, without a queue (`config` overrides). */
export async function openSandbox(config: SandboxConfig = {}): Promise<Sandbox> {
	return await openLoopbackSandbox({ runDurationMs: 20, queueMs: 0, ...config });
}

/** The result record of a request, as the sandbox's API returns it. */
export async function resultOf(sb: Sandbox, deploymentId: string, requestId: string): Promise<IDataObject> {
	return (await client(sb).get(`${sb.urls.serverless}/prod/v2/deployments/${deploymentId}/requests/${requestId}/result`))
		.data as IDataObject;
}

/** `n` requests on the deployment, each one finished (completed in the sandbox's own state). */
export async function finishedRequests(sb: Sandbox, deploymentId: string, n: number): Promise<string[]> {
	const ids: string[] = [];
	for (let i = 0; i < n; i++) ids.push(await submitInference(sb, deploymentId));
	for (const id of ids) await runReaches(sb, id, 'completed');
	return ids;
}

/** A request that failed (the deployment is made to fail while it is submitted). */
export async function failedRequest(sb: Sandbox, deploymentId: string): Promise<string> {
	sb.configure({ failingModels: { [deploymentId]: 'CUDA error: out of memory' } });
	try {
		const [id] = await finishedRequests(sb, deploymentId, 1);
		return id;
	} finally {
		sb.configure({ failingModels: { [deploymentId]: '' } });
	}
}

/** A request cancelled while it ran (its run time made long, then the cancel sent). */
export async function cancelledRequest(sb: Sandbox, deploymentId: string): Promise<string> {
	sb.configure({ modelDurations: { [deploymentId]: 600_000 } });
	const id = await submitInference(sb, deploymentId);
	sb.configure({ modelDurations: { [deploymentId]: undefined as unknown as number } });
	const res = await client(sb).post(`${sb.urls.serverless}/prod/v2/deployments/${deploymentId}/requests/${id}/cancel`);
	expect(res.status).toBeLessThan(300);
	await runReaches(sb, id, 'cancelled');
	return id;
}
