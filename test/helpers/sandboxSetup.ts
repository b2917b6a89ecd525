/* eslint-disable @n8n/community-nodes/no-restricted-globals */
/**
 * The setup every node test suite shares: a sandbox on loopback, opened once per test file and closed (with
 * the in-process n8n engine) after it, credentials pointing at it, and a bounded wait on its log or state.
 * Node suites keep their own defaults (sandbox durations, poll intervals, parameter builders, log readers)
 * in their setup.ts and build on these. Not a test file itself.
 */
import { startSandbox } from '../../sandbox';
import type { Sandbox, SandboxConfig } from '../../sandbox';
import { disposeEngine } from './engine';
import { lazySandbox } from './lazySandbox';

export { lazySandbox };
import type { RunComfyCredentialData } from './engine';

/** Starts a sandbox on 127.0.0.1 with `config`. */
export async function openSandbox(config: SandboxConfig = {}): Promise<Sandbox> {
	return await startSandbox(config);
}

/**
 * One sandbox for the test file: opened in `beforeAll`, closed in `afterAll` together with the n8n engine.
 * The returned object stands for that sandbox from the first hook on (use it inside tests and hooks only).
 */
export function useSandbox(config: SandboxConfig = {}): Sandbox {
	let current: Sandbox | undefined;
	beforeAll(async () => {
		current = await openSandbox(config);
	});
	afterAll(async () => {
		await current?.close();
		await disposeEngine();
	});
	return lazySandbox(() => current);
}

/** Credentials for the sandbox: its token and base URLs; downloads allowed from its file host only. */
export function credentialsFor(sb: Sandbox, overrides: Partial<RunComfyCredentialData> = {}): RunComfyCredentialData {
	return {
		accessToken: sb.token,
		modelApiBaseUrl: sb.urls.modelApi,
		serverlessApiBaseUrl: sb.urls.serverless,
		trainerApiBaseUrl: sb.urls.trainer,
		// The sandbox's allowed file host is 127.0.0.1; its "foreign" host is localhost.
		allowedDownloadHosts: new URL(sb.urls.files).hostname,
		...overrides,
	};
}

/** Waits (bounded) until the sandbox log or state satisfies `check`; polling it is the synchronisation. */
export async function until(check: () => boolean, what: string, limitMs = 10_000): Promise<void> {
	const started = Date.now();
	while (!check()) {
		if (Date.now() - started > limitMs) throw new Error(`Timed out after ${limitMs} ms waiting for: ${what}`);
		await new Promise((resolve) => setTimeout(resolve, 5));
	}
}
