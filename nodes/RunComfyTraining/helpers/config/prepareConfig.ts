/** The Config fields of Submit and Edit (text or simple form), and an item's config read from them and checked. */
import type { IDataObject, IDisplayOptions, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { getDatasetStatus, listDatasets } from '../../../shared/transport';
import { datasetLocator } from '../../../shared/pickers/datasets';
import { BASE_MODELS } from './baseModels';
import type { KnownDataset } from './pathRules';
import { checkConfigPaths, DATASET_FOLDER_PREFIX, TRAINING_FOLDER } from './pathRules';
import type { ConfigFacts, ConfigFormat } from './readConfig';
import { extractConfigFacts, keysEmptiedByExpressions, readConfigText } from './readConfig';
import type { SimpleConfigInput } from './simpleForm';
import { buildSimpleConfigText, checkSimpleInput } from './simpleForm';
import { SIMPLE_NUMBERS, readSimpleNumbers } from './simpleNumbers';

export function configTextProperties(show: IDisplayOptions['show']): INodeProperties[] {
	return [
		{
			displayName: 'Config',
			name: 'configText',
			type: 'string',
			typeOptions: { rows: 16 },
			default: '',
			required: true,
			placeholder:
				'job: extension\nconfig:\n  name: my_lora_v1\n  process:\n    - type: sd_trainer\n      training_folder: /app/ai-toolkit/output\n      datasets:\n        - folder_path: /app/ai-toolkit/datasets/my-dataset\n...',
			description: `The whole ai-toolkit config, YAML or JSON. Rules checked before submitting: every training_folder is ${TRAINING_FOLDER}; every dataset folder_path is ${DATASET_FOLDER_PREFIX}&lt;dataset name&gt; (the name, not the ID) of a READY dataset.`,
			displayOptions: { show },
		},
		{
			displayName: 'Config Format',
			name: 'configFormat',
			type: 'options',
			default: 'auto',
			options: [
				{ name: 'Detect', value: 'auto', description: 'JSON when the text is a JSON object, otherwise YAML' },
				{ name: 'JSON', value: 'json' },
				{ name: 'YAML', value: 'yaml' },
			],
			displayOptions: { show },
		},
	];
}

export function simpleFormProperties(show: IDisplayOptions['show']): INodeProperties[] {
	const on = (): IDisplayOptions => ({ show: { ...show } });
	return [
		{
			displayName: 'Job Name',
			name: 'jobName',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'e.g. my_character_lora_v1',
			description: 'The job name (config.name), also used for the checkpoint files. Letters, digits, ".", "_" and "-".',
			displayOptions: on(),
		},
		{
			displayName: 'Base Model',
			name: 'baseModel',
			type: 'options',
			default: 'flux-dev',
			options: BASE_MODELS.map((m) => ({ name: m.label, value: m.id, description: m.summary })),
			description: 'The model the LoRA is trained for. Run the LoRA later on the same base model.',
			displayOptions: on(),
		},
		{
			// the Dataset node's picker (same list search), described for training
			...datasetLocator({ ...show }),
			description: "A READY dataset of images/videos with .txt captions. Its name is put into the config's folder_path.",
		},
		{
			displayName: 'Steps',
			name: 'steps',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: SIMPLE_NUMBERS.steps.max },
			default: 2000,
			description: 'Total training steps; 500–4000 is the usual range',
			displayOptions: on(),
		},
		{
			displayName: 'Learning Rate',
			name: 'learningRate',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 1, numberPrecision: 6 },
			default: 0.0001,
			displayOptions: on(),
		},
		{
			displayName: 'Rank',
			name: 'rank',
			type: 'number',
			typeOptions: { minValue: 0, maxValue: 256 },
			default: 0,
			description: "LoRA rank (network.linear; alpha is set equal). 0 uses the base model's usual rank (16 for images, 32 for video).",
			displayOptions: on(),
		},
		{
			displayName: 'Trigger Word',
			name: 'triggerWord',
			type: 'string',
			default: '',
			placeholder: 'e.g. p3r5on',
			description: 'Added to captions that lack it; use it in prompts to invoke the LoRA. Optional.',
			displayOptions: on(),
		},
		{
			displayName: 'Sample Prompts',
			name: 'samplePrompts',
			type: 'string',
			typeOptions: { rows: 4 },
			default: '',
			placeholder: 'e.g. a photo of [trigger] at the beach',
			description:
				'One prompt per line; sample images are made with them while training ("[trigger]" becomes the trigger word). Empty: no sampling.',
			displayOptions: on(),
		},
		{
			displayName: 'Training Options',
			name: 'simpleOptions',
			type: 'collection',
			placeholder: 'Add Option',
			default: {},
			displayOptions: on(),
			options: [
				{
					displayName: 'Batch Size',
					name: 'batchSize',
					type: 'number',
					typeOptions: { minValue: 1, maxValue: SIMPLE_NUMBERS.batchSize.max },
					default: 1,
				},
				{
					displayName: 'Keep Last N Checkpoints',
					name: 'maxStepSavesToKeep',
					type: 'number',
					typeOptions: { minValue: 1, maxValue: SIMPLE_NUMBERS.maxStepSavesToKeep.max },
					default: 4,
					description: 'How many intermediate checkpoints are kept',
				},
				{
					displayName: 'Resolutions',
					name: 'resolution',
					type: 'string',
					default: '',
					placeholder: 'e.g. 512, 768, 1024',
					description: "Comma-separated training resolutions (images are bucketed). Empty: the base model's usual ones.",
				},
				{
					displayName: 'Sample Every N Steps',
					name: 'sampleEvery',
					type: 'number',
					typeOptions: { minValue: 1, maxValue: SIMPLE_NUMBERS.sampleEvery.max },
					default: 250,
				},
				{
					displayName: 'Save Every N Steps',
					name: 'saveEvery',
					type: 'number',
					typeOptions: { minValue: 1, maxValue: SIMPLE_NUMBERS.saveEvery.max },
					default: 250,
					description: 'A checkpoint is saved this often; an early-stopped job resumes from the last one',
				},
				{
					displayName: 'Seed',
					name: 'seed',
					type: 'number',
					typeOptions: { minValue: 0, maxValue: SIMPLE_NUMBERS.seed.max },
					default: 42,
					description: 'Seed of the sample images',
				},
			],
		},
	];
}

