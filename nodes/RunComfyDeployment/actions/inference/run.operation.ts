import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { assertMinimumBalance } from '../../../shared/balanceGuard';
import {
	INFERENCE_WAIT,
	downloadProperties,
	minimumBalanceOption,
	readDownloadOptions,
	readWaitOptions,
	waitProperties,
} from '../../../shared/descriptions';
import { failedItem, toNodeError } from '../../../shared/router';
import { isTerminal, normaliseStatus } from '../../../shared/status';
import {
	cancelDeploymentRequest,
	deleteDeploymentRequest,
	getDeploymentRequestResult,
	getDeploymentRequestStatus,
	submitDeploymentInference,
} from '../../../shared/transport';
import type { RequestHandle, ResultRecord } from '../../../shared/types';
import { waitForAll } from '../../../shared/wait';
import type { PollResult, WaitJob, WaitOutcome } from '../../../shared/wait';
import { buildInference } from '../../helpers/body';
import type { PreparedInference } from '../../helpers/body';
import { detachedFromStop } from '../../helpers/context';
import { DeploymentCache, deploymentNotFound, readDeploymentId } from '../../helpers/deployments';
import { DownloadHosts, attachDownloads, errorTextOf, mapPool, outputUrlsOf, resultJson, toolJson } from '../../helpers/results';
import { deploymentLocatorProperty } from '../common.descriptions';

/** Paid submissions in flight at once. Small: the service queues requests anyway. */
const SUBMIT_CONCURRENCY = 4;

/** How long a cancellation that the service only accepted ("cancellation_requested") is followed. */
const CANCEL_FOLLOW_MS = 60_000;

const show = { resource: ['inference'], operation: ['run'] };

const properties: INodeProperties[] = [
	deploymentLocatorProperty,
	{
		displayName: 'Input Mode',
		name: 'inputMode',
		type: 'options',
		noDataExpression: true,
		default: 'defineBelow',
		options: [
			{
				name: 'Define Below',
				value: 'defineBelow',
				description: "Pick inputs of the deployment's saved workflow and set new values; only those are sent",
			},
			{
				name: 'JSON',
				value: 'json',
				description: 'Give the overrides object as JSON, keyed by node ID: {"6": {"inputs": {"text": "…"}}}',
			},
			{
				name: 'Full Workflow',
				value: 'fullWorkflow',
				description: 'Send a whole workflow in ComfyUI API format instead of overrides',
			},
		],
	},
	{
		displayName: 'Overrides',
		name: 'inputs',
		type: 'resourceMapper',
		noDataExpression: true,
		default: { mappingMode: 'defineBelow', value: null },
		required: true,
		displayOptions: { show: { inputMode: ['defineBelow'] } },
		typeOptions: {
			loadOptionsDependsOn: ['deploymentId.value'],
			resourceMapper: {
				resourceMapperMethod: 'getWorkflowInputs',
				mode: 'add',
				fieldWords: { singular: 'input', plural: 'inputs' },
				addAllFields: false,
				multiKeyMatch: false,
				supportAutoMap: false,
				noFieldsError:
					"Pick a deployment first: the inputs of its saved workflow (prompts, seeds, image file names, ...) are loaded from RunComfy. A deployment without a saved workflow (e.g. a LoRA deployment) needs the JSON mode.",
			},
		},
	},
	{
		displayName: 'Overrides (JSON)',
		name: 'overridesJson',
		type: 'json',
		default: '{\n  "6": {\n    "inputs": {\n      "text": ""\n    }\n  }\n}',
		displayOptions: { show: { inputMode: ['json'] } },
		description:
			'The overrides object, keyed by node ID of the saved workflow: {"6": {"inputs": {"text": "a red fox"}}}. Only the inputs given are changed. Node IDs and input names are checked against the saved workflow before anything is submitted.',
	},
	{
		displayName: 'Workflow (API JSON)',
		name: 'workflowJson',
		type: 'json',
		default: '',
		displayOptions: { show: { inputMode: ['fullWorkflow'] } },
		description:
			'A whole workflow exported from ComfyUI with "Export (API)", sent as workflow_api_json in place of the saved one',
	},
	{
		displayName: 'Binary Inputs',
		name: 'binaryInputs',
		type: 'fixedCollection',
		placeholder: 'Add Binary Input',
		default: {},
		typeOptions: { multipleValues: true },
		description:
			'Files from the incoming item (binary data) for file inputs such as a Load Image node\'s "image". Each is sent as a Base64 data URI. A public HTTPS URL can also be given as a plain override value.',
		options: [
			{
				displayName: 'File',
				name: 'files',
				values: [
					{
						displayName: 'Node Name or ID',
						name: 'nodeId',
						type: 'options',
						typeOptions: {
							loadOptionsMethod: 'getWorkflowNodes',
							loadOptionsDependsOn: ['deploymentId.value'],
						},
						default: '',
						description:
							'The node of the saved workflow that takes the file, e.g. a Load Image node. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
					},
					{
						displayName: 'Input Name',
						name: 'inputName',
						type: 'string',
						default: 'image',
						description: 'The input of that node that takes the file, e.g. image, video or audio',
					},
					{
						displayName: 'Binary Property',
						name: 'binaryPropertyName',
						type: 'string',
						default: 'data',
						description: 'Name of the binary property of the incoming item that holds the file',
					},
				],
			},
		],
	},
	...waitProperties(show, INFERENCE_WAIT),
	...downloadProperties({ ...show, waitForCompletion: [true] }),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Delete Request After Download',
				name: 'deleteRequestAfterDownload',
				type: 'boolean',
				default: false,
				description:
					"Whether to delete the request on RunComfy (its inputs and outputs) once every output file was downloaded. Otherwise outputs are kept on the service for 7 days. Only with Download Outputs on; nothing is deleted when a download fails or is skipped.",
			},
			{
				displayName: 'Extra Data (JSON)',
				name: 'extraData',
				type: 'json',
				default: '',
				description:
					'Sent as extra_data, e.g. {"api_key_comfy_org": "comfyui-…"} for ComfyUI Core API nodes in the workflow',
			},
			minimumBalanceOption,
			{
				displayName: 'Webhook URL',
				name: 'webhookUrl',
				type: 'string',
				default: '',
				placeholder: 'e.g. https://n8n.example.com/webhook/runcomfy',
				description:
					'RunComfy POSTs the final result (and, if enabled, progress) to this URL, e.g. the Production URL of an n8n Webhook node. Polling still runs when waiting.',
			},
			{
				displayName: 'Webhook Intermediate Status',
				name: 'webhookIntermediateStatus',
				type: 'boolean',
				default: false,
				description: 'Whether the webhook also gets the in_queue and in_progress events, not only the final one',
			},
		],
	},
];

