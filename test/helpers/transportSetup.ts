/**
 * The setup the transport suites (test/shared/transport/) share: one sandbox for the test file
 * (started in `beforeAll`, reset to `config` before each test, closed in `afterAll`), credentials pointing at
 * it, `run` (a function under a real n8n ExecuteContext with those credentials) and `caught` (the error such a
 * function throws). Not a test file itself.
 */
import type { IExecuteFunctions, NodeApiError, NodeOperationError } from 'n8n-workflow';

import { startSandbox } from '../../sandbox';
import type { Sandbox, SandboxConfig } from '../../sandbox';
import { withExecuteContext } from './engine';
import type { RunComfyCredentialData } from './engine';
import { lazySandbox } from './sandboxSetup';

export interface TransportSuite {
	/** Stands for the suite's sandbox from the first hook on (use it inside tests and hooks only). */
	sb: Sandbox;
	run: <T>(fn: (ctx: IExecuteFunctions) => Promise<T>) => Promise<T>;
	caught: (fn: (ctx: IExecuteFunctions) => Promise<unknown>) => Promise<NodeApiError & NodeOperationError>;
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

	const credentials = (): RunComfyCredentialData => ({
		accessToken: sb.token,
		modelApiBaseUrl: sb.urls.modelApi,
		serverlessApiBaseUrl: sb.urls.serverless,
		trainerApiBaseUrl: sb.urls.trainer,
		allowedDownloadHosts: '127.0.0.1',
		...options.credentials?.(sb),
	});

	const run = async <T>(fn: (ctx: IExecuteFunctions) => Promise<T>): Promise<T> =>
		await withExecuteContext({ credentials: credentials() }, fn);

	const caught = async (fn: (ctx: IExecuteFunctions) => Promise<unknown>): Promise<NodeApiError & NodeOperationError> => {
		try {
			await run(fn);
		} catch (error) {
			return error as NodeApiError & NodeOperationError;
		}
		throw new Error('expected an error');
	};

	return { sb, run, caught };
}