export interface PreparedConfig {
	configFile: string;
	configFormat: ConfigFormat;
	/** config.name when known. */
	name?: string;
	datasetNames: string[];
	warnings: string[];
	facts?: ConfigFacts;
	/** Set in Simple mode. */
	dataset?: { id: string; name: string; status: string };
	generated: boolean;
}

/** Lazily lists the account's datasets once per execution. */
export type DatasetCatalog = () => Promise<KnownDataset[]>;

export function datasetCatalog(ctx: IExecuteFunctions): DatasetCatalog {
	let cached: Promise<KnownDataset[]> | undefined;
	return async () => {
		cached ??= listDatasets(ctx).then((list) =>
			list.map((d) => ({ id: String(d.id), name: String(d.name ?? ''), status: String(d.status ?? '') })),
		);
		return await cached;
	};
}

function refuse(ctx: IExecuteFunctions, itemIndex: number, problems: string[], what = 'The training config'): NodeOperationError {
	const message =
		problems.length === 1 ? `${what} cannot be used: ${problems[0]}` : `${what} breaks ${problems.length} rules: ${problems[0]}; ...`;
	return new NodeOperationError(ctx.getNode(), message, {
		itemIndex,
		description: `Nothing was submitted.\n${problems.map((p) => `- ${p}`).join('\n')}`,
	});
}

