/**
 * Serverless deployments (`{serverlessApiBaseUrl}/prod/v2/deployments...`), their inference queue and the
 * instance proxy. The inference queue lives under `/prod/v2` (CLI, webhooks docs) or `/prod/v1` (MCP, Go
 * client, queue docs); v2 is tried first and `/prod/v1` is used when v2 answers 404 (a 404 never starts a
 * run, so this is safe for the paid submit too). The version that worked is remembered per base URL.
 */
import type { IDataObject } from 'n8n-workflow';

import type { Deployment, RequestHandle, ResultRecord, RunComfyContext, StatusRecord } from '../types';
import { getCredentials } from '../credentials';
import { inputError } from '../errors';
import { encodeId, encodeProxyPath } from '../ids';
import type { ApiRequestSpec, RetryChoice } from '../request';
import { apiRequest, apiRequestFull } from '../request';
import { asObject, normaliseList, requireRequestId, withId } from './common';

export interface InferenceBody extends IDataObject {
	overrides?: IDataObject;
	workflow_api_json?: IDataObject;
	extra_data?: IDataObject;
}

export interface DeploymentIncludes {
	includePayload?: boolean;
	includeReadme?: boolean;
}

type QueueVersion = 'v1' | 'v2';

/** Which inference-queue version answered last, per serverless base URL. */
const queueVersionByBase = new Map<string, QueueVersion>();

/** Forget the remembered inference-queue versions (tests, or after changing the base URL). */
export function resetQueueVersionCache(): void {
	queueVersionByBase.clear();
}

const INFERENCE_CHECK =
	'check the requests of this deployment on runcomfy.com to see whether the run was created; if it was, use its request id instead of submitting again.';

/** Live service: repeatable `includes=payload|readme`; contract: `include_payload=true`. Both are sent. */
function includesQs(opts: DeploymentIncludes = {}): IDataObject {
	const includes: string[] = [];
	const qs: IDataObject = {};
	if (opts.includePayload) {
		includes.push('payload');
		qs.include_payload = 'true';
	}
	if (opts.includeReadme) {
		includes.push('readme');
		qs.include_readme = 'true';
	}
	if (includes.length) qs.includes = includes;
	return qs;
}

const deploymentSegment = (ctx: RunComfyContext, id: string, itemIndex?: number): string =>
	encodeId(id, 'deployment id', ctx.getNode(), itemIndex);

const normaliseDeployment = (record: unknown): Deployment => withId<Deployment>(record, 'id', 'deployment_id');

/** Fills `hardware` as the one-element array the service requires when a single SKU string is given. */
function normaliseHardware(body: IDataObject): IDataObject {
	if (typeof body.hardware === 'string' && body.hardware !== '') return { ...body, hardware: [body.hardware] };
	return body;
}

export const listDeployments = async (ctx: RunComfyContext, opts: { ids?: string[] } & DeploymentIncludes = {}): Promise<Deployment[]> => {
	const qs = includesQs(opts);
	const ids = (opts.ids ?? []).map((id) => String(id).trim()).filter((id) => id !== '');
	for (const id of ids) encodeId(id, 'deployment id', ctx.getNode());
	if (ids.length) qs.ids = ids;
	const body = await apiRequest<unknown>(ctx, {
		family: 'serverless',
		method: 'GET',
		path: '/prod/v2/deployments',
		qs,
		operation: 'deployment list',
	});
	return normaliseList<Deployment>(ctx, body, 'deployments', 'deployment list').map(normaliseDeployment);
};

export const getDeployment = async (ctx: RunComfyContext, id: string, opts: DeploymentIncludes = {}): Promise<Deployment> => {
	const seg = deploymentSegment(ctx, id);
	const body = await apiRequest<unknown>(ctx, {
		family: 'serverless',
		method: 'GET',
		path: `/prod/v2/deployments/${seg}`,
		qs: includesQs(opts),
		subject: { kind: 'deployment', id: decodeURIComponent(seg) },
		operation: 'deployment lookup',
	});
	const obj = asObject(body);
	// Some answers wrap the record: { deployment: {...} }.
	return normaliseDeployment(obj.deployment && typeof obj.deployment === 'object' && !obj.id ? obj.deployment : obj);
};

/** Create a deployment. Not repeated after an unclear failure (a repeat would create a second one). */
export const createDeployment = async (ctx: RunComfyContext, body: IDataObject): Promise<Deployment> => {
	if (typeof body !== 'object' || body === null || Array.isArray(body)) {
		throw inputError(
			ctx.getNode(),
			'The deployment settings must be an object',
			'Give name, workflow_id, workflow_version, hardware and scaling settings.',
		);
	}
	const answer = await apiRequest<unknown>(ctx, {
		family: 'serverless',
		method: 'POST',
		path: '/prod/v2/deployments',
		body: normaliseHardware(body),
		retry: 'notAccepted',
		operation: 'deployment creation',
		checkHint: 'list your deployments (Deployment → Get Many) to see whether it was created.',
	});
	const obj = asObject(answer);
	return normaliseDeployment(obj.deployment && typeof obj.deployment === 'object' && !obj.id ? obj.deployment : obj);
};

