/** helpers/config/pathRules.ts: the platform's path rules, each message naming the correct value. */
import {
	checkConfigPaths,
	datasetFolderPath,
	datasetNameFromFolderPath,
} from '../../../../nodes/RunComfyTraining/helpers/config/pathRules';
import { extractConfigFacts } from '../../../../nodes/RunComfyTraining/helpers/config/readConfig';

describe('path rules', () => {
	const datasets = [
		{ id: '11111111-aaaa', name: 'ready-ds', status: 'READY' },
		{ id: '22222222-bbbb', name: 'busy-ds', status: 'UPLOADING' },
	];
	const facts = (trainingFolder: unknown, folderPath: unknown) =>
		extractConfigFacts({ config: { name: 'n', process: [{ training_folder: trainingFolder, datasets: [{ folder_path: folderPath }] }] } });

	it('accepts the right paths of a READY dataset', () => {
		expect(checkConfigPaths(facts('/app/ai-toolkit/output', '/app/ai-toolkit/datasets/ready-ds'), datasets)).toEqual({
			problems: [],
			datasetNames: ['ready-ds'],
		});
	});

	it('names the correct value for each broken rule', () => {
		const wrongFolder = checkConfigPaths(facts('output', '/app/ai-toolkit/datasets/ready-ds'), datasets).problems;
		expect(wrongFolder).toEqual(['config.process[0].training_folder is "output" but must be "/app/ai-toolkit/output"']);
		const byId = checkConfigPaths(facts('/app/ai-toolkit/output', '/app/ai-toolkit/datasets/11111111-aaaa'), datasets).problems;
		expect(byId).toEqual([
			'config.process[0].datasets[0].folder_path uses the dataset\'s id; use its name: "/app/ai-toolkit/datasets/ready-ds"',
		]);
		const elsewhere = checkConfigPaths(facts('/app/ai-toolkit/output', '/data/ready-ds'), datasets).problems;
		expect(elsewhere[0]).toContain('here "/app/ai-toolkit/datasets/ready-ds"');
		const unknown = checkConfigPaths(facts('/app/ai-toolkit/output', '/app/ai-toolkit/datasets/nope'), datasets).problems;
		expect(unknown[0]).toContain('does not exist in this account; the datasets are: ready-ds (READY), busy-ds (UPLOADING)');
		const busy = checkConfigPaths(facts('/app/ai-toolkit/output', '/app/ai-toolkit/datasets/busy-ds'), datasets).problems;
		expect(busy[0]).toContain('Dataset "busy-ds" is UPLOADING, not READY');
		expect(
			checkConfigPaths(facts('/app/ai-toolkit/output', '/app/ai-toolkit/datasets/busy-ds'), datasets, { requireReady: false }).problems,
		).toEqual([]);
	});
});

describe('dataset folder paths', () => {
	it('puts the dataset name under the datasets folder and reads it back, refusing nested or empty names', () => {
		expect(datasetFolderPath('faces-v1')).toBe('/app/ai-toolkit/datasets/faces-v1');
		expect(datasetNameFromFolderPath('/app/ai-toolkit/datasets/faces-v1')).toBe('faces-v1');
		expect(datasetNameFromFolderPath('/app/ai-toolkit/datasets/a/b')).toBeUndefined();
		expect(datasetNameFromFolderPath('/app/ai-toolkit/datasets/')).toBeUndefined();
		expect(datasetNameFromFolderPath('/data/faces-v1')).toBeUndefined();
		expect(datasetNameFromFolderPath(42)).toBeUndefined();
	});
});
