import type { IExecuteFunctions, INodeExecutionData, INodeProperties, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { CANCELS, downloadProperties, minimumBalanceOption, waitProperties } from '../../../shared/descriptions';
import { INFERENCE_WAIT, answerCallback, runJobs } from '../../../shared/jobs';
import { inferenceRunKind } from '../../helpers/jobKind';
import { deleteAfterDownloadOption, deploymentLocatorProperty, waitModeProperties } from '../../helpers/properties';

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
				// The editor's heading over the fields (else "Values to Send"): the field's own name, as the docs call it.
				valuesLabel: 'Overrides',
				fieldWords: { singular: 'input', plural: 'inputs' },
				addAllFields: false,
				multiKeyMatch: false,
				supportAutoMap: false,
				noFieldsError:
					'Pick a deployment first: the inputs of its saved workflow (prompts, seeds, image file names, ...) are loaded from RunComfy. A deployment without a saved workflow (e.g. a LoRA deployment) needs the JSON mode.',
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
		description: 'A whole workflow exported from ComfyUI with "Export (API)", sent as workflow_api_json in place of the saved one',
	},
	{
		displayName: 'Binary Inputs',
		name: 'binaryInputs',
		type: 'fixedCollection',
		placeholder: 'Add Binary Input',
		default: {},
		typeOptions: { multipleValues: true },
		description:
			'Files from the incoming item\'s binary fields for file inputs such as a Load Image node\'s "image". Each is sent as a Base64 data URI. A public HTTPS URL can also be given as a plain override value.',
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
						displayName: 'Input Binary Field',
						name: 'binaryPropertyName',
						type: 'string',
						default: 'data',
						hint: 'The name of the input binary field containing the file',
						description: 'The binary field of the incoming item that holds the file, e.g. data',
					},
				],
			},
		],
	},
	// Wait for Completion, then the Wait Mode (and its notice), then Wait Options.
	...waitProperties(show, INFERENCE_WAIT, CANCELS.deploymentRequest).flatMap((p) =>
		p.name === 'waitForCompletion' ? [p, ...waitModeProperties(show)] : [p],
	),
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
				description: 'Sent as extra_data, e.g. {"api_key_comfy_org": "comfyui-…"} for ComfyUI Core API nodes in the workflow',
			},
			minimumBalanceOption,
			{
				displayName: 'Deliver Results To',
				name: 'webhookUrl',
				type: 'string',
				default: '',
				placeholder: 'e.g. https://n8n.example.com/webhook/4f1c…/my-secret-token',
				description:
					"A URL RunComfy POSTs each request's result to, typically the Production URL of a RunComfy Webhook Trigger, whose workflow then starts once per finished request. The node returns at once with the request IDs instead of waiting. The URL must be reachable from the internet.",
			},
			{
				displayName: 'Deliver Intermediate Statuses',
				name: 'webhookIntermediateStatus',
				type: 'boolean',
				default: false,
				description: 'Whether RunComfy also delivers the in_queue and in_progress events, not only the final one',
			},
		],
	},
];

export const description = updateDisplayOptions({ show }, properties);

/**
 * Inference → Run through the one job flow: every item is checked against its deployment (no paid call before
 * that), then all are submitted, waited for together (or the execution parks until RunComfy calls back), fetched
 * once, flattened and their outputs downloaded.
 */
export async function executeBatch(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	return await runJobs(this, items, inferenceRunKind(this, items));
}

/** A call to the resume URL of an execution that Inference → Run parked (see shared/jobs/park/callback.ts). */
export async function webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	return await answerCallback(this, (ctx) => inferenceRunKind(ctx, []));
}