export const description = updateDisplayOptions({ show }, properties);

interface Prepared extends PreparedInference {
	itemIndex: number;
	deploymentId: string;
}

interface Submitted extends Prepared {
	handle: RequestHandle;
}

type Plan =
	| { itemIndex: number; kind: 'item'; json: IDataObject; download?: boolean; deploymentId: string }
	| { itemIndex: number; kind: 'error'; error: Error; extra: IDataObject };

/**
 * Inference → Run for the whole batch: check every item against its deployment (no paid call before that),
 * check the balance once, submit every valid item, then wait for all of them together, fetch each result
 * once, flatten its outputs and download them.
 */
export async function executeBatch(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const node = this.getNode();
	const toolCall = this.isToolExecution?.() ?? false;
	const continueOnFail = this.continueOnFail();
	const signal = this.getExecutionCancelSignal?.();
	const cache = new DeploymentCache(this);
	const output: Array<INodeExecutionData | undefined> = new Array(items.length);
	const shape = (json: IDataObject) => (toolCall ? toolJson(json) : json);

	// 1. Check every item before anything is paid for.
	const prepared: Prepared[] = [];
	const invalid: Array<{ itemIndex: number; error: Error; extra: IDataObject }> = [];
	for (let i = 0; i < items.length; i++) {
		const extra: IDataObject = {};
		try {
			const id = readDeploymentId(this, i);
			extra.deployment_id = id;
			const deployment = await cache.get(id).catch((error: unknown) => {
				throw deploymentNotFound(this, error, id, i);
			});
			prepared.push({ itemIndex: i, deploymentId: id, ...(await buildInference(this, i, items[i], id, deployment)) });
		} catch (error) {
			invalid.push({ itemIndex: i, error: toNodeError(this, error, i), extra });
		}
	}
	if (invalid.length && !continueOnFail) {
		if (invalid.length === 1) throw invalid[0].error;
		throw new NodeOperationError(node, invalid.map((p) => `Item ${p.itemIndex}: ${p.error.message}`).join('. '), {
			itemIndex: invalid[0].itemIndex,
			description: `${invalid.length} of ${items.length} items cannot be sent; the first: ${(invalid[0].error as NodeOperationError).description ?? invalid[0].error.message}`,
		});
	}
	for (const bad of invalid) output[bad.itemIndex] = failedItem(this, bad.error, bad.itemIndex, bad.extra);

	// 2. One balance check per execution, before the first paid call.
	if (prepared.length) {
		const options = this.getNodeParameter('options', prepared[0].itemIndex, {}) as IDataObject;
		try {
			await assertMinimumBalance(this, Number(options.minimumBalanceUsd ?? 0));
		} catch (error) {
			if (!continueOnFail) throw toNodeError(this, error, prepared[0].itemIndex);
			for (const p of prepared) {
				output[p.itemIndex] = failedItem(this, error, p.itemIndex, { deployment_id: p.deploymentId });
			}
			prepared.length = 0;
		}
	}

	// 3. Submit every valid item. Never retried here (the transport decides what is provably safe to retry).
	const submitted: Submitted[] = [];
	let submitFailure: { itemIndex: number; error: Error } | undefined;
	await mapPool(prepared, SUBMIT_CONCURRENCY, async (p) => {
		if (submitFailure || signal?.aborted) return;
		try {
			const handle = await submitDeploymentInference(this, p.deploymentId, p.body, {
				webhookUrl: p.webhookUrl,
				webhookIntermediateStatus: p.webhookIntermediateStatus,
				itemIndex: p.itemIndex,
			});
			submitted.push({ ...p, handle });
		} catch (error) {
			if (!continueOnFail) submitFailure ??= { itemIndex: p.itemIndex, error };
			else output[p.itemIndex] = failedItem(this, error, p.itemIndex, { deployment_id: p.deploymentId });
		}
	});
	submitted.sort((a, b) => a.itemIndex - b.itemIndex);
	if (submitFailure) {
		const nodeError = toNodeError(this, submitFailure.error, submitFailure.itemIndex);
		if (submitted.length) {
			const ids = submitted.map((s) => `item ${s.itemIndex}: ${s.handle.request_id}`).join(', ');
			nodeError.description = `${nodeError.description ? `${nodeError.description} ` : ''}Requests already submitted keep running on RunComfy (${ids}); use Get Result with these request IDs.`;
		}
		throw nodeError;
	}

	const handleJson = (s: Submitted): IDataObject => ({ deployment_id: s.deploymentId, ...s.handle });
	const wait = readWaitOptions(this, submitted[0]?.itemIndex ?? 0, INFERENCE_WAIT);
	if (!wait.enabled && !signal?.aborted) {
		for (const s of submitted) {
			output[s.itemIndex] = { json: shape({ ...handleJson(s), status: 'in_queue' }), pairedItem: { item: s.itemIndex } };
		}
		return finish(output);
	}

	// 4. Wait for every request together.
	const jobs: WaitJob[] = submitted.map((s) => ({
		itemIndex: s.itemIndex,
		id: s.handle.request_id,
		poll: async () => {
			const record = await getDeploymentRequestStatus(this, s.deploymentId, s.handle.request_id);
			return { state: normaliseStatus(record.status), record };
		},
		cancel: async () =>
			await cancelDeploymentRequest(signal?.aborted ? detachedFromStop(this) : this, s.deploymentId, s.handle.request_id),
	}));
	const outcomes = jobs.length ? await waitForAll(jobs, { ...wait, followCancellation: true }, signal) : [];
	const bySubmitted = new Map(submitted.map((s) => [s.itemIndex, s]));

	// A timeout cancelled on the live service is only "cancellation_requested": follow it until it has ended.
	const followed = new Map<number, PollResult>();
	const toFollow = outcomes.filter(
		(o) => o.kind === 'timeout' && o.cancel && normaliseStatus(cancelOutcomeOf(o.cancel)) === 'cancelling',
	);
	if (toFollow.length && !signal?.aborted) {
		const ends = await waitForAll(
			toFollow.map((o) => ({ itemIndex: o.job.itemIndex, id: o.job.id, poll: o.job.poll })),
			{
				...wait,
				maxWaitMs: CANCEL_FOLLOW_MS,
				onTimeout: 'returnRunning',
				cancelOnStop: false,
				followCancellation: true,
			},
			signal,
		);
		for (const end of ends) if (end.kind !== 'error') followed.set(end.job.itemIndex, { state: end.state, record: end.record });
	}

	// Stopped execution: no more calls (the engine already asked the service to cancel the requests).
	if (signal?.aborted) {
		for (const o of outcomes) {
			const s = bySubmitted.get(o.job.itemIndex) as Submitted;
			const json: IDataObject = { ...handleJson(s), stopped: true };
			if (o.kind !== 'error') json.status = o.record.status ?? o.state;
			if ((o.kind === 'stopped' || o.kind === 'timeout') && o.cancel) json.cancel_outcome = cancelOutcomeOf(o.cancel);
			output[o.job.itemIndex] = { json: shape(json), pairedItem: { item: o.job.itemIndex } };
		}
		return finish(output);
	}

	// 5. One result fetch per finished request.
	const results = await mapPool(outcomes, wait.concurrency, async (o): Promise<ResultRecord | Error | undefined> => {
		if (o.kind !== 'done') return undefined;
		const s = bySubmitted.get(o.job.itemIndex) as Submitted;
		try {
			return await getDeploymentRequestResult(this, s.deploymentId, o.job.id);
		} catch (error) {
			return error as Error;
		}
	});
	const plans: Plan[] = outcomes.map((o, n) =>
		planOutcome(this, o, bySubmitted.get(o.job.itemIndex) as Submitted, results[n], wait, followed.get(o.job.itemIndex)),
	);

	// Without Continue on Fail the first error fails the node; timeouts in "fail" mode are reported together.
	if (!continueOnFail) {
		const firstError = plans.find((p) => p.kind === 'error');
		if (firstError && firstError.kind === 'error') {
			const timeouts = outcomes.filter((o) => o.kind === 'timeout');
			if (timeouts.length > 1 && wait.onTimeout === 'fail' && timeouts.some((o) => o.job.itemIndex === firstError.itemIndex)) {
				const ids = timeouts.map((o) => o.job.id).join(', ');
				throw new NodeOperationError(node, `${timeouts.length} requests did not finish within ${wait.maxWaitMs / 1000} s: ${ids}`, {
					itemIndex: firstError.itemIndex,
					description:
						'They keep running on RunComfy. Fetch them later with Inference → Get Result and these request IDs, or raise "Max Wait (Seconds)" in Wait Options (or set "On Timeout" to "Return as Still Running").',
				});
			}
			throw toNodeError(this, firstError.error, firstError.itemIndex);
		}
	}

	// 6. Downloads (successful requests only), then the items in input order.
	const hosts = new DownloadHosts(this);
	await mapPool(plans, Math.min(wait.concurrency, 4), async (plan) => {
		const i = plan.itemIndex;
		if (plan.kind === 'error') {
			output[i] = failedItem(this, plan.error, i, shape(plan.extra));
			return;
		}
		output[i] = await finishItem(this, i, plan.deploymentId, plan.json, plan.download === true, hosts);
	});
	return finish(output);
}