/** Fills in `name` from the current deployment when the patch lacks it (the service requires it). */
export const updateDeployment = async (ctx: RunComfyContext, id: string, patch: IDataObject): Promise<Deployment> => {
	const node = ctx.getNode();
	const seg = deploymentSegment(ctx, id);
	if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) {
		throw inputError(node, 'The deployment changes must be an object', 'Give only the fields to change, e.g. { "is_enabled": false }.');
	}
	const changes: IDataObject = {};
	for (const [k, v] of Object.entries(patch)) if (v !== undefined) changes[k] = v;
	if (Object.keys(changes).length === 0) {
		throw inputError(node, 'Nothing to update', 'Set at least one field to change (for example Enabled, hardware or scaling).');
	}
	if (typeof changes.name !== 'string' || changes.name.trim() === '') {
		const current = await getDeployment(ctx, id);
		if (typeof current.name !== 'string' || current.name === '') {
			throw inputError(
				node,
				`The deployment "${id}" has no name to keep`,
				'Set the deployment name in the update; the service requires it.',
			);
		}
		changes.name = current.name;
	}
	const answer = await apiRequest<unknown>(ctx, {
		family: 'serverless',
		method: 'PATCH',
		path: `/prod/v2/deployments/${seg}`,
		body: normaliseHardware(changes),
		subject: { kind: 'deployment', id: decodeURIComponent(seg) },
		operation: 'deployment update',
	});
	const obj = asObject(answer);
	return normaliseDeployment(obj.deployment && typeof obj.deployment === 'object' && !obj.id ? obj.deployment : obj);
};

/** Permanent removal. An empty answer becomes `{ id, deleted: true }`. */
export const deleteDeployment = async (ctx: RunComfyContext, id: string): Promise<IDataObject> => {
	const seg = deploymentSegment(ctx, id);
	const body = await apiRequest<IDataObject | null>(ctx, {
		family: 'serverless',
		method: 'DELETE',
		path: `/prod/v2/deployments/${seg}`,
		subject: { kind: 'deployment', id: decodeURIComponent(seg) },
		operation: 'deployment deletion',
		expect: 'jsonOrEmpty',
	});
	return body && typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length > 0
		? body
		: { id: decodeURIComponent(seg), deleted: true };
};

async function queueRequest<T>(
	ctx: RunComfyContext,
	spec: Omit<ApiRequestSpec, 'path' | 'fallbackPath' | 'family'>,
	pathAfterVersion: string,
): Promise<T> {
	const credentials = await getCredentials(ctx);
	const base = credentials.serverlessApiBaseUrl;
	const preferred: QueueVersion = queueVersionByBase.get(base) ?? 'v2';
	const other: QueueVersion = preferred === 'v2' ? 'v1' : 'v2';
	const answer = await apiRequestFull<T>(
		ctx,
		{
			...spec,
			family: 'serverless',
			path: `/prod/${preferred}${pathAfterVersion}`,
			fallbackPath: `/prod/${other}${pathAfterVersion}`,
		},
		credentials,
	);
	queueVersionByBase.set(base, answer.usedFallback ? other : preferred);
	return answer.body;
}

/**
 * Submit an inference (paid): `{ overrides?, workflow_api_json?, extra_data? }`, webhook as query parameters.
 * Only repeated when provably not accepted: a 429, a refused connection, or a 404 on the v2 path
 * (then `/prod/v1` is used).
 */
export const submitDeploymentInference = async (
	ctx: RunComfyContext,
	deploymentId: string,
	body: InferenceBody,
	opts: { webhookUrl?: string; webhookIntermediateStatus?: boolean; itemIndex?: number } = {},
): Promise<RequestHandle> => {
	const node = ctx.getNode();
	const seg = deploymentSegment(ctx, deploymentId, opts.itemIndex);
	if (typeof body !== 'object' || body === null || Array.isArray(body)) {
		throw inputError(
			node,
			'The inference body must be an object',
			'Give { "overrides": { "<node id>": { "inputs": { ... } } } }.',
			opts.itemIndex,
		);
	}
	const qs: IDataObject = {};
	const webhook = opts.webhookUrl?.trim();
	if (webhook) {
		let ok = false;
		try {
			const url = new URL(webhook);
			ok = url.protocol === 'https:' || url.protocol === 'http:';
		} catch {
			ok = false;
		}
		if (!ok) {
			throw inputError(
				node,
				`The webhook URL "${webhook}" is not a valid http(s) URL`,
				'Give the full URL that RunComfy should POST the result to, e.g. the production URL of an n8n Webhook node.',
				opts.itemIndex,
			);
		}
		qs.webhook = webhook;
		if (opts.webhookIntermediateStatus !== undefined) qs.webhook_intermediate_status = opts.webhookIntermediateStatus ? 'true' : 'false';
	}
	const id = decodeURIComponent(seg);
	const operation = `inference on deployment "${id}"`;
	const answer = await queueRequest<unknown>(
		ctx,
		{
			method: 'POST',
			body,
			qs,
			paid: true,
			itemIndex: opts.itemIndex,
			subject: { kind: 'deployment', id },
			operation,
			checkHint: INFERENCE_CHECK,
		},
		`/deployments/${seg}/inference`,
	);
	return requireRequestId(ctx, answer, operation, INFERENCE_CHECK, opts.itemIndex);
};

