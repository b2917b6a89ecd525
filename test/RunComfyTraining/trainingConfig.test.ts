/**
 * nodes/shared/trainingConfig.ts: the Simple form's YAML (checked with a real YAML parser, in 1.1 and 1.2 modes),
 * the subset reader (checked against the same parser on realistic ai-toolkit configs), the path rules with their
 * messages, and the choice of the latest checkpoint.
 */
import YAML from 'yaml';

import {
	BASE_MODELS,
	buildSimpleConfig,
	buildSimpleConfigYaml,
	checkConfigPaths,
	checkSimpleInput,
	checkpointStep,
	extractConfigFacts,
	parseYamlSubset,
	pickLatestCheckpoint,
	readConfigText,
	toYaml,
	yamlNumber,
	yamlString,
} from '../../nodes/shared/trainingConfig';
import type { SimpleConfigInput } from '../../nodes/shared/trainingConfig';

const parse11 = (text: string): unknown => YAML.parse(text, { version: '1.1' });

type Section = Record<string, unknown>;
interface Step {
	[key: string]: unknown;
	datasets: Section[];
	network: Section;
	train: Section;
	model: Section;
	sample: Section;
}
/** config.process[0] of a parsed config. */
const step0 = (doc: unknown): Step => (doc as { config: { process: Step[] } }).config.process[0];
const parse12 = (text: string): unknown => YAML.parse(text);

const simple = (over: Partial<SimpleConfigInput> = {}): SimpleConfigInput => ({
	name: 'my_lora_v1',
	baseModel: 'flux-dev',
	datasetName: 'my-dataset',
	steps: 1500,
	learningRate: 0.0001,
	rank: 16,
	triggerWord: 'p3r5on',
	samplePrompts: ['a photo of [trigger] at the beach', 'portrait of [trigger], studio light'],
	...over,
});

describe('YAML emitter', () => {
	const nasty = [
		'',
		'plain',
		'with: colon',
		'# not a comment',
		'- not a list',
		"it's \"quoted\"",
		'back\\slash',
		'line1\nline2',
		'tab\there',
		'  leading and trailing  ',
		'yes',
		'no',
		'null',
		'~',
		'123',
		'1e-4',
		'@at',
		'`tick`',
		'{braces}',
		'[brackets]',
		'emoji 🎨 and ünïcødé',
		'line\u2028separator',
		'nel\u0085char',
		'bom\ufeff',
		'bell\u0007',
		'del\u007f',
	];

	it.each(nasty)('writes the string %j so that YAML 1.1 and 1.2 read it back unchanged', (value) => {
		const text = toYaml({ value, list: [value] });
		expect(parse11(text)).toEqual({ value, list: [value] });
		expect(parse12(text)).toEqual({ value, list: [value] });
		expect(parseYamlSubset(text)).toEqual({ value, list: [value] });
		expect(yamlString(value).startsWith('"')).toBe(true);
	});

	it('writes floats that YAML 1.1 (PyYAML) reads as numbers, not strings', () => {
		for (const n of [0.0001, 1e-7, 2.5e-5, 3.5, 1, 0, -0.5, 1e21, 123456789]) {
			const text = yamlNumber(n);
			expect(parse11(`v: ${text}`)).toEqual({ v: n });
			expect(parse12(`v: ${text}`)).toEqual({ v: n });
			expect(parseYamlSubset(`v: ${text}`)).toEqual({ v: n });
		}
		expect(yamlNumber(1e-7)).toBe('1.0e-7');
		expect(() => yamlNumber(NaN)).toThrow();
	});

	it('writes nested mappings, lists of mappings, lists of lists and empty collections', () => {
		const data = {
			a: { b: { c: [1, 2, { d: 'e', f: [true, false, null] }] } },
			'key with space': 'v',
			empty: [],
			none: {},
			nested: [[1, 2], ['x']],
		};
		const text = toYaml(data);
		expect(parse12(text)).toEqual(data);
		expect(parseYamlSubset(text)).toEqual(data);
	});
});