/**
 * The output item of a successful result: downloads when asked (never for an AI agent) and, after every file
 * was downloaded, the optional deletion of the request on the service.
 */
export async function finishItem(
	ctx: IExecuteFunctions,
	itemIndex: number,
	deploymentId: string,
	json: IDataObject,
	succeeded: boolean,
	hosts: DownloadHosts,
): Promise<INodeExecutionData> {
	const base: INodeExecutionData = { json, pairedItem: { item: itemIndex } };
	if (ctx.isToolExecution?.()) return { json: toolJson(json), pairedItem: { item: itemIndex } };
	const download = readDownloadOptions(ctx, itemIndex);
	if (!succeeded || !download.enabled) return base;
	const { item, complete } = await attachDownloads(ctx, base, outputUrlsOf(json), download.maxBytes, hosts);
	const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	if (options.deleteRequestAfterDownload === true) {
		if (complete) {
			try {
				await deleteDeploymentRequest(ctx, deploymentId, String(json.request_id));
				item.json = { ...item.json, request_deleted: true };
			} catch (error) {
				item.json = { ...item.json, request_deleted: false, delete_error: (error as Error).message };
			}
		} else {
			item.json = {
				...item.json,
				request_deleted: false,
				delete_error: 'Not deleted: some outputs were not downloaded (see skipped_downloads); they stay on the service for 7 days.',
			};
		}
	}
	return item;
}

