/**
 * Model API endpoints of the shared transport against the sandbox over loopback, with a real n8n
 * ExecuteContext (helpers, credentials and authentication are n8n's own).
 */
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import {
	cancelModelRequest,
	getModel,
	getModelRequestResult,
	getModelRequestStatus,
	listCategories,
	listModels,
	submitModelRun,
} from '../../../nodes/shared/transport';
import type { RequestLogEntry } from '../../../sandbox';
import { useTransportSandbox } from '../../helpers/transportSetup';

const FLUX = 'blackforestlabs/flux-2/flash/text-to-image';

const { sb, run, caught } = useTransportSandbox({
	config: { runDurationMs: 50, queueMs: 10 },
	credentials: (box) => ({ modelApiBaseUrl: `${box.urls.modelApi}/` }),
});

const apiEntries = (): RequestLogEntry[] => sb.log().filter((e) => e.api === 'model');

describe('catalog', () => {
	it('lists models with every query parameter on the Model API host', async () => {
		const list = await run(
			async (ctx) =>
				await listModels(ctx, { search: ' flux ', category: 'text-to-image', kind: 'model', includeSchema: true, limit: 5, offset: 1 }),
		);
		expect(list.models.length).toBeGreaterThan(0);
		expect(list.models.length).toBeLessThanOrEqual(5);
		expect(list.offset).toBe(1);
		expect(list.limit).toBe(5);
		expect(typeof list.total).toBe('number');
		for (const m of list.models) {
			expect(m.categories).toContain('text-to-image');
			expect(m.input_schema).toBeDefined();
		}
		const [entry] = apiEntries();
		expect(entry).toMatchObject({
			method: 'GET',
			path: '/v1/models',
			query: { search: 'flux', category: 'text-to-image', kind: 'model', include_schema: 'true', limit: '5', offset: '1' },
			status: 200,
			authorization: `Bearer ${sb.token}`,
		});
	});

	it('sends no optional parameter that was not given', async () => {
		const list = await run(async (ctx) => await listModels(ctx, {}));
		expect(list.models.length).toBeGreaterThan(0);
		expect(list.models[0].input_schema).toBeUndefined();
		expect(apiEntries()[0].query).toEqual({});
	});

	it('refuses an out-of-range limit or offset before sending anything', async () => {
		const e1 = await caught(async (ctx) => await listModels(ctx, { limit: 501 }));
		const e2 = await caught(async (ctx) => await listModels(ctx, { offset: -1 }));
		expect(e1).toBeInstanceOf(NodeOperationError);
		expect(e1.description).toMatch(/1 to 500/);
		expect(e2).toBeInstanceOf(NodeOperationError);
		expect(apiEntries()).toHaveLength(0);
	});

	it('lists the categories', async () => {
		const categories = await run(async (ctx) => await listCategories(ctx));
		expect(categories).toContain('text-to-image');
		expect(categories.every((c) => typeof c === 'string')).toBe(true);
		expect(apiEntries()[0]).toMatchObject({ method: 'GET', path: '/v1/models/categories', status: 200 });
	});

	it('gets one model with its schema; slashes stay path segments, surrounding spaces and slashes are trimmed', async () => {
		const model = await run(async (ctx) => await getModel(ctx, `  /${FLUX}/ `));
		expect(model.model_id).toBe(FLUX);
		expect(model.input_schema?.properties?.prompt).toBeDefined();
		expect(apiEntries()[0]).toMatchObject({ method: 'GET', path: `/v1/models/${FLUX}`, status: 200 });
	});

	it('maps an unknown model to 404001 ResourceNotFound with the "use the id as listed" hint', async () => {
		const error = await caught(async (ctx) => await getModel(ctx, 'blackforestlabs/flux-9/does-not-exist'));
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.httpCode).toBe('404');
		expect(error.message).toContain('404001 ResourceNotFound');
		expect(error.message).toContain('blackforestlabs/flux-9/does-not-exist');
		expect(error.description).toMatch(/model id exactly as listed by Get Many Models/);
		expect(error.context.errorCode).toBe('404001');
	});

	it('sends no request for an invalid model id', async () => {
		for (const bad of ['', '  ', 'a//b', 'a/../b', 'a/b?x', 'a/b#c', 'a\\b']) {
			const error = await caught(async (ctx) => await getModel(ctx, bad));
			expect(error).toBeInstanceOf(NodeOperationError);
			expect(error.description).toMatch(/Get Many Models/);
		}
		const submitError = await caught(async (ctx) => await submitModelRun(ctx, 'a/./b', { prompt: 'x' }, 2));
		expect(submitError).toBeInstanceOf(NodeOperationError);
		expect(submitError.context.itemIndex).toBe(2);
		expect(apiEntries()).toHaveLength(0);
		expect(sb.state().runs).toHaveLength(0);
	});
});

