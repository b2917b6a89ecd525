/**
 * Pure helpers for ai-toolkit training configs, used by the Training node (and its tests):
 * - a YAML emitter for the "Simple" form (no YAML library is available to published code),
 * - a careful reader for the subset of YAML that training configs use, so that the keys the platform
 *   constrains (config.name, config.process[].training_folder, config.process[].datasets[].folder_path) can be
 *   checked before a paid call,
 * - the path rules themselves, with messages that carry the correct values,
 * - picking the latest checkpoint among result artifacts.
 * Nothing here does I/O.
 */
import { DATASET_FOLDER_PREFIX, TRAINING_FOLDER } from './types';

// ---------------------------------------------------------------------------------------------------------------
// YAML emitter
// ---------------------------------------------------------------------------------------------------------------

type Plain = string | number | boolean | null | undefined | Plain[] | { [key: string]: Plain };

/** A string as a YAML double-quoted scalar. JSON string syntax is valid YAML; a few more code points are escaped. */
export function yamlString(value: string): string {
	const json = JSON.stringify(value);
	// JSON.stringify already escapes C0 controls, quotes and backslashes; escape the rest by code unit, but keep
	// well-formed surrogate pairs (emoji etc.) as they are.
	return json.replace(/[\u007f-\u009f\u2028\u2029\ufeff]|[\ud800-\udbff][\udc00-\udfff]|[\ud800-\udfff]/g, (c) =>
		c.length === 2 ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
	);
}

/** A number that YAML 1.1 and 1.2 both read as a number (PyYAML needs a dot in floats: `1.0e-4`, not `1e-4`). */
export function yamlNumber(value: number): string {
	if (!Number.isFinite(value)) throw new Error(`Cannot write ${value} into a training config`);
	if (Number.isInteger(value) && Math.abs(value) < 1e21) return String(value);
	const text = String(value);
	const match = /^(-?)(\d+)(?:\.(\d+))?e([+-])(\d+)$/.exec(text);
	if (match) {
		const [, sign, int, frac, expSign, exp] = match;
		return `${sign}${int}.${frac ?? '0'}e${expSign}${exp}`;
	}
	return text;
}

function yamlKey(key: string): string {
	return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? key : yamlString(key);
}

function yamlScalar(value: Plain): string {
	if (value === null || value === undefined) return 'null';
	if (typeof value === 'string') return yamlString(value);
	if (typeof value === 'number') return yamlNumber(value);
	if (typeof value === 'boolean') return value ? 'true' : 'false';
	if (Array.isArray(value)) return '[]';
	return '{}';
}

const isNonEmptyCollection = (value: Plain): boolean =>
	Array.isArray(value)
		? value.length > 0
		: typeof value === 'object' && value !== null && Object.values(value).some((v) => v !== undefined);

function emitBlock(value: Plain, indent: number): string[] {
	const pad = ' '.repeat(indent);
	const lines: string[] = [];
	if (Array.isArray(value)) {
		for (const item of value) {
			if (isNonEmptyCollection(item)) {
				const sub = emitBlock(item, indent + 2);
				sub[0] = `${pad}- ${sub[0].slice(indent + 2)}`;
				lines.push(...sub);
			} else {
				lines.push(`${pad}- ${yamlScalar(item)}`);
			}
		}
		return lines;
	}
	if (typeof value === 'object' && value !== null) {
		for (const [key, child] of Object.entries(value)) {
			if (child === undefined) continue;
			if (isNonEmptyCollection(child)) {
				lines.push(`${pad}${yamlKey(key)}:`);
				lines.push(...emitBlock(child, indent + 2));
			} else {
				lines.push(`${pad}${yamlKey(key)}: ${yamlScalar(child)}`);
			}
		}
		return lines;
	}
	return [`${pad}${yamlScalar(value)}`];
}

