import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import {
	INFERENCE_WAIT,
	downloadProperties,
	minimumBalanceOption,
	readDownloadOptions,
	waitProperties,
} from '../../../shared/descriptions';
import { errorTextOf, resultItem } from '../../../shared/outputs';
import { failedItem, toNodeError } from '../../../shared/router';
import { RAISE_MAX_WAIT, runBatch } from '../../../shared/runs';
import type { BatchItem, RunBatchSpec } from '../../../shared/runs';
import {
	cancelModelRequest,
	getModelRequestResult,
	getModelRequestStatus,
	submitModelRun,
} from '../../../shared/transport';
import { categoryFilterProperty, modelLocatorProperty } from '../common.descriptions';
import { readModelId } from '../../helpers/ids';
import { ModelCache, buildBody, describeProblems, problemsHint } from '../../helpers/inputs';
import { outputUrlsOf, resultJson, toolJson } from '../../helpers/outputs';

/** Paid submissions in flight at once. Small: the service queues runs anyway. */
const SUBMIT_CONCURRENCY = 4;

const show = { resource: ['model'], operation: ['run'] };

const properties: INodeProperties[] = [
	categoryFilterProperty,
	modelLocatorProperty,
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
				description: "Fill in the model's inputs one by one (fields come from the model's input schema)",
			},
			{
				name: 'JSON',
				value: 'json',
				description: 'Give the whole request body as one flat JSON object (expressions allowed)',
			},
		],
	},
	{
		displayName: 'Inputs',
		name: 'inputs',
		type: 'resourceMapper',
		noDataExpression: true,
		default: { mappingMode: 'defineBelow', value: null },
		displayOptions: { show: { inputMode: ['defineBelow'] } },
		typeOptions: {
			loadOptionsDependsOn: ['model.value'],
			resourceMapper: {
				resourceMapperMethod: 'getModelInputs',
				mode: 'add',
				fieldWords: { singular: 'input', plural: 'inputs' },
				addAllFields: false,
				multiKeyMatch: false,
				supportAutoMap: false,
				noFieldsError:
					'Pick a model first: its inputs (prompt, sizes, file URLs, ...) are loaded from the catalog.',
			},
		},
	},
	{
		displayName: 'Inputs (JSON)',
		name: 'inputsJson',
		type: 'json',
		default: '{\n  "prompt": ""\n}',
		displayOptions: { show: { inputMode: ['json'] } },
		description:
			'The request body as a flat JSON object whose keys are the model\'s input names, e.g. {"prompt": "a red fox", "seed": 42}. Not wrapped in "input". Checked against the model\'s schema before anything is submitted.',
	},
	{
		displayName: 'LoRA',
		name: 'lora',
		type: 'string',
		default: '',
		placeholder: 'e.g. my_lora.safetensors or https://files.runcomfy.net/…/my_lora.safetensors',
		description:
			'For models that accept a LoRA: the file name of one of your LoRA assets, or a public URL of a LoRA checkpoint (e.g. from the RunComfy Training node). Sent as {"lora": {"path": …}}. Leave empty for none.',
	},
	...waitProperties(show, INFERENCE_WAIT),
	...downloadProperties({ ...show, waitForCompletion: [true] }),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [minimumBalanceOption],
	},
];

export const description = updateDisplayOptions({ show }, properties);

type DownloadChoice = ReturnType<typeof readDownloadOptions>;

interface Prepared extends BatchItem {
	modelId: string;
	body: IDataObject;
}

/**
 * Model → Run for the whole batch (the shared submit-all-then-wait-all flow): validate every item (no paid
 * call before that), check the balance once, submit every valid item, then wait for all of them together,
 * fetch each result once and download outputs.
 */
export async function executeBatch(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const node = this.getNode();
	const cache = new ModelCache(this);
	const spec: RunBatchSpec<Prepared, DownloadChoice> = {
		waitDefaults: INFERENCE_WAIT,
		submitConcurrency: SUBMIT_CONCURRENCY,
		prepare: async (i) => {
			const modelId = readModelId(this, i);
			const model = await cache.get(modelId);
			const body = buildBody(this, i, model);
			const problems = describeProblems(body, model);
			if (problems) {
				throw new NodeOperationError(node, `Item ${i}: ${problems}`, { itemIndex: i, description: problemsHint(body, model) });
			}
			return { itemIndex: i, modelId, body };
		},
		readOptions: (firstIndex) => readDownloadOptions(this, firstIndex),
		ids: (p) => ({ model_id: p.modelId }),
		submit: async (p) => await submitModelRun(this, p.modelId, p.body, p.itemIndex),
		poll: async (s) => await getModelRequestStatus(this, s.handle.request_id),
		cancel: async (s) => await cancelModelRequest(this, s.handle.request_id),
		fetchResult: async (s) => await getModelRequestResult(this, s.handle.request_id, { includeCost: true }),
		resultJson: (s, result) => resultJson(s.modelId, s.handle.request_id, result),
		errorText: (result) => errorTextOf(result),
		toolJson,
		finishItem: async (s, json, succeeded, { hosts, options }) => {
			try {
				const { item } = await resultItem(this, s.itemIndex, json, {
					succeeded,
					urls: outputUrlsOf(json),
					toolJson,
					hosts,
					download: options,
				});
				return item;
			} catch (error) {
				// The run succeeded and was paid for: keep its id and URLs whatever happened to the files.
				const nodeError = toNodeError(this, error, s.itemIndex);
				nodeError.description = `${nodeError.description ? `${nodeError.description} ` : ''}The run ${String(json.request_id)} succeeded; its outputs are listed in output_urls (Get Result fetches them again).`;
				return failedItem(this, nodeError, s.itemIndex, json);
			}
		},
		texts: {
			invalidMany: (count, total) =>
				`${count} of ${total} items have invalid inputs. Fix them in "Inputs" (each field's description states its type, range and allowed values). Nothing was submitted.`,
			alreadySubmitted: (list) => `Runs already submitted keep going on RunComfy (${list}); use Get Result with these request IDs.`,
			timedOut: (requestId, seconds, status) => ({
				message: `Run ${requestId} did not finish within ${seconds} s (status: ${status})`,
				description: `The run keeps going on RunComfy. Fetch it later with Model → Get Result and Request ID ${requestId}, ${RAISE_MAX_WAIT}`,
			}),
			timedOutMany: (count, seconds, ids) => ({
				message: `${count} runs did not finish within ${seconds} s: ${ids}`,
				description: `They keep running on RunComfy. Fetch them later with Model → Get Result and these request IDs, ${RAISE_MAX_WAIT}`,
			}),
			notFetched: (requestId) => `The result of run ${requestId} could not be fetched`,
			failed: (s, failed, text) => ({
				message: `Run ${s.handle.request_id} of ${s.modelId} ${failed ? 'failed' : 'was cancelled'}: ${text}`,
				description: failed
					? 'Check the inputs (for example that file URLs are public and reachable) and run again. Request ID: ' + s.handle.request_id
					: 'The run was cancelled on RunComfy before it finished. Request ID: ' + s.handle.request_id,
			}),
		},
	};
	return await runBatch(this, items, spec);
}