const requestSegments = (ctx: RunComfyContext, deploymentId: string, requestId: string) => {
	const dep = deploymentSegment(ctx, deploymentId);
	const req = encodeId(requestId, 'request id', ctx.getNode());
	return { dep, req, id: decodeURIComponent(req) };
};

export const getDeploymentRequestStatus = async (
	ctx: RunComfyContext,
	deploymentId: string,
	requestId: string,
	how: RetryChoice = {},
): Promise<StatusRecord> => {
	const { dep, req, id } = requestSegments(ctx, deploymentId, requestId);
	return await queueRequest<StatusRecord>(
		ctx,
		{ method: 'GET', subject: { kind: 'deploymentRequest', id }, operation: 'status check', retry: how.retry },
		`/deployments/${dep}/requests/${req}/status`,
	);
};

export const getDeploymentRequestResult = async (ctx: RunComfyContext, deploymentId: string, requestId: string): Promise<ResultRecord> => {
	const { dep, req, id } = requestSegments(ctx, deploymentId, requestId);
	return await queueRequest<ResultRecord>(
		ctx,
		{ method: 'GET', subject: { kind: 'deploymentRequest', id }, operation: 'result fetch' },
		`/deployments/${dep}/requests/${req}/result`,
	);
};

/** Cancel: the live service answers `{status: 'cancellation_requested' | 'not_cancellable'}`, the contract `{outcome}`. */
export const cancelDeploymentRequest = async (ctx: RunComfyContext, deploymentId: string, requestId: string): Promise<IDataObject> => {
	const { dep, req, id } = requestSegments(ctx, deploymentId, requestId);
	const body = await queueRequest<IDataObject | null>(
		ctx,
		// survivesStop: Stop cancels the remote run; this request must not be aborted by that same Stop.
		{ method: 'POST', subject: { kind: 'deploymentRequest', id }, operation: 'cancel', expect: 'jsonOrEmpty', survivesStop: true },
		`/deployments/${dep}/requests/${req}/cancel`,
	);
	return body ?? { request_id: id };
};

/** Deletes the request's inputs and outputs at once. An empty answer becomes `{ request_id, deleted: true }`. */
export const deleteDeploymentRequest = async (ctx: RunComfyContext, deploymentId: string, requestId: string): Promise<IDataObject> => {
	const { dep, req, id } = requestSegments(ctx, deploymentId, requestId);
	const body = await queueRequest<IDataObject | null>(
		ctx,
		{ method: 'DELETE', subject: { kind: 'deploymentRequest', id }, operation: 'request deletion', expect: 'jsonOrEmpty' },
		`/deployments/${dep}/requests/${req}`,
	);
	return body && typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length > 0
		? body
		: { request_id: id, deleted: true };
};

/**
 * POST to a backend path of a live instance (e.g. `api/free`). The answer may be JSON, text or empty
 * (returned as parsed JSON, a string, or `null`). Not repeated after an unclear failure: the backend
 * call may not be idempotent.
 */
export const callInstanceProxy = async (
	ctx: RunComfyContext,
	deploymentId: string,
	instanceId: string,
	path: string,
	body?: IDataObject,
): Promise<unknown> => {
	const node = ctx.getNode();
	const dep = deploymentSegment(ctx, deploymentId);
	const inst = encodeId(instanceId, 'instance id', node);
	const target = encodeProxyPath(path, node);
	const qs: IDataObject = {};
	if (target.query) {
		for (const [k, v] of new URLSearchParams(target.query)) {
			const existing = qs[k];
			qs[k] = existing === undefined ? v : Array.isArray(existing) ? [...(existing as string[]), v] : [existing as string, v];
		}
	}
	return await apiRequest<unknown>(ctx, {
		family: 'serverless',
		method: 'POST',
		path: `/prod/v2/deployments/${dep}/instances/${inst}/proxy/${target.path}`,
		qs,
		body: body ?? {},
		retry: 'notAccepted',
		expect: 'any',
		subject: { kind: 'instance', id: decodeURIComponent(inst) },
		operation: `instance proxy call to "${target.path}"`,
		checkHint: 'check the state of the instance (for example its queue) before calling again.',
	});
};