describe('Simple form config', () => {
	it.each(BASE_MODELS.map((m) => m.id))('is a valid ai-toolkit config for base model %s', (baseModel) => {
		const text = buildSimpleConfigYaml(simple({ baseModel }));
		const doc = parse11(text) as { config: { name: string } };
		expect(parse12(text)).toEqual(doc);
		expect(doc).toEqual(buildSimpleConfig(simple({ baseModel })));
		expect(doc.config.name).toBe('my_lora_v1');
		const p = step0(doc);
		expect(p.type).toBe('sd_trainer');
		expect(p.training_folder).toBe('/app/ai-toolkit/output');
		expect(p.datasets).toEqual([expect.objectContaining({ folder_path: '/app/ai-toolkit/datasets/my-dataset', caption_ext: 'txt' })]);
		expect(p.train).toMatchObject({ steps: 1500, lr: 0.0001, optimizer: 'adamw8bit' });
		expect(typeof p.train.lr).toBe('number');
		expect(p.network).toEqual({ type: 'lora', linear: 16, linear_alpha: 16 });
		expect(p.trigger_word).toBe('p3r5on');
		expect(p.model.name_or_path).toEqual(expect.any(String));
		expect(p.sample.prompts).toEqual(['a photo of [trigger] at the beach', 'portrait of [trigger], studio light']);
		expect(p.sample.sampler).toBe(p.train.noise_scheduler);
		// the node's own reader finds the constrained keys in its own output
		const facts = extractConfigFacts(parseYamlSubset(text));
		expect(facts).toMatchObject({ hasName: true, name: 'my_lora_v1', hasProcess: true });
		expect(checkConfigPaths(facts, [{ id: 'd1', name: 'my-dataset', status: 'READY' }]).problems).toEqual([]);
	});

	it('uses the base model\'s usual rank when rank is 0, and turns sampling off without prompts', () => {
		const p = step0(buildSimpleConfig(simple({ baseModel: 'wan21-14b', rank: 0, samplePrompts: [], triggerWord: '' })));
		expect(p.network.linear).toBe(32);
		expect(p.train.disable_sampling).toBe(true);
		expect(p.trigger_word).toBeUndefined();
		expect(p.datasets[0].num_frames).toBe(1);
	});

	it('keeps odd dataset names, trigger words and prompts intact', () => {
		const text = buildSimpleConfigYaml(
			simple({ datasetName: 'ds.v2_final-1', triggerWord: 'sks: "x"', samplePrompts: ["it's a #1 photo: of [trigger]\\n"] }),
		);
		const p = step0(parse11(text));
		expect(p.datasets[0].folder_path).toBe('/app/ai-toolkit/datasets/ds.v2_final-1');
		expect(p.trigger_word).toBe('sks: "x"');
		expect(p.sample.prompts).toEqual(["it's a #1 photo: of [trigger]\\n"]);
	});

	it('reports bad Simple inputs, each with what to do', () => {
		expect(checkSimpleInput(simple())).toEqual([]);
		const problems = checkSimpleInput(simple({ name: 'bad name/x', baseModel: 'nope', steps: 0, learningRate: 2, rank: 999, resolution: [10] }));
		expect(problems).toHaveLength(6);
		expect(problems.join('\n')).toMatch(/Job Name "bad name\/x"/);
		expect(problems.join('\n')).toMatch(/pick one of flux-dev/);
	});
});