/** The deployment API answers a cancel with `status` (cancellation_requested / not_cancellable), not `outcome`. */
export const cancelOutcomeOf = (cancel: IDataObject): IDataObject[string] => cancel.outcome ?? cancel.status;

function planOutcome(
	ctx: IExecuteFunctions,
	o: WaitOutcome,
	s: Submitted,
	result: ResultRecord | Error | undefined,
	wait: { maxWaitMs: number; onTimeout: string },
	followed?: PollResult,
): Plan {
	const node = ctx.getNode();
	const i = o.job.itemIndex;
	const requestId = s.handle.request_id;
	const handle: IDataObject = { deployment_id: s.deploymentId, ...s.handle };
	switch (o.kind) {
		case 'error':
			return { itemIndex: i, kind: 'error', error: o.error, extra: handle };
		case 'timeout': {
			const current = { ...handle, status: o.record.status ?? o.state };
			if (o.cancel) {
				const outcome = cancelOutcomeOf(o.cancel);
				const json: IDataObject = { ...current, timed_out: true, cancel_outcome: outcome };
				if (followed) {
					json.status = followed.record.status ?? followed.state;
					json.still_running = !isTerminal(followed.state);
				} else {
					json.still_running = normaliseStatus(outcome) !== 'cancelled';
				}
				return { itemIndex: i, kind: 'item', deploymentId: s.deploymentId, json };
			}
			if (wait.onTimeout === 'returnRunning') {
				return { itemIndex: i, kind: 'item', deploymentId: s.deploymentId, json: { ...current, still_running: true } };
			}
			const seconds = wait.maxWaitMs / 1000;
			const error = new NodeOperationError(node, `Request ${requestId} did not finish within ${seconds} s (status: ${String(current.status)})`, {
				itemIndex: i,
				description: `It keeps running on RunComfy. Fetch it later with Inference → Get Result and Request ID ${requestId}, or raise "Max Wait (Seconds)" in Wait Options (or set "On Timeout" to "Return as Still Running").`,
			});
			return { itemIndex: i, kind: 'error', error, extra: { ...current, still_running: true } };
		}
		case 'stopped': {
			const json: IDataObject = { ...handle, status: o.record.status ?? o.state, stopped: true };
			if (o.cancel) json.cancel_outcome = cancelOutcomeOf(o.cancel);
			return { itemIndex: i, kind: 'item', deploymentId: s.deploymentId, json };
		}
		case 'done': {
			if (result instanceof Error || result === undefined) {
				const error = result ?? new NodeOperationError(node, `The result of request ${requestId} could not be fetched`);
				return { itemIndex: i, kind: 'error', error, extra: { ...handle, status: o.record.status ?? o.state } };
			}
			const json = resultJson(s.deploymentId, requestId, result);
			const reported = normaliseStatus(result.status);
			const state = reported === 'unknown' ? o.state : reported;
			if (state === 'failed' || state === 'cancelled') {
				const failed = state === 'failed';
				const text = errorTextOf(result) ?? (failed ? 'the service reported no reason' : 'it was cancelled');
				const error = new NodeOperationError(
					node,
					`Request ${requestId} on deployment ${s.deploymentId} ${failed ? 'failed' : 'was cancelled'}: ${text}`,
					{
						itemIndex: i,
						description: failed
							? `Check the overrides (for example that file URLs are public, data URIs are valid and values fit the nodes) and run again. Request ID: ${requestId}`
							: `The request was cancelled on RunComfy before it finished. Request ID: ${requestId}`,
					},
				);
				return { itemIndex: i, kind: 'error', error, extra: { ...json, service_error: text } };
			}
			return { itemIndex: i, kind: 'item', deploymentId: s.deploymentId, json, download: state === 'succeeded' };
		}
	}
}

function finish(output: Array<INodeExecutionData | undefined>): INodeExecutionData[] {
	return output.filter((item): item is INodeExecutionData => item !== undefined);
}
