/** Model API (`{modelApiBaseUrl}/v1/...`): catalog and asynchronous model runs. */
import type { IDataObject } from 'n8n-workflow';

import type { ModelEntry, ModelList, RequestHandle, ResultRecord, RunComfyContext, StatusRecord } from '../types';
import { inputError } from '../errors';
import { encodeId, encodeModelId } from '../ids';
import type { RetryChoice } from '../request';
import { apiRequest } from '../request';
import { asObject, requireRequestId } from './common';

export interface ListModelsQuery {
	search?: string;
	category?: string;
	kind?: string;
	includeSchema?: boolean;
	limit?: number;
	offset?: number;
}

const MODEL_RUN_CHECK =
	'check your recent requests on runcomfy.com (or your balance) to see whether the run was created; if it was, use its request id instead of submitting again.';

export const listModels = async (ctx: RunComfyContext, q: ListModelsQuery = {}): Promise<ModelList> => {
	const node = ctx.getNode();
	const qs: IDataObject = {};
	if (q.search !== undefined && String(q.search).trim() !== '') qs.search = String(q.search).trim();
	if (q.category !== undefined && String(q.category).trim() !== '') qs.category = String(q.category).trim();
	if (q.kind !== undefined && String(q.kind).trim() !== '') qs.kind = String(q.kind).trim();
	if (q.includeSchema) qs.include_schema = 'true';
	if (q.limit !== undefined) {
		if (!Number.isInteger(q.limit) || q.limit < 1 || q.limit > 500) {
			throw inputError(node, `The limit ${q.limit} is out of range`, 'Get Many Models takes a limit from 1 to 500.');
		}
		qs.limit = q.limit;
	}
	if (q.offset !== undefined) {
		if (!Number.isInteger(q.offset) || q.offset < 0) {
			throw inputError(node, `The offset ${q.offset} is out of range`, 'The offset must be a whole number, 0 or more.');
		}
		qs.offset = q.offset;
	}
	const body = await apiRequest<unknown>(ctx, { family: 'model', method: 'GET', path: '/v1/models', qs, operation: 'model list' });
	if (Array.isArray(body)) {
		return { models: body as ModelEntry[], total: body.length, limit: q.limit ?? body.length, offset: q.offset ?? 0 };
	}
	const obj = asObject(body);
	const models = (Array.isArray(obj.models) ? obj.models : []) as ModelEntry[];
	return {
		...obj,
		models,
		total: typeof obj.total === 'number' ? obj.total : models.length + (q.offset ?? 0),
		limit: typeof obj.limit === 'number' ? obj.limit : (q.limit ?? 100),
		offset: typeof obj.offset === 'number' ? obj.offset : (q.offset ?? 0),
	};
};

export const listCategories = async (ctx: RunComfyContext): Promise<string[]> => {
	const body = await apiRequest<unknown>(ctx, {
		family: 'model',
		method: 'GET',
		path: '/v1/models/categories',
		operation: 'category list',
	});
	const list = Array.isArray(body) ? body : asObject(body).categories;
	return Array.isArray(list) ? list.filter((c): c is string => typeof c === 'string') : [];
};

export const getModel = async (ctx: RunComfyContext, modelId: string): Promise<ModelEntry> => {
	const encoded = encodeModelId(modelId, ctx.getNode());
	return await apiRequest<ModelEntry>(ctx, {
		family: 'model',
		method: 'GET',
		path: `/v1/models/${encoded}`,
		subject: { kind: 'model', id: decodeURIComponent(encoded) },
		operation: 'model lookup',
	});
};

/** POST the flat inputs object to the model. Paid: never retried unless provably not accepted. */
export const submitModelRun = async (
	ctx: RunComfyContext,
	modelId: string,
	body: IDataObject,
	itemIndex?: number,
): Promise<RequestHandle> => {
	const node = ctx.getNode();
	const encoded = encodeModelId(modelId, node, itemIndex);
	if (typeof body !== 'object' || body === null || Array.isArray(body)) {
		throw inputError(
			node,
			'The model inputs must be a JSON object',
			'Give the inputs as an object of parameter names and values (a flat object, not wrapped in "input").',
			itemIndex,
		);
	}
	const id = decodeURIComponent(encoded);
	const handle = await apiRequest<unknown>(ctx, {
		family: 'model',
		method: 'POST',
		path: `/v1/models/${encoded}`,
		body,
		paid: true,
		itemIndex,
		subject: { kind: 'model', id },
		operation: `model run of "${id}"`,
		checkHint: MODEL_RUN_CHECK,
	});
	return requireRequestId(ctx, handle, `model run of "${id}"`, MODEL_RUN_CHECK, itemIndex);
};

const requestPath = (ctx: RunComfyContext, requestId: string, suffix: string): { path: string; id: string } => {
	const encoded = encodeId(requestId, 'request id', ctx.getNode());
	return { path: `/v1/requests/${encoded}/${suffix}`, id: decodeURIComponent(encoded) };
};

export const getModelRequestStatus = async (ctx: RunComfyContext, requestId: string, how: RetryChoice = {}): Promise<StatusRecord> => {
	const { path, id } = requestPath(ctx, requestId, 'status');
	return await apiRequest<StatusRecord>(ctx, {
		family: 'model',
		method: 'GET',
		path,
		subject: { kind: 'request', id },
		operation: 'status check',
		retry: how.retry,
	});
};

export const getModelRequestResult = async (
	ctx: RunComfyContext,
	requestId: string,
	opts: { includeCost?: boolean } & RetryChoice = {},
): Promise<ResultRecord> => {
	const { path, id } = requestPath(ctx, requestId, 'result');
	return await apiRequest<ResultRecord>(ctx, {
		family: 'model',
		method: 'GET',
		path,
		qs: opts.includeCost ? { include_cost: 'true' } : undefined,
		subject: { kind: 'request', id },
		operation: 'result fetch',
		retry: opts.retry,
	});
};

/** Cancel a queued model run: `{outcome: 'cancelled' | 'not_cancellable'}`. Idempotent, so retried. */
export const cancelModelRequest = async (ctx: RunComfyContext, requestId: string): Promise<IDataObject> => {
	const { path, id } = requestPath(ctx, requestId, 'cancel');
	const body = await apiRequest<IDataObject | null>(ctx, {
		family: 'model',
		method: 'POST',
		path,
		subject: { kind: 'request', id },
		operation: 'cancel',
		expect: 'jsonOrEmpty',
		// Stop cancels queued runs; this request must not be aborted by that same Stop.
		survivesStop: true,
	});
	return body ?? { request_id: id };
};