/** Block-style YAML for plain data (objects, arrays, strings, finite numbers, booleans, null). */
export function toYaml(value: Plain, header?: string): string {
	const lines = header ? header.split('\n').map((l) => `# ${l}`) : [];
	lines.push('---', ...emitBlock(value, 0));
	return `${lines.join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------------------------
// The "Simple" form
// ---------------------------------------------------------------------------------------------------------------

export interface BaseModelPreset {
	/** Option value in the node. */
	id: string;
	/** Option label. */
	label: string;
	summary: string;
	/** `config.process[0].model` */
	model: { [key: string]: Plain };
	/** Additions to `config.process[0].train`. */
	train?: { [key: string]: Plain };
	/** Additions to `config.process[0].datasets[0]`. */
	dataset?: { [key: string]: Plain };
	/** Additions to `config.process[0].sample`. */
	sample: { [key: string]: Plain };
	noiseScheduler: 'flowmatch' | 'ddpm';
	resolution: number[];
	defaultRank: number;
	video?: boolean;
}

/**
 * Base models of the Simple form, after ai-toolkit's own example configs (config/examples/*.yaml and the UI's
 * model list), sized for the 80 GB / 141 GB GPUs the trainer offers (8-bit quantisation, no low-VRAM tricks).
 */
export const BASE_MODELS: BaseModelPreset[] = [
	{
		id: 'flux-dev',
		label: 'FLUX.1 [dev]',
		summary: 'black-forest-labs/FLUX.1-dev, images, the most common LoRA base',
		model: { name_or_path: 'black-forest-labs/FLUX.1-dev', arch: 'flux', quantize: true, quantize_te: true },
		sample: { guidance_scale: 4, sample_steps: 20, width: 1024, height: 1024 },
		noiseScheduler: 'flowmatch',
		resolution: [512, 768, 1024],
		defaultRank: 16,
	},
	{
		id: 'flux-schnell',
		label: 'FLUX.1 [schnell]',
		summary: 'black-forest-labs/FLUX.1-schnell with the schnell training adapter, images, Apache-2.0',
		model: {
			name_or_path: 'black-forest-labs/FLUX.1-schnell',
			arch: 'flux',
			assistant_lora_path: 'ostris/FLUX.1-schnell-training-adapter',
			quantize: true,
			quantize_te: true,
		},
		sample: { guidance_scale: 1, sample_steps: 4, width: 1024, height: 1024 },
		noiseScheduler: 'flowmatch',
		resolution: [512, 768, 1024],
		defaultRank: 16,
	},
	{
		id: 'qwen-image',
		label: 'Qwen-Image',
		summary: 'Qwen/Qwen-Image, images, strong text rendering',
		model: { name_or_path: 'Qwen/Qwen-Image', arch: 'qwen_image', quantize: true, qtype: 'qfloat8', quantize_te: true },
		train: { timestep_type: 'weighted' },
		sample: { guidance_scale: 3, sample_steps: 25, width: 1024, height: 1024 },
		noiseScheduler: 'flowmatch',
		resolution: [512, 768, 1024],
		defaultRank: 16,
	},
	{
		id: 'sdxl',
		label: 'SDXL 1.0',
		summary: 'stabilityai/stable-diffusion-xl-base-1.0, images',
		model: { name_or_path: 'stabilityai/stable-diffusion-xl-base-1.0', arch: 'sdxl', quantize: false },
		sample: { guidance_scale: 6, sample_steps: 30, width: 1024, height: 1024 },
		noiseScheduler: 'ddpm',
		resolution: [1024],
		defaultRank: 16,
	},
	{
		id: 'wan21-14b',
		label: 'Wan 2.1 T2V 14B',
		summary: 'Wan-AI/Wan2.1-T2V-14B-Diffusers, video (trains on images or video frames)',
		model: { name_or_path: 'Wan-AI/Wan2.1-T2V-14B-Diffusers', arch: 'wan21', quantize: true, quantize_te: true },
		train: { timestep_type: 'sigmoid' },
		dataset: { num_frames: 1 },
		sample: { guidance_scale: 5, sample_steps: 30, width: 832, height: 480, num_frames: 41, fps: 16 },
		noiseScheduler: 'flowmatch',
		resolution: [632],
		defaultRank: 32,
		video: true,
	},
	{
		id: 'wan22-14b',
		label: 'Wan 2.2 T2V 14B',
		summary: 'ai-toolkit/Wan2.2-T2V-A14B-Diffusers-bf16 (both experts), video',
		model: {
			name_or_path: 'ai-toolkit/Wan2.2-T2V-A14B-Diffusers-bf16',
			arch: 'wan22_14b',
			quantize: true,
			qtype: 'qfloat8',
			quantize_te: true,
			qtype_te: 'qfloat8',
			model_kwargs: { train_high_noise: true, train_low_noise: true },
		},
		train: { timestep_type: 'linear', switch_boundary_every: 10 },
		dataset: { num_frames: 1 },
		sample: { guidance_scale: 3.5, sample_steps: 25, width: 1024, height: 1024, num_frames: 1, fps: 16 },
		noiseScheduler: 'flowmatch',
		resolution: [512, 768, 1024],
		defaultRank: 32,
		video: true,
	},
];

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
	if (!BASE_MODELS.some((m) => m.id === input.baseModel)) {
		problems.push(`Unknown base model "${input.baseModel}"; pick one of ${BASE_MODELS.map((m) => m.id).join(', ')}`);
	}
	if (!input.datasetName) problems.push('No dataset was chosen');
	if (!(Number.isInteger(input.steps) && input.steps >= 1)) problems.push(`Steps must be a whole number of at least 1 (got ${input.steps})`);
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
export function buildSimpleConfig(input: SimpleConfigInput): { [key: string]: Plain } {
	const preset = BASE_MODELS.find((m) => m.id === input.baseModel);
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
							resolution: input.resolution?.length ? input.resolution : preset.resolution,
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

export function buildSimpleConfigYaml(input: SimpleConfigInput): string {
	const preset = BASE_MODELS.find((m) => m.id === input.baseModel);
	return toYaml(
		buildSimpleConfig(input),
		`ai-toolkit LoRA config generated by the RunComfy n8n node (base model: ${preset?.label ?? input.baseModel})`,
	);
}

// ---------------------------------------------------------------------------------------------------------------
// Reading user configs: JSON exactly, YAML through a careful subset reader
// ---------------------------------------------------------------------------------------------------------------

export class YamlSubsetError extends Error {
	constructor(message: string, readonly line?: number) {
		super(line ? `${message} (line ${line})` : message);
		this.name = 'YamlSubsetError';
	}
}

const MERGE_KEY = '<<';

/** YAML 1.1 plain scalar resolution (as PyYAML, which ai-toolkit uses, reads it). */
function resolvePlain(text: string): unknown {
	if (text === '' || text === '~' || /^(null|Null|NULL)$/.test(text)) return null;
	if (/^(true|True|TRUE|yes|Yes|YES|on|On|ON)$/.test(text)) return true;
	if (/^(false|False|FALSE|no|No|NO|off|Off|OFF)$/.test(text)) return false;
	if (/^[-+]?(0|[1-9][0-9_]*)$/.test(text)) return Number(text.replace(/_/g, ''));
	if (/^[-+]?([0-9][0-9_]*)?\.[0-9_]*([eE][-+][0-9]+)?$/.test(text) && /[0-9]/.test(text)) {
		return Number(text.replace(/_/g, ''));
	}
	if (/^[-+]?\.(inf|Inf|INF)$/.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
	if (/^\.(nan|NaN|NAN)$/.test(text)) return NaN;
	return text;
}

const DOUBLE_ESCAPES: Record<string, string> = {
	'0': '\0',
	a: '\x07',
	b: '\b',
	t: '\t',
	'\t': '\t',
	n: '\n',
	v: '\v',
	f: '\f',
	r: '\r',
	e: '\x1b',
	' ': ' ',
	'"': '"',
	'/': '/',
	'\\': '\\',
	N: '\u0085',
	_: '\u00a0',
	L: '\u2028',
	P: '\u2029',
};

/** Reads a quoted scalar starting at `text[start]`; returns the value and the index after the closing quote. */
function readQuoted(text: string, start: number, lineNo: number): { value: string; end: number } {
	const quote = text[start];
	let out = '';
	let i = start + 1;
	while (i < text.length) {
		const c = text[i];
		if (c === '\n') {
			// line folding inside a multi-line quoted scalar: trim around the break; one break → space, n breaks → n-1 newlines
			out = out.replace(/[ \t]+$/, '');
			let breaks = 0;
			while (i < text.length && /[\n \t]/.test(text[i])) {
				if (text[i] === '\n') breaks++;
				i++;
			}
			out += breaks === 1 ? ' ' : '\n'.repeat(breaks - 1);
			continue;
		}
		if (quote === "'") {
			if (c === "'") {
				if (text[i + 1] === "'") {
					out += "'";
					i += 2;
					continue;
				}
				return { value: out, end: i + 1 };
			}
			out += c;
			i++;
			continue;
		}
		if (c === '"') return { value: out, end: i + 1 };
		if (c === '\\') {
			const e = text[i + 1];
			if (e === undefined) throw new YamlSubsetError('A quoted string is not closed', lineNo);
			if (e === '\n') {
				// escaped line break: join without a space, skip leading blanks of the next line
				i += 2;
				while (text[i] === ' ' || text[i] === '\t') i++;
				continue;
			}
			const hexLength = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
			if (hexLength) {
				const hex = text.slice(i + 2, i + 2 + hexLength);
				if (!new RegExp(`^[0-9a-fA-F]{${hexLength}}$`).test(hex)) {
					throw new YamlSubsetError(`Bad \\${e} escape in a double-quoted string`, lineNo);
				}
				out += String.fromCodePoint(parseInt(hex, 16));
				i += 2 + hexLength;
				continue;
			}
			if (!(e in DOUBLE_ESCAPES)) throw new YamlSubsetError(`Unknown escape \\${e} in a double-quoted string`, lineNo);
			out += DOUBLE_ESCAPES[e];
			i += 2;
			continue;
		}
		out += c;
		i++;
	}
	throw new YamlSubsetError('A quoted string is not closed', lineNo);
}

/** Index of the `:` that ends a block mapping key in `content`, or -1 (outside quotes and flow brackets). */
function findMappingColon(content: string): number {
	let i = 0;
	if (content[0] === '"' || content[0] === "'") {
		try {
			i = readQuoted(content, 0, 0).end;
		} catch {
			return -1;
		}
		while (content[i] === ' ' || content[i] === '\t') i++;
		return content[i] === ':' && (i + 1 === content.length || /[ \t]/.test(content[i + 1])) ? i : -1;
	}
	if (content[0] === '[' || content[0] === '{' || content[0] === '#') return -1;
	for (; i < content.length; i++) {
		const c = content[i];
		if (c === '#' && i > 0 && /[ \t]/.test(content[i - 1])) return -1;
		if (c === ':' && (i + 1 === content.length || /[ \t]/.test(content[i + 1]))) return i;
	}
	return -1;
}

/** Removes a trailing ` # comment` from a plain (unquoted) value. */
function stripPlainComment(text: string): string {
	const m = /(^|[ \t])#/.exec(text);
	return (m ? text.slice(0, m.index) : text).trim();
}

const isSeqEntry = (content: string): boolean => content === '-' || content.startsWith('- ') || content.startsWith('-\t');

/** Minimal flow-collection reader (`[a, "b", {c: d}]`). */
class FlowReader {
	i = 0;

	constructor(
		private readonly text: string,
		private readonly lineNo: number,
	) {}

	private skip(): void {
		while (this.i < this.text.length) {
			const c = this.text[this.i];
			if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
				this.i++;
			} else if (c === '#' && (this.i === 0 || /\s/.test(this.text[this.i - 1]))) {
				while (this.i < this.text.length && this.text[this.i] !== '\n') this.i++;
			} else {
				return;
			}
		}
	}

	value(): unknown {
		this.skip();
		const c = this.text[this.i];
		if (c === '[') return this.seq();
		if (c === '{') return this.map();
		if (c === '"' || c === "'") {
			const q = readQuoted(this.text, this.i, this.lineNo);
			this.i = q.end;
			return q.value;
		}
		if (c === '*') throw new YamlSubsetError('Aliases (*name) are not read by this node', this.lineNo);
		const start = this.i;
		while (this.i < this.text.length) {
			const ch = this.text[this.i];
			if (ch === ',' || ch === ']' || ch === '}') break;
			if (ch === ':' && /[\s,\]}]/.test(this.text[this.i + 1] ?? ' ')) break;
			if (ch === '#' && /\s/.test(this.text[this.i - 1] ?? '')) break;
			this.i++;
		}
		// a plain scalar may continue over lines: fold them (one line break → space, each empty line → newline)
		const lines = this.text.slice(start, this.i).split('\n').map((l) => l.trim());
		while (lines.length && lines[lines.length - 1] === '') lines.pop();
		let folded = '';
		for (const line of lines) {
			if (line === '') folded += '\n';
			else folded += folded === '' || folded.endsWith('\n') ? line : ` ${line}`;
		}
		return resolvePlain(folded);
	}

	private seq(): unknown[] {
		const out: unknown[] = [];
		this.i++;
		for (;;) {
			this.skip();
			if (this.text[this.i] === ']') {
				this.i++;
				return out;
			}
			out.push(this.value());
			this.skip();
			if (this.text[this.i] === ',') this.i++;
			else if (this.text[this.i] !== ']') throw new YamlSubsetError('Expected "," or "]" in a flow sequence', this.lineNo);
		}
	}

	private map(): Record<string, unknown> {
		const out: Record<string, unknown> = {};
		this.i++;
		for (;;) {
			this.skip();
			if (this.text[this.i] === '}') {
				this.i++;
				return out;
			}
			const key = this.value();
			this.skip();
			let value: unknown = null;
			if (this.text[this.i] === ':') {
				this.i++;
				this.skip();
				value = this.text[this.i] === ',' || this.text[this.i] === '}' ? null : this.value();
			}
			setKey(out, String(key), value);
			this.skip();
			if (this.text[this.i] === ',') this.i++;
			else if (this.text[this.i] !== '}') throw new YamlSubsetError('Expected "," or "}" in a flow mapping', this.lineNo);
		}
	}

	rest(): string {
		return this.text.slice(this.i);
	}
}