describe('runs', () => {
	it('submits the flat body once, then reads status, result with cost, and cancels', async () => {
		const body = { prompt: 'a red fox', num_images: 1, output_format: 'png' };
		const out = await run(async (ctx) => {
			const handle = await submitModelRun(ctx, FLUX, body, 0);
			const status = await getModelRequestStatus(ctx, handle.request_id);
			return { handle, status };
		});
		expect(typeof out.handle.request_id).toBe('string');
		expect(out.handle.status_url).toContain(`/v1/requests/${out.handle.request_id}/status`);
		expect(['in_queue', 'in_progress', 'completed']).toContain(out.status.status);
		const [submit, status] = apiEntries();
		expect(submit).toMatchObject({ method: 'POST', path: `/v1/models/${FLUX}`, body, status: 200, createdId: out.handle.request_id });
		expect(status).toMatchObject({ method: 'GET', path: `/v1/requests/${out.handle.request_id}/status` });
		expect(sb.state().runs).toHaveLength(1);
	});

	it('fetches the result with include_cost=true', async () => {
		sb.configure({ queueMs: 0, modelDurations: { [FLUX]: 0 } });
		const result = await run(async (ctx) => {
			const handle = await submitModelRun(ctx, FLUX, { prompt: 'x' });
			return await getModelRequestResult(ctx, handle.request_id, { includeCost: true });
		});
		expect(result.status).toBe('succeeded');
		expect(result.cost).toBeCloseTo(0.04);
		const entry = apiEntries().find((e) => e.path.endsWith('/result'));
		expect(entry).toMatchObject({ method: 'GET', query: { include_cost: 'true' } });
	});

	it('fetches the result without include_cost when not asked', async () => {
		sb.configure({ queueMs: 0, modelDurations: { [FLUX]: 0 } });
		const result = await run(async (ctx) => {
			const handle = await submitModelRun(ctx, FLUX, { prompt: 'x' });
			return await getModelRequestResult(ctx, handle.request_id);
		});
		expect(result.cost).toBeUndefined();
		expect(apiEntries().find((e) => e.path.endsWith('/result'))?.query).toEqual({});
	});

	it('cancels a queued run (POST .../cancel)', async () => {
		sb.configure({ queueMs: 60_000 });
		const outcome = await run(async (ctx) => {
			const handle = await submitModelRun(ctx, FLUX, { prompt: 'x' });
			return { handle, cancel: await cancelModelRequest(ctx, handle.request_id) };
		});
		expect(outcome.cancel.outcome).toBe('cancelled');
		expect(apiEntries()[1]).toMatchObject({ method: 'POST', path: `/v1/requests/${outcome.handle.request_id}/cancel` });
	});

	it('sends an empty input object as {} and renders the 422 detail (which inputs failed)', async () => {
		const error = await caught(async (ctx) => await submitModelRun(ctx, FLUX, {}));
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.httpCode).toBe('422');
		expect(error.message).toContain('422001');
		expect(error.description).toMatch(/These inputs were rejected: .*prompt/);
		expect(error.description).not.toMatch(/body\.prompt/);
		const [entry] = apiEntries();
		expect(entry).toMatchObject({ method: 'POST', path: `/v1/models/${FLUX}`, body: {}, status: 422 });
	});

	it('renders several failing inputs', async () => {
		const error = await caught(async (ctx) => await submitModelRun(ctx, FLUX, { prompt: 'x', guidance_scale: 99, unknown_input: 1 }));
		expect(error.description).toMatch(/guidance_scale/);
		expect(error.description).toMatch(/unknown_input/);
		expect(apiEntries()).toHaveLength(1);
	});

	it('maps InsufficientResources (400002) to "top up the balance"', async () => {
		sb.configure({ walletMicrodollars: 0 });
		const error = await caught(async (ctx) => await submitModelRun(ctx, FLUX, { prompt: 'x' }));
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toContain('400002 InsufficientResources');
		expect(error.description).toMatch(/Top up the balance at https:\/\/www\.runcomfy\.com/);
		expect(apiEntries()).toHaveLength(1);
	});

	it('maps an unknown request id to a 404 naming the request id', async () => {
		const error = await caught(async (ctx) => await getModelRequestStatus(ctx, 'no-such-request'));
		expect(error.httpCode).toBe('404');
		expect(error.description).toMatch(/No Model API request "no-such-request"/);
		expect(apiEntries()[0].path).toBe('/v1/requests/no-such-request/status');
	});

	it('sends no request for an invalid request id', async () => {
		for (const fn of [getModelRequestStatus, getModelRequestResult, cancelModelRequest]) {
			const error = await caught(async (ctx) => await fn(ctx, 'a/b'));
			expect(error).toBeInstanceOf(NodeOperationError);
			expect(error.message).toContain('request id');
		}
		expect(apiEntries()).toHaveLength(0);
	});
});
