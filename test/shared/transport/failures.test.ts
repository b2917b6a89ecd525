/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals */
/**
 * Failure handling of the shared transport against the sandbox over loopback: retries (429 with
 * Retry-After, 5xx, dropped connections), paid submissions that must not be repeated, the HTTP-200-with-
 * error_code quirk, 401, stopping during a retry wait, and the token never appearing in any error.
 */
import { createServer } from 'net';

import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import {
	apiRequest,
	getBalance,
	getModel,
	getModelRequestStatus,
	listModels,
	parseRetryAfter,
	setRetryPolicy,
	submitDeploymentInference,
	submitModelRun,
	submitTrainingJob,
	createDataset,
	uploadDatasetText,
} from '../../../nodes/shared/transport';
import { startSandbox } from '../../../sandbox';
import type { RequestLogEntry, Sandbox, SandboxConfig } from '../../../sandbox';
import { withExecuteContext } from '../../helpers/engine';

const FLUX = 'blackforestlabs/flux-2/flash/text-to-image';
const T2I = '5f0c3a52-6b1e-4c8e-9a0d-2d4f7b8e1a01';
const BASE: SandboxConfig = { runDurationMs: 50, queueMs: 10, datasetReadyMs: 0 };

let sb: Sandbox;

beforeAll(async () => {
	sb = await startSandbox(BASE);
});

afterAll(async () => {
	await sb.close();
});

beforeEach(() => sb.reset(BASE));

type Creds = ReturnType<typeof credentials>;
const credentials = (over: Partial<{ accessToken: string; modelApiBaseUrl: string; serverlessApiBaseUrl: string }> = {}) => ({
	accessToken: sb.token,
	modelApiBaseUrl: sb.urls.modelApi,
	serverlessApiBaseUrl: sb.urls.serverless,
	trainerApiBaseUrl: sb.urls.trainer,
	allowedDownloadHosts: '127.0.0.1',
	...over,
});

const run = async <T>(fn: (ctx: IExecuteFunctions) => Promise<T>, creds: Creds = credentials()): Promise<T> =>
	await withExecuteContext({ credentials: creds }, fn);

