/**
 * Inference → Run as a job kind of the one job flow: every item is checked against its deployment before any
 * paid call; a request is waited for in the execution, or the execution parks until RunComfy calls back.
 */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { INFERENCE_WAIT, SUBMIT_CONCURRENCY, readWaitMode, requestVerdict } from '../../shared/jobs';
import { readBoolean } from '../../shared/params';
import type { JobItem, JobKind } from '../../shared/jobs';
import { normaliseStatus } from '../../shared/status';
import { timingKey } from '../../shared/wait';
import type { ResultRecord } from '../../shared/types';
import {
	cancelDeploymentRequest,
	getDeploymentRequestResult,
	getDeploymentRequestStatus,
	submitDeploymentInference,
} from '../../shared/transport';
import { buildInference } from './body';
import type { PreparedInference } from './body';
import { DeploymentCache, deploymentNotFound, readDeploymentId } from './deployments';
import { presentResult, readResultOptions } from './present';
import type { ResultOptions } from './present';
import { deploymentErrorText, resultJson, toolJson } from './results';

interface Prepared extends PreparedInference, JobItem {
	deploymentId: string;
}

/** The job kind of Inference → Run on a context (`items`: the input items, for checking them). */
export function inferenceRunKind(ctx: IExecuteFunctions, items: INodeExecutionData[]): JobKind<Prepared, ResultOptions> {
	const cache = new DeploymentCache(ctx);
	return {
		noun: { one: 'request', many: 'requests', idField: 'request_id', idLabel: 'Request ID', lookUp: 'Inference → Get Result' },
		wait: INFERENCE_WAIT,
		paid: true,
		submitConcurrency: SUBMIT_CONCURRENCY,
		prepare: async (i, extra) => {
			const id = readDeploymentId(ctx, i);
			extra.deployment_id = id;
			const deployment = await cache.get(id).catch((error: unknown) => {
				throw deploymentNotFound(ctx, error, id, i);
			});
			const prepared = { itemIndex: i, deploymentId: id, ...(await buildInference(ctx, i, items[i], id, deployment)) };
			if (prepared.webhookUrl && parks(ctx, i)) {
				throw new NodeOperationError(
					ctx.getNode(),
					`Item ${i}: "Deliver Results To" cannot be used with the Wait Mode "Park Until RunComfy Calls Back"`,
					{
						itemIndex: i,
						description:
							'RunComfy calls one URL per request, and a parked execution needs it to resume. Remove the Deliver Results To option, or choose the Wait Mode "Wait in This Execution". Nothing was submitted.',
					},
				);
			}
			return prepared;
		},
		readOptions: (p) => readResultOptions(ctx, p.itemIndex),
		ids: (p) => ({ deployment_id: p.deploymentId }),
		submit: async (p, how) => {
			const webhookUrl = how?.callbackUrl ?? p.webhookUrl;
			const handle = await submitDeploymentInference(ctx, p.deploymentId, p.body, {
				webhookUrl,
				webhookIntermediateStatus: webhookUrl ? p.webhookIntermediateStatus === true : undefined,
				itemIndex: p.itemIndex,
			});
			return { id: handle.request_id, json: { ...handle } };
		},
		queued: { status: 'in_queue' },
		deliveredElsewhere: (t) => Boolean(t.webhookUrl),
		timingKey: (p) => timingKey('deployment', p.deploymentId),
		poll: async (t, how) => {
			const record = await getDeploymentRequestStatus(ctx, t.deploymentId, t.id, how);
			return { state: normaliseStatus(record.status), record };
		},
		cancel: async (t) => await cancelDeploymentRequest(ctx, t.deploymentId, t.id),
		fetch: async (t) => await getDeploymentRequestResult(ctx, t.deploymentId, t.id),
		current: (_t, record) => ({ status: record.status ?? 'unknown' }),
		verdict: (t, record, result) =>
			requestVerdict({
				title: `Request ${t.id} on deployment ${t.deploymentId}`,
				id: t.id,
				record,
				result,
				json: resultJson(t.deploymentId, t.id, result as ResultRecord),
				reason: deploymentErrorText(result),
				failedHint:
					'Check the overrides (for example that file URLs are public, data URIs are valid and values fit the nodes) and run again.',
			}),
		present: async (t, json, { succeeded, options, hosts, afterBatch }) =>
			await presentResult(ctx, t.itemIndex, t.deploymentId, json, succeeded, hosts, options, afterBatch),
		toolJson,
		park: {
			family: 'serverless',
			restore: (ids, itemIndex) => ({ itemIndex, deploymentId: String(ids.deployment_id), body: {} }),
		},
	};
}

/** Whether item `i` parks (read again here only to refuse a conflicting Deliver Results To before paying). */
function parks(ctx: IExecuteFunctions, i: number): boolean {
	const enabled = readBoolean(ctx, 'waitForCompletion', i, INFERENCE_WAIT.waitByDefault, 'Wait for Completion');
	return readWaitMode(ctx, i, true, enabled) === 'park';
}
