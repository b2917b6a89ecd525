/** helpers/config/readConfig.ts: reading config text (JSON exactly, YAML with the subset reader) and the constrained keys. */
import { extractConfigFacts, readConfigText } from '../../../../nodes/RunComfyTraining/helpers/config/readConfig';
import { parseYamlSubset } from '../../../../nodes/RunComfyTraining/helpers/config/yamlSubset';
import { CORPUS } from './yamlCorpus';

describe('reading a config', () => {
	it('extracts the constrained keys (and only reports what it found)', () => {
		expect(extractConfigFacts(parseYamlSubset(CORPUS.multiLineFlowAndQuotes))).toEqual({
			hasName: true,
			name: "it's quoted",
			hasProcess: true,
			trainingFolders: [{ path: 'config.process[0].training_folder', value: '/app/ai-toolkit/output' }],
			datasetFolders: [
				{ path: 'config.process[0].datasets[0].folder_path', value: '/app/ai-toolkit/datasets/x' },
				{ path: 'config.process[0].datasets[1].folder_path', value: '/app/ai-toolkit/datasets/y' },
			],
		});
		expect(extractConfigFacts(parseYamlSubset('job: extension\n'))).toEqual({
			hasName: false,
			hasProcess: false,
			trainingFolders: [],
			datasetFolders: [],
		});
	});

	it('reads JSON exactly, detects it, and reports invalid JSON', () => {
		expect(readConfigText('{"config": {"name": "j"}}', 'auto')).toEqual({ format: 'json', data: { config: { name: 'j' } } });
		expect(readConfigText('{"config": ', 'json').readError).toMatch(/not valid JSON/);
		// a YAML flow mapping that is not JSON is read as YAML
		expect(readConfigText('{config: {name: y}}', 'auto')).toEqual({ format: 'yaml', data: { config: { name: 'y' } } });
		expect(readConfigText('config:\n  name: "x\n', 'yaml').readError).toMatch(/not closed/);
	});
});
