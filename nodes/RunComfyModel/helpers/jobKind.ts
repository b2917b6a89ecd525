/**
 * Model → Run as a job kind of the one job flow. Estimate Cost uses the same checks (`prepare`, `estimate`)
 * without submitting anything.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { INFERENCE_WAIT, SUBMIT_CONCURRENCY, requestVerdict } from '../../shared/jobs';
import { readDownloadOptions } from '../../shared/params';
import { timingKey } from '../../shared/wait';
import type { JobItem, JobKind } from '../../shared/jobs';
import type { DownloadChoice } from '../../shared/params';
import { errorTextOf, resultItem } from '../../shared/outputs';
import { isTerminal, normaliseStatus, resultState } from '../../shared/status';
import { cancelModelRequest, getModelRequestResult, getModelRequestStatus, submitModelRun } from '../../shared/transport';
import type { RetryChoice } from '../../shared/transport';
import type { ModelEntry, ResultRecord } from '../../shared/types';
import { readModelId } from './ids';
import { ModelCache, buildBody, describeProblems, problemsHint } from './inputs';
import { modelOutputUrls, resultJson, toolJson } from './outputs';
import { estimateRun } from './pricing';

export interface ModelRunItem extends JobItem {
	modelId: string;
	model: ModelEntry;
	body: IDataObject;
}

export function modelRunKind(ctx: IExecuteFunctions): JobKind<ModelRunItem, DownloadChoice> {
	const node = ctx.getNode();
	const cache = new ModelCache(ctx);
	// The one result request: the result fetch, and the poll that expects the end (the same request, so both bring the cost).
	const fetchResult = async (id: string, how: RetryChoice = {}) => await getModelRequestResult(ctx, id, { includeCost: true, ...how });
	return {
		noun: { one: 'run', many: 'runs', idField: 'request_id', idLabel: 'Request ID', lookUp: 'Model → Get Result' },
		wait: INFERENCE_WAIT,
		paid: true,
		submitConcurrency: SUBMIT_CONCURRENCY,
		prepare: async (i) => {
			const modelId = readModelId(ctx, i);
			const model = await cache.get(modelId);
			const body = buildBody(ctx, i, model);
			const problems = describeProblems(body, model);
			if (problems) {
				throw new NodeOperationError(node, `Item ${i}: ${problems}`, { itemIndex: i, description: problemsHint(body, model) });
			}
			return { itemIndex: i, modelId, model, body };
		},
		readOptions: (p) => readDownloadOptions(ctx, p.itemIndex),
		estimate: (p) => {
			const estimate = estimateRun(p.model, p.body);
			return estimate.estimated ? { usd: estimate.usd, basis: estimate.basis } : { reason: estimate.reason };
		},
		ids: (p) => ({ model_id: p.modelId }),
		submit: async (p) => {
			const handle = await submitModelRun(ctx, p.modelId, p.body, p.itemIndex);
			return { id: handle.request_id, json: { ...handle } };
		},
		queued: { status: 'in_queue' },
		// Runs of one model take about as long for the same number of outputs and the same length.
		timingKey: (p) => timingKey('model', p.modelId, shapeOf(p.body)),
		poll: async (t, how) => {
			const record = await getModelRequestStatus(ctx, t.id, how);
			return { state: normaliseStatus(record.status), record };
		},
		// The result record says in_queue / in_progress until the run has ended (the live service may answer 400
		// instead, which the wait engine reads as "not ended"): the poll that expects the end asks for it directly.
		pollResult: async (t, how) => {
			const result = await fetchResult(t.id, how);
			const state = resultState(result);
			return { state, record: result, ...(isTerminal(state) ? { result } : {}) };
		},
		cancel: async (t) => await cancelModelRequest(ctx, t.id),
		fetch: async (t) => await fetchResult(t.id),
		current: (_t, record) => ({ status: record.status ?? 'unknown' }),
		verdict: (t, record, result) =>
			requestVerdict({
				title: `Run ${t.id} of ${t.modelId}`,
				id: t.id,
				record,
				result,
				json: resultJson(t.modelId, t.id, result as ResultRecord),
				reason: errorTextOf(result),
				failedHint: 'Check the inputs (for example that file URLs are public and reachable) and run again.',
			}),
		present: async (t, json, { succeeded, options, hosts }) =>
			(await resultItem(ctx, t.itemIndex, json, { succeeded, urls: modelOutputUrls(json), toolJson, hosts, download: options })).items,
		toolJson,
	};
}

/** What changes a model's run time: how many outputs, how long, how large (when the request says). */
function shapeOf(body: IDataObject): string {
	return ['num_images', 'num_outputs', 'duration', 'image_size', 'resolution', 'aspect_ratio']
		.filter((k) => body[k] !== undefined && body[k] !== null && typeof body[k] !== 'object')
		.map((k) => `${k}=${String(body[k])}`)
		.join(',');
}
