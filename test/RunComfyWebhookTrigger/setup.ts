/**
 * Shared setup of the RunComfy Webhook Trigger tests: one sandbox per file whose deployment requests finish
 * at once, credentials pointing at it, and the direct calls that make the requests whose results are delivered
 * (../helpers/sandboxCalls). Deliveries go through ../helpers/engine-trigger. Not a test file itself.
 */
import type { Sandbox, SandboxConfig } from '../../sandbox';
import { RunComfyWebhookTrigger } from '../../nodes/RunComfyWebhookTrigger/RunComfyWebhookTrigger.node';
import { openSandbox as openLoopbackSandbox } from '../helpers/sandboxSetup';

export { client, runReaches, submitInference } from '../helpers/sandboxCalls';
export { credentialsFor } from '../helpers/sandboxSetup';

export const webhookTrigger = new RunComfyWebhookTrigger();

/** A sandbox on loopback whose requests run 20 ms, without a queue (`config` overrides). */
export async function openSandbox(config: SandboxConfig = {}): Promise<Sandbox> {
	return await openLoopbackSandbox({ runDurationMs: 20, queueMs: 0, ...config });
}
