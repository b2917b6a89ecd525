/**
 * Base models of the Simple form, after ai-toolkit's own example configs (config/examples/*.yaml and the UI's
 * model list), sized for the 80 GB / 141 GB GPUs the trainer offers (8-bit quantisation, no low-VRAM tricks).
 * The presets themselves are data: baseModels.json.
 */
import presets from './baseModels.json';
import type { PlainValue } from './yamlSafeJson';

type Section = { [key: string]: PlainValue };

export interface BaseModelPreset {
	/** Option value in the node. */
	id: string;
	/** Option label. */
	label: string;
	summary: string;
	/** `config.process[0].model` */
	model: Section;
	/** Additions to `config.process[0].train`. */
	train?: Section;
	/** Additions to `config.process[0].datasets[0]`. */
	dataset?: Section;
	/** Additions to `config.process[0].sample`. */
	sample: Section;
	noiseScheduler: 'flowmatch' | 'ddpm';
	resolution: number[];
	defaultRank: number;
	video?: boolean;
}

export const BASE_MODELS: readonly BaseModelPreset[] = presets as BaseModelPreset[];

export const findBaseModel = (id: string): BaseModelPreset | undefined => BASE_MODELS.find((m) => m.id === id);
