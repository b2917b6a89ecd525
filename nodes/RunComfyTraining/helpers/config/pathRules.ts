/**
 * The platform's path rules for training configs, with messages that carry the correct values: every
 * training_folder is TRAINING_FOLDER, every dataset folder_path is DATASET_FOLDER_PREFIX + the dataset's name.
 */
import type { ConfigFacts } from './readConfig';

export const TRAINING_FOLDER = '/app/ai-toolkit/output';
export const DATASET_FOLDER_PREFIX = '/app/ai-toolkit/datasets/';

export const datasetFolderPath = (datasetName: string): string => `${DATASET_FOLDER_PREFIX}${datasetName}`;

/** The dataset name a folder_path refers to, or undefined when it does not follow the rule. */
export function datasetNameFromFolderPath(value: unknown): string | undefined {
	if (typeof value !== 'string' || !value.startsWith(DATASET_FOLDER_PREFIX)) return undefined;
	const name = value.slice(DATASET_FOLDER_PREFIX.length);
	return name && !name.includes('/') ? name : undefined;
}

const show = (v: unknown): string => (typeof v === 'string' ? `"${v}"` : (JSON.stringify(v) ?? String(v)));

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
export function checkConfigPaths(facts: ConfigFacts, datasets?: KnownDataset[], options: { requireReady?: boolean } = {}): PathCheck {
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
					(guess ? `, here "${datasetFolderPath(guess.name)}"` : " (the dataset's name, not its id)"),
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