/** Realistic configs users paste (after ai-toolkit's examples), each compared with a real YAML parser. */
const CORPUS: Record<string, string> = {
	aiToolkitExample: `---
job: extension
config:
  # this name will be the folder and filename name
  name: "my_first_flux_lora_v1"
  process:
    - type: 'sd_trainer'
      # root folder to save training sessions/samples/weights
      training_folder: "/app/ai-toolkit/output"
#      performance_log_every: 1000
      device: cuda:0
      network:
        type: "lora"
        linear: 16
        linear_alpha: 16
      save:
        dtype: float16 # precision to save
        save_every: 250 # save every this many steps
        push_to_hub: false #change this to True to push your trained model to Hugging Face.
      datasets:
        # datasets are a folder of images. captions need to be txt files with the same name as the image
        - folder_path: "/app/ai-toolkit/datasets/my-dataset"
          caption_ext: "txt"
          caption_dropout_rate: 0.05  # will drop out the caption 5% of time
          resolution: [ 512, 768, 1024 ]  # flux enjoys multiple resolutions
      train:
        batch_size: 1
        steps: 2000  # total number of steps to train 500 - 4000 is a good range
        lr: 0.0001
        ema_config:
          use_ema: true
          ema_decay: 0.99
      model:
        name_or_path: "black-forest-labs/FLUX.1-dev"
        is_flux: true
      sample:
        sampler: "flowmatch" # must match train.noise_scheduler
        prompts:
          # you can add [trigger] to the prompts here and it will be replaced with the trigger word
          - "woman with red hair, playing chess at the park, bomb going off in the background"
          - "a man holding a sign that says, 'this is a sign'"
        neg: ""  # not used on flux
meta:
  name: "[name]"
  version: '1.0'
`,
	plainValuesAndSameIndentLists: `config:
  name: plain_name
  process:
  - type: sd_trainer
    training_folder: /app/ai-toolkit/output
    datasets:
    - folder_path: /app/ai-toolkit/datasets/plain
      caption_ext: txt
    train:
      steps: 100
`,
	flowStyle: `config: {name: flow_job, process: [{training_folder: "/app/ai-toolkit/output", datasets: [{folder_path: '/app/ai-toolkit/datasets/flow ds'}], train: {steps: 10}}]}
`,
	multiLineFlowAndQuotes: `config:
  "name": 'it''s quoted'
  process:
    - training_folder: "/app/ai-toolkit/\\
        output"
      datasets: [
        { folder_path: "/app/ai-toolkit/datasets/x" },
        { folder_path: /app/ai-toolkit/datasets/y }
      ]
`,
	blockScalarsAndComments: `# leading comment
config:   # trailing comment
  name: >-
    folded
    name
  description: |
    line one

    line three
  process:
    -   training_folder: /app/ai-toolkit/output   # spaced after dash
        datasets:
          -
            folder_path: "/app/ai-toolkit/datasets/z"
...
ignored: after document end
`,
	anchorsAndTags: `config:
  name: !!str 123
  process:
    - &proc
      training_folder: /app/ai-toolkit/output
      datasets: []
`,
	wrongValues: `config:
  name: wrong
  process:
    - training_folder: output
      datasets:
        - folder_path: /data/images
`,
};

