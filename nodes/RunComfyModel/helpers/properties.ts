/** Fields that several operations of the Model node show (the common descriptions of n8n's Airtable v2 layout). */
import type { INodeProperties } from 'n8n-workflow';

import { requestIdProperty as sharedRequestIdProperty } from '../../shared/descriptions';

/** Optional narrowing of the model picker, read by listSearch `searchModels`. */
export const categoryFilterProperty: INodeProperties = {
	displayName: 'Category Filter Name or ID',
	name: 'categoryFilter',
	type: 'options',
	typeOptions: { loadOptionsMethod: 'getCategoryFilterOptions' },
	default: '',
	description:
		'Only list models of this category in the model picker below. Choose from the list, or specify an ID using an <a href="https://docs.n8n.io/code/expressions/">expression</a>.',
};

/** The model picker: server-side search through the whole catalog, or an id typed exactly as listed. */
export const modelLocatorProperty: INodeProperties = {
	displayName: 'Model',
	name: 'model',
	type: 'resourceLocator',
	default: { mode: 'list', value: '' },
	required: true,
	description: 'The model to use, from the RunComfy catalog',
	modes: [
		{
			displayName: 'From List',
			name: 'list',
			type: 'list',
			placeholder: 'Select a model...',
			typeOptions: {
				searchListMethod: 'searchModels',
				searchable: true,
			},
		},
		{
			displayName: 'By ID',
			name: 'id',
			type: 'string',
			placeholder: 'e.g. blackforestlabs/flux-2/flash/text-to-image',
		},
	],
};

/** The request id of an earlier run (Get Status, Get Result, Cancel). */
export const requestIdProperty: INodeProperties = sharedRequestIdProperty('e.g. 5a0e2f3c-7b7d-4f0a-9d55-2f7e1c1d9a10');

/** What a model is run with (Run, Estimate Cost): the model and its inputs (schema-built fields or JSON). */
export const modelInputProperties: INodeProperties[] = [
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
				// The editor's heading over the fields (else "Values to Send"): the field's own name, as the docs call it.
				valuesLabel: 'Inputs',
				fieldWords: { singular: 'input', plural: 'inputs' },
				addAllFields: false,
				multiKeyMatch: false,
				supportAutoMap: false,
				noFieldsError: 'Pick a model first: its inputs (prompt, sizes, file URLs, ...) are loaded from the catalog.',
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
];

/** A LoRA for the run: a field of its own in Estimate Cost and in Run before 1.1, an option of Run from 1.1. */
export const loraProperty: INodeProperties = {
	displayName: 'LoRA',
	name: 'lora',
	type: 'string',
	default: '',
	placeholder: 'e.g. my_lora.safetensors or https://files.runcomfy.net/…/my_lora.safetensors',
	description:
		'For models that accept a LoRA: the file name of one of your LoRA assets, or a public URL of a LoRA checkpoint (e.g. lora.path of a RunComfy Training result). Sent as {"lora": {"path": …}}. Leave empty for none.',
};