/** Runs fn in a real execute context and returns the error it threw, exactly as the transport threw it. */
const caught = async (
	fn: (ctx: IExecuteFunctions) => Promise<unknown>,
	creds: Creds = credentials(),
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

const api = (): RequestLogEntry[] => sb.log().filter((e) => ['model', 'serverless', 'trainer'].includes(e.api));

/** Every string reachable from a value: own properties (enumerable or not), prototype-less walk, cycles cut. */
function allStrings(value: unknown, seen = new Set<unknown>(), out: string[] = []): string[] {
	if (typeof value === 'string') {
		out.push(value);
		return out;
	}
	if ((typeof value !== 'object' && typeof value !== 'function') || value === null || seen.has(value)) return out;
	seen.add(value);
	for (const key of Object.getOwnPropertyNames(value)) {
		out.push(key);
		let v: unknown;
		try {
			v = (value as Record<string, unknown>)[key];
		} catch {
			continue;
		}
		allStrings(v, seen, out);
	}
	if (value instanceof Map) for (const [k, v] of value) allStrings([k, v], seen, out);
	return out;
}

function expectNoToken(error: unknown, token: string): void {
	const strings = allStrings(error);
	expect(strings.length).toBeGreaterThan(3);
	expect(strings.filter((s) => s.includes(token))).toEqual([]);
	expect(JSON.stringify(error)).not.toContain(token);
	expect(String(error)).not.toContain(token);
}

const yamlConfig = (name: string, dataset: string) =>
	[
		'config:',
		`  name: ${name}`,
		'  process:',
		'    - training_folder: /app/ai-toolkit/output',
		'      datasets:',
		`        - folder_path: /app/ai-toolkit/datasets/${dataset}`,
		'      train:',
		'        steps: 4',
		'',
	].join('\n');

/** A READY dataset, so a training config can mount it. */
async function readyDataset(ctx: IExecuteFunctions, name: string): Promise<void> {
	const ds = await createDataset(ctx, name);
	await uploadDatasetText(ctx, ds.id, 'a.txt', 'caption');
}

async function closedPort(): Promise<number> {
	const server = createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
	const address = server.address();
	const port = typeof address === 'object' && address ? address.port : 0;
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return port;
}

describe('retries of reads and polls', () => {
	it('retries a poll hit by 429s, honouring Retry-After, until it succeeds', async () => {
		const rid = await run(async (ctx) => (await submitModelRun(ctx, FLUX, { prompt: 'x' })).request_id);
		// Seed 7 rolls 0.01, 0.06, 0.98: two 429s, then a pass.
		sb.configure({ faults: { rate429: 0.5, retryAfterSeconds: 1, seed: 7, pathPrefixes: ['/v1/requests/'] } });
		sb.clearLog();
		const status = await run(async (ctx) => await getModelRequestStatus(ctx, rid));
		expect(status.request_id).toBe(rid);
		expect(api().map((e) => e.status)).toEqual([429, 429, 200]);
		expect(api().every((e) => e.path === `/v1/requests/${rid}/status`)).toBe(true);
	});

	it('retries a read on 5xx and on a dropped connection', async () => {
		// Seed 8 rolls 0.16, 0.63: one fault, then a pass.
		sb.configure({ faults: { rate5xx: 0.5, seed: 8, pathPrefixes: ['/v1/models'] } });
		const list = await run(async (ctx) => await listModels(ctx, { limit: 1 }));
		expect(list.models).toHaveLength(1);
		expect(api().map((e) => e.status)).toEqual([500, 200]);

		sb.reset({ ...BASE, faults: { rateDrop: 0.5, seed: 8, pathPrefixes: ['/prod/v2/balance'] } });
		const balance = await run(async (ctx) => await getBalance(ctx));
		expect(balance.balance_microdollars).toBe(5_000_000);
		expect(api().map((e) => e.fault ?? e.status)).toEqual(['drop', 200]);
	});

	it('gives up after the attempt limit with the service error and a "try again" hint', async () => {
		sb.configure({ faults: { rate5xx: 1, pathPrefixes: ['/v1/models'] } });
		const previous = setRetryPolicy({ baseDelayMs: 5 });
		try {
			const error = await caught(async (ctx) => await getModel(ctx, FLUX));
			expect(error).toBeInstanceOf(NodeApiError);
			expect(error.httpCode).toBe('500');
			expect(error.message).toContain('500001');
			expect(error.description).toMatch(/Try again in a moment/);
		} finally {
			setRetryPolicy(previous);
		}
		expect(api()).toHaveLength(4);
	});

	it('gives up at once when Retry-After asks for longer than the cap, saying how long', async () => {
		sb.configure({ faults: { rate429: 1, retryAfterSeconds: 60, pathPrefixes: ['/v1/models'] } });
		const error = await caught(async (ctx) => await getModel(ctx, FLUX));
		expect(error.httpCode).toBe('429');
		expect(error.message).toMatch(/asked to wait 60 s/);
		expect(error.description).toMatch(/Wait at least 60 s/);
		expect(error.context.retryAfterMs).toBe(60_000);
		expect(api()).toHaveLength(1);
	});

	it('retries a read that timed out', async () => {
		// Seed 8: the first request is slow (past our 300 ms timeout), the second is not.
		sb.configure({ faults: { rateSlow: 0.5, slowMs: 1500, seed: 8, pathPrefixes: ['/prod/v2/balance'] } });
		const balance = await run(async (ctx) => await apiRequest(ctx, { family: 'serverless', method: 'GET', path: '/prod/v2/balance', timeoutMs: 300 }));
		expect(balance).toMatchObject({ balance_microdollars: 5_000_000 });
		expect(api().map((e) => e.fault ?? 'none')).toEqual(['slow', 'none']);
	});

	it('parses Retry-After as seconds or as an HTTP date', () => {
		const now = Date.parse('2026-01-01T00:00:00Z');
		expect(parseRetryAfter('3', now)).toBe(3000);
		expect(parseRetryAfter('0.5', now)).toBe(500);
		expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:07 GMT', now)).toBe(7000);
		expect(parseRetryAfter('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
		expect(parseRetryAfter('soon', now)).toBeUndefined();
		expect(parseRetryAfter(undefined, now)).toBeUndefined();
	});
});

describe('paid submissions', () => {
	it('does NOT repeat a model run whose answer was lost to a 5xx: exactly one submit reached the service', async () => {
		sb.configure({ faults: { rate5xx: 1, paidFaultTiming: 'after', pathPrefixes: ['/v1/models/'] } });
		const error = await caught(async (ctx) => await submitModelRun(ctx, FLUX, { prompt: 'x' }, 4));
		const submits = api().filter((e) => e.method === 'POST');
		expect(submits).toHaveLength(1);
		expect(submits[0]).toMatchObject({ status: 500, fault: '5xx' });
		expect(typeof submits[0].createdId).toBe('string');
		expect(sb.state().runs).toHaveLength(1);
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toMatch(/model run .* may have been accepted/);
		expect(error.description).toMatch(/NOT sent again automatically, to avoid paying twice/);
		expect(error.description).toMatch(/check your recent requests on runcomfy\.com/);
		expect(error.context.mayHaveBeenAccepted).toBe(true);
		expect(error.context.itemIndex).toBe(4);
	});

	it('does NOT repeat a deployment inference or a training submit hit by a dropped connection', async () => {
		await run(async (ctx) => await readyDataset(ctx, 'dogs'));
		sb.configure({ faults: { rateDrop: 1, paidFaultTiming: 'after', pathPrefixes: ['/prod/v2/deployments/', '/prod/v1/trainers/ai-toolkit/jobs'] } });
		sb.clearLog();
		const e1 = await caught(async (ctx) => await submitDeploymentInference(ctx, T2I, { overrides: { '6': { inputs: { text: 'x' } } } }));
		const e2 = await caught(async (ctx) =>
			await submitTrainingJob(ctx, { configFile: yamlConfig('dog_lora', 'dogs'), configFormat: 'yaml', gpuType: 'ADA_80_PLUS' }),
		);
		for (const e of [e1, e2]) {
			expect(e.message).toMatch(/may have been accepted: the connection dropped/);
			expect(e.context.mayHaveBeenAccepted).toBe(true);
		}
		expect(e1.description).toMatch(/requests of this deployment/);
		expect(e2.description).toMatch(/training jobs/);
		const posts = api().filter((e) => e.method === 'POST');
		expect(posts.map((e) => e.path)).toEqual([`/prod/v2/deployments/${T2I}/inference`, '/prod/v1/trainers/ai-toolkit/jobs']);
		expect(posts.every((e) => typeof e.createdId === 'string')).toBe(true);
		expect(sb.state().runs).toHaveLength(1);
		expect(sb.state().jobs).toHaveLength(1);
	});

	it('does NOT repeat a paid submit that timed out', async () => {
		sb.configure({ faults: { rateSlow: 1, slowMs: 1500, pathPrefixes: ['/v1/models/'] } });
		const error = await caught(async (ctx) =>
			await apiRequest(ctx, { family: 'model', method: 'POST', path: `/v1/models/${FLUX}`, body: { prompt: 'x' }, paid: true, operation: 'model run', timeoutMs: 300 }),
		);
		expect(error.message).toMatch(/model run may have been accepted: the request timed out/);
		expect(api()).toHaveLength(1);
	});

	it('repeats a paid submit refused with 429 (provably not accepted): one run in the end', async () => {
		// Seed 8 rolls 0.16, 0.63: one 429, then a pass.
		sb.configure({ faults: { rate429: 0.5, retryAfterSeconds: 1, seed: 8, pathPrefixes: ['/v1/models/'] } });
		const handle = await run(async (ctx) => await submitModelRun(ctx, FLUX, { prompt: 'x' }));
		const submits = api().filter((e) => e.method === 'POST');
		expect(submits.map((e) => e.status)).toEqual([429, 200]);
		expect(submits[1].createdId).toBe(handle.request_id);
		expect(sb.state().runs).toHaveLength(1);
	});

	it('repeats a paid submit whose connection was refused (nothing was sent), then reports the network problem', async () => {
		const port = await closedPort();
		const previous = setRetryPolicy({ baseDelayMs: 5 });
		let error: NodeApiError & NodeOperationError;
		try {
			error = await caught(async (ctx) => await submitModelRun(ctx, FLUX, { prompt: 'x' }), credentials({ modelApiBaseUrl: `http://127.0.0.1:${port}` }));
		} finally {
			setRetryPolicy(previous);
		}
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toMatch(/Could not reach RunComfy at http:\/\/127\.0\.0\.1:\d+: the connection was refused/);
		expect(error.message).not.toMatch(/may have been accepted/);
		expect(error.context.attempts).toBe(4);
		expect(error.context.code).toBe('ECONNREFUSED');
		expectNoToken(error, sb.token);
	});
});

describe('service answers', () => {
	it('treats HTTP 200 with an error_code as an error (live quirk)', async () => {
		sb.configure({ quirks: { errorsAsHttp200: true }, walletMicrodollars: 0 });
		const notFound = await caught(async (ctx) => await getModel(ctx, 'nobody/nothing'));
		expect(notFound).toBeInstanceOf(NodeApiError);
		expect(notFound.httpCode).toBe('404');
		expect(notFound.context.httpStatus).toBe(200);
		expect(notFound.message).toContain('404001 ResourceNotFound');
		expect(notFound.description).toMatch(/exactly as listed by Get Many Models/);

		const broke = await caught(async (ctx) => await submitModelRun(ctx, FLUX, { prompt: 'x' }));
		expect(broke.message).toContain('400002 InsufficientResources');
		expect(broke.description).toMatch(/Top up the balance/);

		const invalid = await caught(async (ctx) => await submitModelRun(ctx, FLUX, {}));
		expect(invalid.httpCode).toBe('422');
		expect(invalid.description).toMatch(/These inputs were rejected: prompt/);
		expect(api().map((e) => e.status)).toEqual([200, 200, 200]);
	});

	it('maps 401 to "check the access token in the credential", without the token anywhere', async () => {
		const wrong = 'wrong-token-abcdef123456';
		const error = await caught(async (ctx) => await getBalance(ctx), credentials({ accessToken: wrong }));
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.httpCode).toBe('401');
		expect(error.message).toContain('401001 Unauthorized');
		expect(error.description).toMatch(/paste the current token from your RunComfy profile page/);
		expect(api()[0]).toMatchObject({ status: 401, authorization: `Bearer ${wrong}` });
		expectNoToken(error, wrong);
	});

	it('maps 402 to "top up the balance" (trainer InsufficientFunds)', async () => {
		await run(async (ctx) => await readyDataset(ctx, 'cats'));
		sb.configure({ walletMicrodollars: 0 });
		const error = await caught(async (ctx) =>
			await submitTrainingJob(ctx, { configFile: yamlConfig('cat_lora', 'cats'), configFormat: 'yaml', gpuType: 'ADA_80_PLUS' }),
		);
		expect(error.httpCode).toBe('402');
		expect(error.description).toMatch(/Top up the balance/);
	});
});

describe('the token never appears in an error', () => {
	it('is scrubbed from errors although n8n attaches the request (with Authorization) to its own', async () => {
		const port = await closedPort();
		const creds = credentials({ serverlessApiBaseUrl: `http://127.0.0.1:${port}` });
		// n8n's own error for this request carries the Authorization header...
		const raw = await run(async (ctx) => {
			try {
				await ctx.helpers.httpRequestWithAuthentication.call(ctx, 'runComfyApi', { method: 'GET', url: `http://127.0.0.1:${port}/prod/v2/balance` });
			} catch (error) {
				return allStrings(error).some((s) => s.includes(sb.token));
			}
			return false;
		}, creds);
		expect(raw).toBe(true);
		// ...ours does not.
		const previous = setRetryPolicy({ baseDelayMs: 1 });
		try {
			const error = await caught(async (ctx) => await getBalance(ctx), creds);
			expect(error.message).toMatch(/connection was refused/);
			expectNoToken(error, sb.token);
		} finally {
			setRetryPolicy(previous);
		}
	});

	it('is absent from API errors, paid "may have been accepted" errors and rate-limit errors', async () => {
		const errors: unknown[] = [];
		errors.push(await caught(async (ctx) => await getModel(ctx, 'nobody/nothing')));
		errors.push(await caught(async (ctx) => await submitModelRun(ctx, FLUX, {})));
		sb.configure({ faults: { rate5xx: 1, paidFaultTiming: 'after', pathPrefixes: ['/v1/models/'] } });
		errors.push(await caught(async (ctx) => await submitModelRun(ctx, FLUX, { prompt: 'x' })));
		sb.configure({ faults: { rate5xx: 0, rate429: 1, retryAfterSeconds: 3600, pathPrefixes: [] } });
		errors.push(await caught(async (ctx) => await getBalance(ctx)));
		expect(errors).toHaveLength(4);
		for (const error of errors) {
			expect(error).toBeInstanceOf(NodeApiError);
			expectNoToken(error, sb.token);
		}
	});
});

describe('stopping the execution', () => {
	it('stops waiting for a retry when the execution is stopped, and sends nothing more', async () => {
		sb.configure({ faults: { rate429: 1, retryAfterSeconds: 8, pathPrefixes: ['/v1/requests/'] } });
		let stop: (() => void) | undefined;
		let error: unknown;
		try {
			await withExecuteContext(
				{ credentials: credentials(), onStart: (s) => (stop = s) },
				async (ctx) => {
					const pending = getModelRequestStatus(ctx, 'rid-1');
					pending.catch(() => undefined);
					// Wait (without timers) until the sandbox answered the first 429, then press Stop.
					while (!api().some((e) => e.status === 429)) await new Promise((resolve) => setImmediate(resolve));
					stop?.();
					return await pending;
				},
			);
		} catch (e) {
			error = e;
		}
		expect(error).toBeInstanceOf(NodeOperationError);
		expect((error as Error).message).toMatch(/execution was stopped/);
		expect(api()).toHaveLength(1);
	});

	it('sends nothing when the execution was already stopped', async () => {
		let error: unknown;
		try {
			await withExecuteContext({ credentials: credentials(), onStart: (stop) => stop() }, async (ctx) => await submitModelRun(ctx, FLUX, { prompt: 'x' }));
		} catch (e) {
			error = e;
		}
		expect((error as Error).message).toMatch(/execution was stopped/);
		// Nothing went out, so nothing can have been accepted.
		expect((error as NodeOperationError).description).toBe('Nothing else was sent.');
		expect(api()).toHaveLength(0);
	});

	it('a paid submit on the wire is not cut off by Stop: it ends with its answer (the run id is not lost)', async () => {
		// The run is created at once, its answer comes 600 ms later; Stop is pressed in between.
		sb.configure({ faults: { rateSlow: 1, slowMs: 600, paidFaultTiming: 'after', methods: ['POST'], pathPrefixes: ['/v1/models/'] } });
		let stop: (() => void) | undefined;
		let stopped = false;
		const handle = await withExecuteContext({ credentials: credentials(), onStart: (s) => (stop = s) }, async (ctx) => {
			const pending = submitModelRun(ctx, FLUX, { prompt: 'x' });
			pending.catch(() => undefined);
			while (!api().some((e) => e.createdId)) await new Promise((resolve) => setImmediate(resolve));
			stop?.();
			stopped = ctx.getExecutionCancelSignal()?.aborted === true;
			return await pending;
		});
		expect(stopped).toBe(true);
		const [submit] = api();
		expect(handle.request_id).toBe(submit.createdId);
		expect(submit.status).toBe(200);
	});

	it('a read on the wire is cut off by Stop', async () => {
		sb.configure({ faults: { rateSlow: 1, slowMs: 5000, pathPrefixes: ['/v1/requests/'] } });
		let stop: (() => void) | undefined;
		let error: unknown;
		try {
			await withExecuteContext({ credentials: credentials(), onStart: (s) => (stop = s) }, async (ctx) => {
				const pending = getModelRequestStatus(ctx, 'rid-1');
				pending.catch(() => undefined);
				while (api().length === 0) await new Promise((resolve) => setImmediate(resolve));
				stop?.();
				return await pending;
			});
		} catch (e) {
			error = e;
		}
		expect((error as Error).message).toMatch(/execution was stopped/);
		expect(api()[0].status).toBe(0);
	});
});