/** Reads, checks and returns the config text of item `itemIndex` (text mode). Refuses before any paid call. */
export async function prepareTextConfig(
	ctx: IExecuteFunctions,
	itemIndex: number,
	catalog: DatasetCatalog,
	options: { requireReady: boolean },
): Promise<PreparedConfig> {
	const raw = ctx.getNodeParameter('configText', itemIndex, '') as unknown;
	let format = String(ctx.getNodeParameter('configFormat', itemIndex, 'auto')) as ConfigFormat | 'auto';
	let text: string;
	if (typeof raw === 'object' && raw !== null) {
		text = JSON.stringify(raw, null, 2);
		format = 'json';
	} else {
		text = String(raw ?? '');
	}
	if (!text.trim()) throw refuse(ctx, itemIndex, ['the Config field is empty']);
	const read = readConfigText(text, format);
	const warnings: string[] = [];
	if (read.readError) {
		if (read.format === 'json') throw refuse(ctx, itemIndex, [read.readError]);
		warnings.push(
			`The node could not read this YAML (${read.readError}), so training_folder, the dataset folder_path and the dataset's state were not checked; RunComfy checks them`,
		);
		return { configFile: text, configFormat: 'yaml', datasetNames: [], warnings, generated: false };
	}
	const template = ctx.getNodeParameter('configText', itemIndex, '', { rawExpressions: true }) as unknown;
	if (typeof template === 'string' && template.startsWith('=')) {
		const emptied = keysEmptiedByExpressions(template, read.data);
		if (emptied.length) {
			throw refuse(
				ctx,
				itemIndex,
				emptied.map(
					(e) =>
						`${e.path} of item ${itemIndex} is empty: its expression ${e.expression} gave nothing (a missing column, a misspelt field name or an empty cell)`,
				),
			);
		}
	}
	const facts = extractConfigFacts(read.data);
	if (!facts.hasProcess) {
		warnings.push('config.process was not found, so training_folder and the dataset folder_path were not checked; RunComfy checks them');
	} else {
		if (facts.trainingFolders.length === 0) {
			warnings.push(`No training_folder was found in config.process; RunComfy decides (it must be ${TRAINING_FOLDER})`);
		}
		if (facts.datasetFolders.length === 0) {
			warnings.push('No dataset folder_path was found in config.process[].datasets; RunComfy decides');
		}
	}
	const datasets = facts.datasetFolders.length ? await catalog() : undefined;
	const check = checkConfigPaths(facts, datasets, options);
	if (check.problems.length) throw refuse(ctx, itemIndex, check.problems);
	if (!facts.hasName) warnings.push('config.name was not found; RunComfy decides the job name');
	return {
		configFile: text,
		configFormat: read.format,
		name: facts.hasName && facts.name !== null && facts.name !== undefined ? String(facts.name) : undefined,
		datasetNames: check.datasetNames,
		warnings,
		facts,
		generated: false,
	};
}

/** Builds the config of the Simple form for item `itemIndex`, after checking the dataset is READY. */
export async function prepareSimpleConfig(ctx: IExecuteFunctions, itemIndex: number): Promise<PreparedConfig> {
	const datasetId = String(ctx.getNodeParameter('dataset', itemIndex, '', { extractValue: true }) ?? '').trim();
	if (!datasetId) throw refuse(ctx, itemIndex, ['no dataset was chosen: pick one from the list or enter its ID'], 'The Simple form');
	const numbers = readSimpleNumbers(ctx, itemIndex);
	const resolutionText = String((ctx.getNodeParameter('simpleOptions', itemIndex, {}) as IDataObject).resolution ?? '')
		.split(/[\s,]+/)
		.filter((s) => s.length > 0);
	const notWhole = resolutionText.find((r) => !/^\d+$/.test(r));
	if (notWhole !== undefined)
		throw refuse(ctx, itemIndex, [`Resolution "${notWhole}" is not a whole number from 64 to 4096`], 'The Simple form');
	const resolution = resolutionText.map(Number);
	const prompts = String(ctx.getNodeParameter('samplePrompts', itemIndex, '') ?? '')
		.split(/\r?\n/)
		.map((p) => p.trim())
		.filter((p) => p.length > 0);
	const input: SimpleConfigInput = {
		...numbers,
		name: String(ctx.getNodeParameter('jobName', itemIndex, '') ?? '').trim(),
		baseModel: String(ctx.getNodeParameter('baseModel', itemIndex, 'flux-dev')),
		datasetName: '(pending)',
		triggerWord: String(ctx.getNodeParameter('triggerWord', itemIndex, '') ?? ''),
		samplePrompts: prompts,
		resolution: resolution.length ? resolution : undefined,
	};
	const problems = checkSimpleInput(input);
	if (problems.length) throw refuse(ctx, itemIndex, problems, 'The Simple form');
	const dataset = (await getDatasetStatus(ctx, datasetId)) as IDataObject;
	const name = String(dataset.name ?? '');
	const status = String(dataset.status ?? '').toUpperCase();
	if (!name) throw refuse(ctx, itemIndex, [`dataset ${datasetId} has no name, so its folder_path cannot be written`], 'The Simple form');
	if (status !== 'READY') {
		throw refuse(
			ctx,
			itemIndex,
			[
				status === 'FAILED'
					? `dataset "${name}" FAILED (${String(dataset.error ?? 'no reason given')}); only READY datasets can be trained on`
					: `dataset "${name}" is ${status || 'in an unknown state'}, not READY: only READY datasets can be trained on. Wait for it with RunComfy Dataset → Wait Until Ready`,
			],
			'The Simple form',
		);
	}
	input.datasetName = name;
	return {
		// JSON text that YAML 1.1 and 1.2 read alike, sent as "yaml", the format the service documents
		configFile: buildSimpleConfigText(input),
		configFormat: 'yaml',
		name: input.name,
		datasetNames: [name],
		warnings: [],
		dataset: { id: datasetId, name, status },
		generated: true,
	};
}