describe('YAML subset reader', () => {
	it.each(Object.keys(CORPUS))('reads %s exactly like a YAML 1.1 parser', (key) => {
		const text = CORPUS[key];
		const expected = YAML.parseAllDocuments(text, { version: '1.1' })[0].toJS();
		expect(parseYamlSubset(text)).toEqual(expected);
	});

	it('agrees with a YAML 1.1 parser on 1000 generated documents in the styles YAML tools write', () => {
		let seed = 7;
		const rand = () => {
			seed = (seed * 1103515245 + 12345) % 2147483648;
			return seed / 2147483648;
		};
		const pick = <T>(list: T[]): T => list[Math.floor(rand() * list.length)];
		const words = [
			'a', 'tab\there', 'a: b: c', '- x', 'long text with spaces that goes on and on and on for a while to wrap maybe',
			'trailing \n\n', '\n\nlead', 'x #y', '"q"', '@x', '%y', '!t', '&a', '*b', '|', '>', '? q', 'name',
			'/app/ai-toolkit/output', "it's", 'x: y', '#hash', 'yes', '12', '1.5', 'ü', 'multi\nline', ' pad ', '', 'a - b', '[x]', 'null',
		];
		const value = (depth: number): unknown => {
			const r = rand();
			if (depth > 3 || r < 0.45) return pick<unknown>([pick(words), Math.floor(rand() * 1000), rand() > 0.5, null, 0.25]);
			if (r < 0.7) return Array.from({ length: Math.floor(rand() * 4) }, () => value(depth + 1));
			const obj: Record<string, unknown> = {};
			for (let k = 0; k < 1 + Math.floor(rand() * 4); k++) {
				obj[pick(['config', 'name', 'process', 'datasets', 'folder_path', 'key two', 'k'])] = value(depth + 1);
			}
			return obj;
		};
		let compared = 0;
		for (let n = 0; n < 1000; n++) {
			const text = YAML.stringify(
				{ config: value(0) },
				{
					version: '1.1',
					indent: pick([2, 4]),
					indentSeq: rand() > 0.5,
					collectionStyle: pick(['any', 'block', 'block', 'flow'] as const),
					defaultStringType: pick(['PLAIN', 'PLAIN', 'QUOTE_DOUBLE', 'QUOTE_SINGLE'] as const),
					lineWidth: pick([0, 20, 80]),
				},
			);
			let expected: unknown;
			try {
				expected = YAML.parse(text, { version: '1.1' });
			} catch {
				continue; // the generator itself wrote something invalid (a known yaml stringify corner); not our input
			}
			compared++;
			expect({ n, text, read: parseYamlSubset(text) }).toEqual({ n, text, read: expected });
		}
		expect(compared).toBeGreaterThan(950);
	});

	it('folds multi-line plain scalars as YAML does (blank lines become line breaks)', () => {
		const text = 'config:\n  name: first\n    second\n\n    third\n  other: x\n';
		expect(parseYamlSubset(text)).toEqual(YAML.parse(text, { version: '1.1' }));
		expect(parseYamlSubset(text)).toEqual({ config: { name: 'first second\nthird', other: 'x' } });
	});

	it('resolves plain scalars as PyYAML (ai-toolkit\'s reader) does: 1e-4 without a dot stays a string', () => {
		expect(parseYamlSubset('lr: 1e-4\nb: 1.0e-4\nc: yes\nd: ~\n')).toEqual({ lr: '1e-4', b: 0.0001, c: true, d: null });
	});

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

	it.each([
		['aliases', 'config:\n  a: &x 1\n  b: *x\n'],
		['merge keys', 'base: &b {x: 1}\nconfig:\n  <<: *b\n'],
		['custom tags', 'config: !python/object foo\n'],
		['tab indentation', 'config:\n\tname: x\n'],
		['a broken quote', 'config:\n  name: "open\n'],
		['bad indentation', 'config:\n  name: a\n    extra: b\n'],
	])('refuses %s honestly instead of guessing', (_what, text) => {
		expect(() => parseYamlSubset(text)).toThrow(/not read by this node|Tabs|not closed|indentation|Unexpected|Expected/);
	});

	it('reads JSON exactly, detects it, and reports invalid JSON', () => {
		expect(readConfigText('{"config": {"name": "j"}}', 'auto')).toEqual({ format: 'json', data: { config: { name: 'j' } } });
		expect(readConfigText('{"config": ', 'json').readError).toMatch(/not valid JSON/);
		// a YAML flow mapping that is not JSON is read as YAML
		expect(readConfigText('{config: {name: y}}', 'auto')).toEqual({ format: 'yaml', data: { config: { name: 'y' } } });
		expect(readConfigText('config:\n  name: "x\n', 'yaml').readError).toMatch(/not closed/);
	});
});

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
		expect(checkConfigPaths(facts('/app/ai-toolkit/output', '/app/ai-toolkit/datasets/busy-ds'), datasets, { requireReady: false }).problems).toEqual([]);
	});
});

describe('latest checkpoint', () => {
	const base = 'https://files.runcomfy.net/train/j';
	it('prefers the final save, else the highest step', () => {
		const list = [
			{ url: `${base}/lora_000000500.safetensors` },
			{ url: `${base}/lora_000001000.safetensors` },
			{ url: `${base}/samples/000000500_0.jpg` },
		];
		expect(pickLatestCheckpoint(list)?.url).toBe(`${base}/lora_000001000.safetensors`);
		expect(pickLatestCheckpoint([...list, { url: `${base}/lora.safetensors` }])?.url).toBe(`${base}/lora.safetensors`);
		expect(pickLatestCheckpoint([{ url: `${base}/config.yaml` }])).toBeUndefined();
		expect(checkpointStep(`${base}/lora_000000250.safetensors?sig=1`)).toBe(250);
	});
});
