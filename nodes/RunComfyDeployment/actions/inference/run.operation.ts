import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import {
	INFERENCE_WAIT,
	downloadProperties,
	minimumBalanceOption,
	waitProperties,
} from '../../../shared/descriptions';
import { resultItem } from '../../../shared/outputs';
import type { DownloadHosts } from '../../../shared/outputs';
import { RAISE_MAX_WAIT, runBatch } from '../../../shared/runs';
import type { BatchItem, RunBatchSpec } from '../../../shared/runs';
import {
	cancelDeploymentRequest,
	deleteDeploymentRequest,
	getDeploymentRequestResult,
	getDeploymentRequestStatus,
	submitDeploymentInference,
} from '../../../shared/transport';
import { buildInference } from '../../helpers/body';
import type { PreparedInference } from '../../helpers/body';
import { DeploymentCache, deploymentNotFound, readDeploymentId } from '../../helpers/deployments';
import { errorTextOf, outputUrlsOf, resultJson, toolJson } from '../../helpers/results';
import { deleteAfterDownloadOption, deploymentLocatorProperty } from '../common.descriptions';

/** Paid submissions in flight at once. Small: the service queues requests anyway. */
const SUBMIT_CONCURRENCY = 4;

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
			deleteAfterDownloadOption,
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

interface Prepared extends PreparedInference, BatchItem {
	deploymentId: string;
}

/**
 * Inference → Run for the whole batch (the shared submit-all-then-wait-all flow): check every item against
 * its deployment (no paid call before that), check the balance once, submit every valid item, then wait for
 * all of them together, fetch each result once, flatten its outputs and download them.
 */
export async function executeBatch(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const cache = new DeploymentCache(this);
	const spec: RunBatchSpec<Prepared> = {
		waitDefaults: INFERENCE_WAIT,
		submitConcurrency: SUBMIT_CONCURRENCY,
		prepare: async (i, extra) => {
			const id = readDeploymentId(this, i);
			extra.deployment_id = id;
			const deployment = await cache.get(id).catch((error: unknown) => {
				throw deploymentNotFound(this, error, id, i);
			});
			return { itemIndex: i, deploymentId: id, ...(await buildInference(this, i, items[i], id, deployment)) };
		},
		ids: (p) => ({ deployment_id: p.deploymentId }),
		submit: async (p) =>
			await submitDeploymentInference(this, p.deploymentId, p.body, {
				webhookUrl: p.webhookUrl,
				webhookIntermediateStatus: p.webhookIntermediateStatus,
				itemIndex: p.itemIndex,
			}),
		queued: { status: 'in_queue' },
		poll: async (s) => await getDeploymentRequestStatus(this, s.deploymentId, s.handle.request_id),
		cancel: async (s) => await cancelDeploymentRequest(this, s.deploymentId, s.handle.request_id),
		fetchResult: async (s) => await getDeploymentRequestResult(this, s.deploymentId, s.handle.request_id),
		resultJson: (s, result) => resultJson(s.deploymentId, s.handle.request_id, result),
		errorText: (result) => errorTextOf(result),
		toolJson,
		finishItem: async (s, json, succeeded, { hosts }) =>
			await finishItem(this, s.itemIndex, s.deploymentId, json, succeeded, hosts),
		texts: {
			invalidMany: (count, total, first) =>
				`${count} of ${total} items cannot be sent; the first: ${first.description ?? first.message}`,
			alreadySubmitted: (list) =>
				`Requests already submitted keep running on RunComfy (${list}); use Get Result with these request IDs.`,
			timedOut: (requestId, seconds, status) => ({
				message: `Request ${requestId} did not finish within ${seconds} s (status: ${status})`,
				description: `It keeps running on RunComfy. Fetch it later with Inference → Get Result and Request ID ${requestId}, ${RAISE_MAX_WAIT}`,
			}),
			timedOutMany: (count, seconds, ids) => ({
				message: `${count} requests did not finish within ${seconds} s: ${ids}`,
				description: `They keep running on RunComfy. Fetch them later with Inference → Get Result and these request IDs, ${RAISE_MAX_WAIT}`,
			}),
			notFetched: (requestId) => `The result of request ${requestId} could not be fetched`,
			failed: (s, failed, text) => ({
				message: `Request ${s.handle.request_id} on deployment ${s.deploymentId} ${failed ? 'failed' : 'was cancelled'}: ${text}`,
				description: failed
					? `Check the overrides (for example that file URLs are public, data URIs are valid and values fit the nodes) and run again. Request ID: ${s.handle.request_id}`
					: `The request was cancelled on RunComfy before it finished. Request ID: ${s.handle.request_id}`,
			}),
		},
	};
	return await runBatch(this, items, spec);
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
	const { item, downloaded } = await resultItem(ctx, itemIndex, json, { succeeded, urls: outputUrlsOf(json), toolJson, hosts });
	if (!downloaded) return item;
	const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	if (options.deleteRequestAfterDownload === true) {
		if (downloaded.complete) {
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
