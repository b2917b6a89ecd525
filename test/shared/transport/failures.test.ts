/**
 * Failure handling of the shared transport against the sandbox over loopback: retries (429 with Retry-After,
 * 5xx, dropped connections, timeouts) and paid submissions that must not be repeated.
 */
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import {
	apiRequest,
	getBalance,
	getModel,
	getModelRequestStatus,
	listModels,
	parseRetryAfter,
	submitDeploymentInference,
	submitModelRun,
	submitTrainingJob,
} from '../../../nodes/shared/transport';
import { setRetryPolicy } from '../../../nodes/shared/transport/request';
import { BASE, FLUX, T2I, apiCalls, closedPort, expectNoToken, readyDataset, useFailureSandbox, yamlConfig } from './failures-setup';

const { sb, run, caught, credentials } = useFailureSandbox();

describe('retries of reads and polls', () => {
	it('retries a poll hit by 429s, honouring Retry-After, until it succeeds', async () => {
		const rid = await run(async (ctx) => (await submitModelRun(ctx, FLUX, { prompt: 'x' })).request_id);
		// Seed 7 rolls 0.01, 0.06, 0.98: two 429s, then a pass.
		sb.configure({ faults: { rate429: 0.5, retryAfterSeconds: 1, seed: 7, pathPrefixes: ['/v1/requests/'] } });
		sb.clearLog();
		const status = await run(async (ctx) => await getModelRequestStatus(ctx, rid));
		expect(status.request_id).toBe(rid);
		expect(apiCalls(sb).map((e) => e.status)).toEqual([429, 429, 200]);
		expect(apiCalls(sb).every((e) => e.path === `/v1/requests/${rid}/status`)).toBe(true);
	});

	it('retries a read on 5xx and on a dropped connection', async () => {
		// Seed 8 rolls 0.16, 0.63: one fault, then a pass.
		sb.configure({ faults: { rate5xx: 0.5, seed: 8, pathPrefixes: ['/v1/models'] } });
		const list = await run(async (ctx) => await listModels(ctx, { limit: 1 }));
		expect(list.models).toHaveLength(1);
		expect(apiCalls(sb).map((e) => e.status)).toEqual([500, 200]);

		sb.reset({ ...BASE, faults: { rateDrop: 0.5, seed: 8, pathPrefixes: ['/prod/v2/balance'] } });
		const balance = await run(async (ctx) => await getBalance(ctx));
		expect(balance.balance_microdollars).toBe(5_000_000);
		expect(apiCalls(sb).map((e) => e.fault ?? e.status)).toEqual(['drop', 200]);
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
		expect(apiCalls(sb)).toHaveLength(4);
	});

	it('gives up at once when Retry-After asks for longer than the cap, saying how long', async () => {
		sb.configure({ faults: { rate429: 1, retryAfterSeconds: 60, pathPrefixes: ['/v1/models'] } });
		const error = await caught(async (ctx) => await getModel(ctx, FLUX));
		expect(error.httpCode).toBe('429');
		expect(error.message).toMatch(/asked to wait 60 s/);
		expect(error.description).toMatch(/Wait at least 60 s/);
		expect(error.context.retryAfterMs).toBe(60_000);
		expect(apiCalls(sb)).toHaveLength(1);
	});

	it('retries a read that timed out', async () => {
		// Seed 8: the first request is slow (10 s, far past our 2 s timeout), the second is not (and answers well
		// within 2 s however loaded the machine).
		sb.configure({ faults: { rateSlow: 0.5, slowMs: 10_000, seed: 8, pathPrefixes: ['/prod/v2/balance'] } });
		const balance = await run(
			async (ctx) => await apiRequest(ctx, { family: 'serverless', method: 'GET', path: '/prod/v2/balance', timeoutMs: 2000 }),
		);
		expect(balance).toMatchObject({ balance_microdollars: 5_000_000 });
		expect(apiCalls(sb).map((e) => e.fault ?? 'none')).toEqual(['slow', 'none']);
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
		const submits = apiCalls(sb).filter((e) => e.method === 'POST');
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
		sb.configure({
			faults: { rateDrop: 1, paidFaultTiming: 'after', pathPrefixes: ['/prod/v2/deployments/', '/prod/v1/trainers/ai-toolkit/jobs'] },
		});
		sb.clearLog();
		const e1 = await caught(async (ctx) => await submitDeploymentInference(ctx, T2I, { overrides: { '6': { inputs: { text: 'x' } } } }));
		const e2 = await caught(
			async (ctx) =>
				await submitTrainingJob(ctx, { configFile: yamlConfig('dog_lora', 'dogs'), configFormat: 'yaml', gpuType: 'ADA_80_PLUS' }),
		);
		for (const e of [e1, e2]) {
			expect(e.message).toMatch(/may have been accepted: the connection dropped/);
			expect(e.context.mayHaveBeenAccepted).toBe(true);
		}
		expect(e1.description).toMatch(/requests of this deployment/);
		expect(e2.description).toMatch(/training jobs/);
		const posts = apiCalls(sb).filter((e) => e.method === 'POST');
		expect(posts.map((e) => e.path)).toEqual([`/prod/v2/deployments/${T2I}/inference`, '/prod/v1/trainers/ai-toolkit/jobs']);
		expect(posts.every((e) => typeof e.createdId === 'string')).toBe(true);
		expect(sb.state().runs).toHaveLength(1);
		expect(sb.state().jobs).toHaveLength(1);
	});

	it('does NOT repeat a paid submit that timed out', async () => {
		sb.configure({ faults: { rateSlow: 1, slowMs: 1500, pathPrefixes: ['/v1/models/'] } });
		const error = await caught(
			async (ctx) =>
				await apiRequest(ctx, {
					family: 'model',
					method: 'POST',
					path: `/v1/models/${FLUX}`,
					body: { prompt: 'x' },
					paid: true,
					operation: 'model run',
					timeoutMs: 300,
				}),
		);
		expect(error.message).toMatch(/model run may have been accepted: the request timed out/);
		expect(apiCalls(sb)).toHaveLength(1);
	});

	it('repeats a paid submit refused with 429 (provably not accepted): one run in the end', async () => {
		// Seed 8 rolls 0.16, 0.63: one 429, then a pass.
		sb.configure({ faults: { rate429: 0.5, retryAfterSeconds: 1, seed: 8, pathPrefixes: ['/v1/models/'] } });
		const handle = await run(async (ctx) => await submitModelRun(ctx, FLUX, { prompt: 'x' }));
		const submits = apiCalls(sb).filter((e) => e.method === 'POST');
		expect(submits.map((e) => e.status)).toEqual([429, 200]);
		expect(submits[1].createdId).toBe(handle.request_id);
		expect(sb.state().runs).toHaveLength(1);
	});

	it('repeats a paid submit whose connection was refused (nothing was sent), then reports the network problem', async () => {
		const port = await closedPort();
		const previous = setRetryPolicy({ baseDelayMs: 5 });
		let error: NodeApiError & NodeOperationError;
		try {
			error = await caught(
				async (ctx) => await submitModelRun(ctx, FLUX, { prompt: 'x' }),
				credentials({ modelApiBaseUrl: `http://127.0.0.1:${port}` }),
			);
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
