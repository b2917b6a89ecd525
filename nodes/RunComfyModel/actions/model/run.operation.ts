import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { downloadProperties, minimumBalanceOption, waitProperties } from '../../../shared/descriptions';
import { INFERENCE_WAIT, SUBMIT_CONCURRENCY, readDownloadOptions, requestVerdict, runJobs } from '../../../shared/jobs';
import type { DownloadChoice, JobItem, JobKind } from '../../../shared/jobs';

import { errorTextOf, resultItem } from '../../../shared/outputs';
import { normaliseStatus } from '../../../shared/status';
import {
	cancelModelRequest,
	getModelRequestResult,
	getModelRequestStatus,
	submitModelRun,
} from '../../../shared/transport';
import { categoryFilterProperty, modelLocatorProperty } from '../common.descriptions';
import { readModelId } from '../../helpers/ids';
import { ModelCache, buildBody, describeProblems, problemsHint } from '../../helpers/inputs';
import { modelOutputUrls, resultJson, toolJson } from '../../helpers/outputs';
import type { ResultRecord } from '../../../shared/types';

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

interface Prepared extends JobItem {
	modelId: string;
	body: IDataObject;
}

/**
 * Model → Run through the one job flow: every item is checked against the model's input schema (no paid call
 * before that), then all are submitted, waited for together, fetched once and their outputs downloaded.
 */
export async function executeBatch(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const node = this.getNode();
	const cache = new ModelCache(this);
	const kind: JobKind<Prepared, DownloadChoice> = {
		noun: { one: 'run', many: 'runs', idField: 'request_id', idLabel: 'Request ID', lookUp: 'Model → Get Result' },
		wait: INFERENCE_WAIT,
		paid: true,
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
		readOptions: (p) => readDownloadOptions(this, p.itemIndex),
		ids: (p) => ({ model_id: p.modelId }),
		submit: async (p) => {
			const handle = await submitModelRun(this, p.modelId, p.body, p.itemIndex);
			return { id: handle.request_id, json: { ...handle } };
		},
		poll: async (t) => {
			const record = await getModelRequestStatus(this, t.id);
			return { state: normaliseStatus(record.status), record };
		},
		cancel: async (t) => await cancelModelRequest(this, t.id),
		fetch: async (t) => await getModelRequestResult(this, t.id, { includeCost: true }),
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
			(await resultItem(this, t.itemIndex, json, { succeeded, urls: modelOutputUrls(json), toolJson, hosts, download: options })).item,
		toolJson,
	};
	return await runJobs(this, items, kind);
}