function setKey(target: Record<string, unknown>, key: string, value: unknown): void {
	if (key === MERGE_KEY) {
		throw new YamlSubsetError('Merge keys (<<) are not read by this node');
	}
	Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A quoted scalar or flow collection written inline, with nothing but a comment after it. */
function readInlineCollection(source: string, lineNo: number): { value: unknown } | { error: unknown } {
	try {
		let value: unknown;
		let rest: string;
		if (source[0] === '"' || source[0] === "'") {
			const q = readQuoted(source, 0, lineNo);
			value = q.value;
			rest = source.slice(q.end);
		} else {
			const reader = new FlowReader(source, lineNo);
			value = reader.value();
			rest = reader.rest();
		}
		if (rest.trim() !== '' && !rest.trim().startsWith('#')) {
			return { error: new YamlSubsetError('Unexpected text after a value', lineNo) };
		}
		return { value };
	} catch (error) {
		return { error };
	}
}

class BlockReader {
	private pos = 0;

	private readonly lines: string[];

	private readonly end: number;

	constructor(source: string) {
		const all = source.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
		let start = 0;
		// directives and the first document marker
		while (start < all.length && (isBlankLine(all[start]) || all[start].startsWith('%'))) start++;
		if (start < all.length && /^---(\s+#.*)?\s*$/.test(all[start])) start++;
		else if (start < all.length && /^---\s/.test(all[start])) {
			throw new YamlSubsetError('Content on the "---" line is not read by this node', start + 1);
		}
		let end = start;
		while (end < all.length && !/^(---|\.\.\.)(\s.*)?$/.test(all[end])) end++;
		this.lines = all;
		this.pos = start;
		this.end = end;
	}

	read(): unknown {
		const value = this.block(0);
		const next = this.nextContent();
		if (next >= 0) throw new YamlSubsetError('Unexpected content', next + 1);
		return value;
	}

	private indentOf(index: number): number {
		const line = this.lines[index];
		const m = /^( *)/.exec(line);
		const indent = m ? m[1].length : 0;
		if (line[indent] === '\t') throw new YamlSubsetError('Tabs cannot indent YAML', index + 1);
		return indent;
	}

	private nextContent(): number {
		while (this.pos < this.end && isBlankLine(this.lines[this.pos])) this.pos++;
		return this.pos < this.end ? this.pos : -1;
	}

	private block(minIndent: number): unknown {
		const i = this.nextContent();
		if (i < 0) return null;
		const indent = this.indentOf(i);
		if (indent < minIndent) return null;
		const content = this.lines[i].slice(indent);
		if (isSeqEntry(content)) return this.sequence(indent);
		if (findMappingColon(content) >= 0) return this.mapping(indent);
		const text = this.lines[i].slice(indent);
		this.pos = i + 1;
		return this.inlineValue(text, indent - 1, i);
	}

	/** The next content line of the block at `indent` (its index, its text after the indentation); none at the block's end. */
	private nextEntry(indent: number): { i: number; content: string } | undefined {
		const i = this.nextContent();
		if (i < 0) return undefined;
		const lineIndent = this.indentOf(i);
		if (lineIndent < indent) return undefined;
		if (lineIndent > indent) throw new YamlSubsetError('Unexpected indentation', i + 1);
		return { i, content: this.lines[i].slice(indent) };
	}

	private mapping(indent: number): Record<string, unknown> {
		const out: Record<string, unknown> = {};
		for (;;) {
			const entry = this.nextEntry(indent);
			if (!entry) break;
			const { i, content } = entry;
			if (isSeqEntry(content)) throw new YamlSubsetError('A list item where a key was expected', i + 1);
			const colon = findMappingColon(content);
			if (colon < 0) throw new YamlSubsetError('Expected "key: value"', i + 1);
			const keyText = content.slice(0, colon).trim();
			if (keyText.startsWith('?')) throw new YamlSubsetError('Complex keys (?) are not read by this node', i + 1);
			const key =
				keyText.startsWith('"') || keyText.startsWith("'")
					? readQuoted(keyText, 0, i + 1).value
					: String(resolvePlain(keyText) ?? 'null');
			this.pos = i + 1;
			setKey(out, key, this.inlineValue(content.slice(colon + 1), indent, i, true));
		}
		return out;
	}

	private sequence(indent: number): unknown[] {
		const out: unknown[] = [];
		for (;;) {
			const entry = this.nextEntry(indent);
			if (!entry) break;
			const { i, content } = entry;
			if (!isSeqEntry(content)) break;
			const after = content.slice(1);
			const rest = after.replace(/^[ \t]+/, '');
			const column = indent + 1 + (after.length - rest.length);
			if (rest === '' || rest.startsWith('#')) {
				this.pos = i + 1;
				out.push(this.inlineValue('', indent, i));
			} else if (isSeqEntry(rest) || findMappingColon(rest) >= 0) {
				// compact nested collection: "- key: value" / "- - x" → re-read the line with the dash as indentation
				this.lines[i] = ' '.repeat(column) + rest;
				this.pos = i;
				out.push(this.block(column));
			} else {
				this.pos = i + 1;
				out.push(this.inlineValue(rest, indent, i));
			}
		}
		return out;
	}

	/** The value written after `key:` or `- ` on line `lineIndex` (`raw` is the text after the indicator). */
	private inlineValue(raw: string, parentIndent: number, lineIndex: number, isMapValue = false): unknown {
		let text = raw.replace(/^[ \t]+/, '');
		const lineNo = lineIndex + 1;
		// node properties: anchors are dropped, tags must be the standard ones (!!str keeps a plain scalar a string)
		let asString = false;
		for (;;) {
			const prop = /^([&!][^\s]*)(\s+|$)/.exec(text);
			if (!prop) break;
			if (prop[1].startsWith('!') && !/^!!(str|int|float|bool|null|map|seq)$/.test(prop[1])) {
				throw new YamlSubsetError(`Tag ${prop[1]} is not read by this node`, lineNo);
			}
			if (prop[1] === '!!str') asString = true;
			text = text.slice(prop[0].length);
		}
		if (text === '' || text.startsWith('#')) {
			const i = this.nextContent();
			if (i < 0) return null;
			const indent = this.indentOf(i);
			if (indent > parentIndent) return this.block(indent);
			if (isMapValue && indent === parentIndent && isSeqEntry(this.lines[i].slice(indent))) return this.sequence(indent);
			return null;
		}
		const first = text[0];
		if (first === '*') throw new YamlSubsetError('Aliases (*name) are not read by this node', lineNo);
		if (first === '|' || first === '>') return this.blockScalar(text, parentIndent, lineNo);
		if (first === '"' || first === "'" || first === '[' || first === '{') {
			// may continue on the following lines: feed more lines until the value closes
			let source = text;
			for (;;) {
				const attempt = readInlineCollection(source, lineNo);
				if ('value' in attempt) return attempt.value;
				const failure = attempt.error;
				const unfinished =
					failure instanceof YamlSubsetError && /not closed|Expected "," or/.test(failure.message) && this.pos < this.end;
				if (!unfinished) throw failure;
				source += `\n${this.lines[this.pos]}`;
				this.pos++;
			}
		}
		// plain scalar, possibly continued on more-indented lines
		let value = stripPlainComment(text);
		if (findMappingColon(text) >= 0) throw new YamlSubsetError('A nested mapping must start on its own line', lineNo);
		for (;;) {
			const from = this.pos;
			const i = this.nextContent();
			if (i < 0) break;
			const indent = this.indentOf(i);
			if (indent <= parentIndent) break;
			// a comment line ends a plain scalar; blank lines inside it become line breaks
			const between = this.lines.slice(from, i);
			if (between.some((l) => l.trim() !== '')) break;
			const content = this.lines[i].slice(indent);
			if (findMappingColon(content) >= 0 || isSeqEntry(content)) {
				throw new YamlSubsetError('Unexpected indentation', i + 1);
			}
			value = between.length ? `${value}${'\n'.repeat(between.length)}${stripPlainComment(content)}` : `${value} ${stripPlainComment(content)}`;
			this.pos = i + 1;
		}
		return asString ? value : resolvePlain(value);
	}

	private blockScalar(header: string, parentIndent: number, lineNo: number): string {
		const m = /^([|>])([1-9]?)([+-]?)([1-9]?)\s*(#.*)?$/.exec(header);
		if (!m) throw new YamlSubsetError('Unreadable block scalar header', lineNo);
		const literal = m[1] === '|';
		const chomp = m[3];
		const explicit = Number(m[2] || m[4] || 0);
		const body: string[] = [];
		let indent = explicit ? parentIndent + explicit : -1;
		while (this.pos < this.end) {
			const line = this.lines[this.pos];
			if (line.trim() === '') {
				body.push('');
				this.pos++;
				continue;
			}
			const lineIndent = /^( *)/.exec(line)![1].length;
			if (indent < 0) indent = lineIndent;
			if (lineIndent < indent || lineIndent <= parentIndent) break;
			body.push(line.slice(indent));
			this.pos++;
		}
		let trailing = 0;
		while (body.length && body[body.length - 1] === '') {
			body.pop();
			trailing++;
		}
		let text: string;
		if (literal) {
			text = body.join('\n');
		} else {
			text = '';
			for (let k = 0; k < body.length; k++) {
				const line = body[k];
				if (k === 0) text = line;
				else if (line === '') text += '\n';
				else if (body[k - 1] === '' || line.startsWith(' ') || body[k - 1].startsWith(' ')) text += (text.endsWith('\n') ? '' : '\n') + line;
				else text += ` ${line}`;
			}
		}
		if (body.length === 0) return '';
		if (chomp === '-') return text;
		if (chomp === '+') return `${text}\n${'\n'.repeat(trailing)}`;
		return `${text}\n`;
	}
}

function isBlankLine(line: string): boolean {
	const t = line.trim();
	return t === '' || t.startsWith('#');
}

/** Reads the first document of a YAML text (the subset used by training configs). Throws YamlSubsetError. */
export function parseYamlSubset(source: string): unknown {
	return new BlockReader(source).read();
}

export type ConfigFormat = 'yaml' | 'json';

export interface ReadConfig {
	format: ConfigFormat;
	/** The parsed document, when it could be read. */
	data?: unknown;
	/** Why it could not be read (YAML outside the subset, or invalid JSON). */
	readError?: string;
}

/**
 * Reads a config text. `format` 'auto' takes text starting with `{` as JSON when it parses as JSON, else YAML.
 * JSON is parsed exactly; YAML with the subset reader (a failure there is reported, not thrown).
 */
export function readConfigText(text: string, format: ConfigFormat | 'auto'): ReadConfig {
	const trimmed = text.trim();
	if (format === 'json' || (format === 'auto' && trimmed.startsWith('{'))) {
		try {
			return { format: 'json', data: JSON.parse(trimmed) };
		} catch (error) {
			if (format === 'json') return { format: 'json', readError: `The config is not valid JSON: ${(error as Error).message}` };
		}
	}
	try {
		return { format: 'yaml', data: parseYamlSubset(text) };
	} catch (error) {
		return { format: 'yaml', readError: (error as Error).message };
	}
}

export interface ConfigFacts {
	/** config.name when present. */
	name?: unknown;
	hasName: boolean;
	/** Whether a `config` mapping with a `process` list was found. */
	hasProcess: boolean;
	trainingFolders: Array<{ path: string; value: unknown }>;
	datasetFolders: Array<{ path: string; value: unknown }>;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The constrained keys of a parsed ai-toolkit config. */
export function extractConfigFacts(data: unknown): ConfigFacts {
	const facts: ConfigFacts = { hasName: false, hasProcess: false, trainingFolders: [], datasetFolders: [] };
	const config = isRecord(data) ? data.config : undefined;
	if (!isRecord(config)) return facts;
	if (Object.prototype.hasOwnProperty.call(config, 'name')) {
		facts.hasName = true;
		facts.name = config.name;
	}
	const process = config.process;
	if (!Array.isArray(process)) return facts;
	facts.hasProcess = true;
	process.forEach((step, p) => {
		if (!isRecord(step)) return;
		if (Object.prototype.hasOwnProperty.call(step, 'training_folder')) {
			facts.trainingFolders.push({ path: `config.process[${p}].training_folder`, value: step.training_folder });
		}
		if (Array.isArray(step.datasets)) {
			step.datasets.forEach((ds, d) => {
				if (isRecord(ds) && Object.prototype.hasOwnProperty.call(ds, 'folder_path')) {
					facts.datasetFolders.push({ path: `config.process[${p}].datasets[${d}].folder_path`, value: ds.folder_path });
				}
			});
		}
	});
	return facts;
}

export const datasetFolderPath = (datasetName: string): string => `${DATASET_FOLDER_PREFIX}${datasetName}`;

/** The dataset name a folder_path refers to, or undefined when it does not follow the rule. */
export function datasetNameFromFolderPath(value: unknown): string | undefined {
	if (typeof value !== 'string' || !value.startsWith(DATASET_FOLDER_PREFIX)) return undefined;
	const name = value.slice(DATASET_FOLDER_PREFIX.length);
	return name && !name.includes('/') ? name : undefined;
}

const show = (v: unknown): string => (typeof v === 'string' ? `"${v}"` : JSON.stringify(v) ?? String(v));

export interface KnownDataset {
	id: string;
	name: string;
	status: string;
}

export interface PathCheck {
	problems: string[];
	/** Names of datasets the config mounts (from folder paths that follow the rule). */
	datasetNames: string[];
}

/**
 * The platform's path rules: every training_folder must be TRAINING_FOLDER; every dataset folder_path must be
 * DATASET_FOLDER_PREFIX + the dataset's name. With `datasets` (the account's datasets) the names are also looked
 * up: unknown names, ids used instead of names, and datasets that are not READY are problems.
 */
export function checkConfigPaths(
	facts: ConfigFacts,
	datasets?: KnownDataset[],
	options: { requireReady?: boolean } = {},
): PathCheck {
	const requireReady = options.requireReady ?? true;
	const problems: string[] = [];
	const datasetNames: string[] = [];
	for (const { path, value } of facts.trainingFolders) {
		if (value !== TRAINING_FOLDER) problems.push(`${path} is ${show(value)} but must be "${TRAINING_FOLDER}"`);
	}
	for (const { path, value } of facts.datasetFolders) {
		const name = datasetNameFromFolderPath(value);
		const byId = datasets?.find((d) => d.id === name || (typeof value === 'string' && value.endsWith(`/${d.id}`)));
		const byName = name === undefined ? undefined : datasets?.find((d) => d.name === name);
		if (name === undefined) {
			const guess =
				typeof value === 'string' ? datasets?.find((d) => value.endsWith(`/${d.name}`) || value.endsWith(`/${d.id}`)) : undefined;
			problems.push(
				`${path} is ${show(value)} but must be "${DATASET_FOLDER_PREFIX}<dataset name>"` +
					(guess ? `, here "${datasetFolderPath(guess.name)}"` : ' (the dataset\'s name, not its id)'),
			);
			continue;
		}
		if (datasets && !byName && byId) {
			problems.push(`${path} uses the dataset's id; use its name: "${datasetFolderPath(byId.name)}"`);
			continue;
		}
		datasetNames.push(name);
		if (!datasets) continue;
		if (!byName) {
			const known = datasets.map((d) => `${d.name} (${d.status})`).join(', ');
			problems.push(
				`${path} refers to dataset "${name}", which does not exist in this account` +
					(known ? `; the datasets are: ${known}` : '; the account has no datasets'),
			);
		} else if (requireReady && String(byName.status).toUpperCase() !== 'READY') {
			problems.push(
				`Dataset "${name}" is ${byName.status}, not READY: only READY datasets can be trained on. Wait for it with RunComfy Dataset → Wait Until Ready`,
			);
		}
	}
	return { problems, datasetNames };
}

// ---------------------------------------------------------------------------------------------------------------
// Checkpoints
// ---------------------------------------------------------------------------------------------------------------

/** `name_000002000.safetensors` → 2000; a checkpoint without a step number is the final save (Infinity). */
export function checkpointStep(url: string): number | undefined {
	let pathname = url;
	try {
		pathname = new URL(url).pathname;
	} catch {
		// not a URL: use as is
	}
	const file = decodeURIComponent(pathname.split('/').pop() ?? '');
	if (!/\.safetensors$/i.test(file)) return undefined;
	const m = /_(\d+)\.safetensors$/i.exec(file);
	return m ? Number(m[1]) : Infinity;
}

/** The latest checkpoint: the final save if present, else the highest step; later in the list wins ties. */
export function pickLatestCheckpoint<T extends { url: string }>(found: T[]): T | undefined {
	let best: T | undefined;
	let bestStep = -1;
	for (const entry of found) {
		const step = checkpointStep(entry.url);
		if (step === undefined) continue;
		if (step >= bestStep) {
			best = entry;
			bestStep = step;
		}
	}
	return best;
}

/** A wait duration for messages: 0.2 s, 45 s, 12.5 min, 8 h. */
export function formatDuration(ms: number): string {
	if (ms >= 3_600_000) return `${Math.round(ms / 360_000) / 10} h`;
	if (ms >= 60_000) return `${Math.round(ms / 6_000) / 10} min`;
	return `${ms < 10_000 ? Math.round(ms / 100) / 10 : Math.round(ms / 1000)} s`;
}
