/**
 * The setup the transport suites (test/shared/transport/) share: one sandbox for the test file
 * (started in `beforeAll`, reset to `config` before each test, closed in `afterAll`), credentials pointing at
 * it, `run` (a function under a real n8n ExecuteContext with those credentials, or others) and `caught` (the
 * error such a function throws, exactly as it was thrown). Not a test file itself.
 */
import type { IExecuteFunctions, NodeApiError, NodeOperationError } from 'n8n-workflow';

import { startSandbox } from '../../sandbox';
import type { Sandbox, SandboxConfig } from '../../sandbox';
import { withExecuteContext } from './engine';
import type { RunComfyCredentialData } from './engine';
import { credentialsFor, lazySandbox } from './sandboxSetup';

export interface TransportSuite {
	/** Stands for the suite's sandbox from the first hook on (use it inside tests and hooks only). */
	sb: Sandbox;
	/** The suite's credentials with `over` applied. */
	credentials: (over?: Partial<RunComfyCredentialData>) => RunComfyCredentialData;
	run: <T>(fn: (ctx: IExecuteFunctions) => Promise<T>, credentials?: RunComfyCredentialData) => Promise<T>;
	caught: (
		fn: (ctx: IExecuteFunctions) => Promise<unknown>,
		credentials?: RunComfyCredentialData,
	) => Promise<NodeApiError & NodeOperationError>;
}

export function useTransportSandbox(options: {
	config: SandboxConfig;
	/** Changes to the credentials (e.g. a base URL with a trailing slash, to prove it is normalised). */
	credentials?: (sb: Sandbox) => Partial<RunComfyCredentialData>;
	/** Runs before each test, after the sandbox reset. */
	beforeEach?: () => void;
}): TransportSuite {
	let current: Sandbox | undefined;
	const sb = lazySandbox(() => current);

	beforeAll(async () => {
		current = await startSandbox(options.config);
	});

	afterAll(async () => {
		await sb.close();
	});

	beforeEach(() => {
		sb.reset(options.config);
		options.beforeEach?.();
	});

	const credentials = (over: Partial<RunComfyCredentialData> = {}): RunComfyCredentialData =>
		credentialsFor(sb, { ...options.credentials?.(sb), ...over });

	const run = async <T>(fn: (ctx: IExecuteFunctions) => Promise<T>, creds = credentials()): Promise<T> =>
		await withExecuteContext({ credentials: creds }, fn);

	// Caught inside the execute context: the error as `fn` threw it, before n8n's engine handles it.
	const caught = async (
		fn: (ctx: IExecuteFunctions) => Promise<unknown>,
		creds = credentials(),
	): Promise<NodeApiError & NodeOperationError> => {
		const error = await run(async (ctx) => {
			try {
				await fn(ctx);
			} catch (e) {
				return e;
			}
			return undefined;
		}, creds);
		if (!error) throw new Error('expected an error');
		return error as NodeApiError & NodeOperationError;
	};

	return { sb, credentials, run, caught };
}
