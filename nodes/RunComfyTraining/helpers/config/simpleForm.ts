/**
 * The "Simple" form: a few fields in, a whole ai-toolkit LoRA config out. The config is sent as JSON text,
 * written so that YAML 1.1 and 1.2 readers (the service reads configs as YAML) read the same data.
 */
import { BASE_MODELS, findBaseModel } from './baseModels';
import { datasetFolderPath, TRAINING_FOLDER } from './pathRules';
import type { PlainValue } from './yamlSafeJson';
import { toYamlSafeJson } from './yamlSafeJson';

export interface SimpleConfigInput {
	/** `config.name`: the job name and the checkpoint file name. */
	name: string;
	baseModel: string;
	/** The dataset's name (not its id). */
	datasetName: string;
	steps: number;
	learningRate: number;
	/** LoRA rank (`network.linear`; alpha is set equal). 0 or absent: the preset's default. */
	rank?: number;
	triggerWord?: string;
	samplePrompts?: string[];
	saveEvery?: number;
	sampleEvery?: number;
	maxStepSavesToKeep?: number;
	batchSize?: number;
	resolution?: number[];
	seed?: number;
}

/** A job name ai-toolkit can use as a folder and file name. */
export const JOB_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Problems with a Simple form input (empty when fine). */
export function checkSimpleInput(input: SimpleConfigInput): string[] {
	const problems: string[] = [];
	if (!JOB_NAME_PATTERN.test(input.name)) {
		problems.push(
			`Job Name "${input.name}" cannot be used: use letters, digits, ".", "_" or "-" (up to 128 characters, starting with a letter or digit); it becomes the folder and checkpoint file name`,
		);
	}
	if (!findBaseModel(input.baseModel)) {
		problems.push(`Unknown base model "${input.baseModel}"; pick one of ${BASE_MODELS.map((m) => m.id).join(', ')}`);
	}
	if (!input.datasetName) problems.push('No dataset was chosen');
	if (!(Number.isInteger(input.steps) && input.steps >= 1))
		problems.push(`Steps must be a whole number of at least 1 (got ${input.steps})`);
	if (!(input.learningRate > 0 && input.learningRate < 1)) {
		problems.push(`Learning Rate must be between 0 and 1, e.g. 0.0001 (got ${input.learningRate})`);
	}
	if (input.rank !== undefined && input.rank !== 0 && !(Number.isInteger(input.rank) && input.rank >= 1 && input.rank <= 256)) {
		problems.push(`Rank must be a whole number from 1 to 256 (got ${input.rank})`);
	}
	for (const [label, v] of [
		['Save Every', input.saveEvery],
		['Sample Every', input.sampleEvery],
		['Max Step Saves to Keep', input.maxStepSavesToKeep],
		['Batch Size', input.batchSize],
	] as const) {
		if (v !== undefined && !(Number.isInteger(v) && v >= 1)) problems.push(`${label} must be a whole number of at least 1 (got ${v})`);
	}
	for (const r of input.resolution ?? []) {
		if (!(Number.isInteger(r) && r >= 64 && r <= 4096)) problems.push(`Resolution ${r} is not a whole number from 64 to 4096`);
	}
	return problems;
}

/** The ai-toolkit config (as data) of the Simple form. Call `checkSimpleInput` first. */
export function buildSimpleConfig(input: SimpleConfigInput): { [key: string]: PlainValue } {
	const preset = findBaseModel(input.baseModel);
	if (!preset) throw new Error(`Unknown base model "${input.baseModel}"`);
	const rank = input.rank && input.rank > 0 ? input.rank : preset.defaultRank;
	const prompts = (input.samplePrompts ?? []).map((p) => p.trim()).filter((p) => p.length > 0);
	const saveEvery = input.saveEvery ?? Math.max(1, Math.min(250, input.steps));
	const trigger = input.triggerWord?.trim();
	return {
		job: 'extension',
		config: {
			name: input.name,
			process: [
				{
					type: 'sd_trainer',
					training_folder: TRAINING_FOLDER,
					device: 'cuda:0',
					trigger_word: trigger ? trigger : undefined,
					network: { type: 'lora', linear: rank, linear_alpha: rank },
					save: {
						dtype: 'float16',
						save_every: saveEvery,
						max_step_saves_to_keep: input.maxStepSavesToKeep ?? 4,
						push_to_hub: false,
					},
					datasets: [
						{
							folder_path: datasetFolderPath(input.datasetName),
							caption_ext: 'txt',
							caption_dropout_rate: 0.05,
							shuffle_tokens: false,
							cache_latents_to_disk: true,
							resolution: input.resolution?.length ? [...input.resolution] : [...preset.resolution],
							...(preset.dataset ?? {}),
						},
					],
					train: {
						batch_size: input.batchSize ?? 1,
						steps: input.steps,
						gradient_accumulation_steps: 1,
						train_unet: true,
						train_text_encoder: false,
						gradient_checkpointing: true,
						noise_scheduler: preset.noiseScheduler,
						optimizer: 'adamw8bit',
						lr: input.learningRate,
						...(prompts.length === 0 ? { disable_sampling: true } : {}),
						ema_config: { use_ema: true, ema_decay: 0.99 },
						dtype: 'bf16',
						...(preset.train ?? {}),
					},
					model: { ...preset.model },
					sample: {
						sampler: preset.noiseScheduler,
						sample_every: input.sampleEvery ?? saveEvery,
						prompts,
						neg: '',
						seed: input.seed ?? 42,
						walk_seed: true,
						...preset.sample,
					},
				},
			],
		},
		meta: { name: '[name]', version: '1.0' },
	};
}

/** The Simple form's config as the text sent to the service (JSON, read alike by YAML 1.1 and 1.2). */
export function buildSimpleConfigText(input: SimpleConfigInput): string {
	return toYamlSafeJson(buildSimpleConfig(input));
}
