/**
 * Reading user configs (JSON exactly, YAML through the subset reader) and finding the keys the platform
 * constrains: config.name, config.process[].training_folder, config.process[].datasets[].folder_path.
 */
import { parseYamlSubset } from './yamlSubset';

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

export interface EmptiedKey {
	/** Where in the config, e.g. `config.process[0].train.steps`. */
	path: string;
	/** The expression written after the key, e.g. `{{ $json.steps }}`. */
	expression: string;
}

/** Every key whose value is null (YAML `steps:` with nothing after it), with its path. */
function nullKeys(value: unknown, path: string, found: Array<{ path: string; key: string }>): void {
	if (Array.isArray(value)) {
		value.forEach((entry, i) => nullKeys(entry, `${path}[${i}]`, found));
	} else if (isRecord(value)) {
		for (const [key, entry] of Object.entries(value)) {
			const at = path ? `${path}.${key}` : key;
			if (entry === null) found.push({ path: at, key });
			else nullKeys(entry, at, found);
		}
	}
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The keys an expression left empty: `steps: {{ $json.steps }}` in the template over a missing column reads as
 * `steps:` (null), which ai-toolkit would take as "no value". Only keys written with an expression right after
 * them count; a null typed in the config is the user's.
 */
export function keysEmptiedByExpressions(template: string, data: unknown): EmptiedKey[] {
	const found: Array<{ path: string; key: string }> = [];
	nullKeys(data, '', found);
	const emptied: EmptiedKey[] = [];
	for (const { path, key } of found) {
		const written = new RegExp(`(?:^|[\\s{,])["']?${escapeRegExp(key)}["']?\\s*:\\s*(\\{\\{[^\\n]*?\\}\\})`, 'm').exec(template);
		if (written) emptied.push({ path, expression: written[1] });
	}
	return emptied;
}
