/**
 * helpers/config/simpleForm.ts and baseModels.json: the Simple form's config, sent as JSON text that JSON,
 * YAML 1.2 and YAML 1.1 readers (the `yaml` library, and PyYAML's resolvers) read as the same data.
 */
import presets from '../../../../nodes/RunComfyTraining/helpers/config/baseModels.json';
import { BASE_MODELS } from '../../../../nodes/RunComfyTraining/helpers/config/baseModels';
import { checkConfigPaths } from '../../../../nodes/RunComfyTraining/helpers/config/pathRules';
import { extractConfigFacts } from '../../../../nodes/RunComfyTraining/helpers/config/readConfig';
import type { SimpleConfigInput } from '../../../../nodes/RunComfyTraining/helpers/config/simpleForm';
import { buildSimpleConfig, buildSimpleConfigText, checkSimpleInput } from '../../../../nodes/RunComfyTraining/helpers/config/simpleForm';
import { parseYamlSubset } from '../../../../nodes/RunComfyTraining/helpers/config/yamlSubset';
import { numbersIn, numbersOf, parse11, parse12 } from './yamlOracles';

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

describe('Simple form config text', () => {
	it.each(BASE_MODELS.map((m) => m.id))('is valid JSON and the same ai-toolkit config to every reader for %s', (baseModel) => {
		const input = simple({ baseModel });
		const text = buildSimpleConfigText(input);
		const data = buildSimpleConfig(input);
		expect(JSON.parse(text)).toEqual(data);
		expect(parse12(text)).toEqual(data);
		expect(parse11(text)).toEqual(data);
		expect(parseYamlSubset(text)).toEqual(data);
		const doc = JSON.parse(text);
		expect(doc.config.name).toBe('my_lora_v1');
		const p = step0(doc);
		expect(p.type).toBe('sd_trainer');
		expect(p.training_folder).toBe('/app/ai-toolkit/output');
		expect(p.datasets).toEqual([expect.objectContaining({ folder_path: '/app/ai-toolkit/datasets/my-dataset', caption_ext: 'txt' })]);
		expect(p.train).toMatchObject({ steps: 1500, lr: 0.0001, optimizer: 'adamw8bit' });
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

	it.each([1e-4, 5e-5, 2e-4, 1e-7, 3.3e-6])(
		'keeps learning rate %p a float and every whole number an int under YAML 1.1',
		(learningRate) => {
			for (const { id: baseModel } of BASE_MODELS) {
				const input = simple({ baseModel, learningRate, seed: 7, resolution: [512, 1024] });
				const text = buildSimpleConfigText(input);
				expect(step0(parse11(text)).train.lr).toBe(learningRate);
				expect(step0(parseYamlSubset(text)).train.lr).toBe(learningRate);
				const expected = numbersOf(buildSimpleConfig(input)).map((n) => n.kind);
				const seen = numbersIn(text);
				expect(seen.map((s) => s.kind11)).toEqual(expected);
				expect(seen.map((s) => [s.source, s.kindPyYaml])).toEqual(seen.map((s, k) => [s.source, expected[k]]));
				expect(expected).toContain('float');
				expect(expected).toContain('int');
			}
		},
	);

	it("uses the base model's usual rank when rank is 0, and turns sampling off without prompts", () => {
		const p = step0(buildSimpleConfig(simple({ baseModel: 'wan21-14b', rank: 0, samplePrompts: [], triggerWord: '' })));
		expect(p.network.linear).toBe(32);
		expect(p.train.disable_sampling).toBe(true);
		expect(p.trigger_word).toBeUndefined();
		expect(p.datasets[0].num_frames).toBe(1);
		expect(buildSimpleConfigText(simple({ triggerWord: '' }))).not.toContain('trigger_word');
	});

	it('keeps odd dataset names, trigger words and prompts intact', () => {
		const text = buildSimpleConfigText(
			simple({
				datasetName: 'ds.v2_final-1',
				triggerWord: 'sks: "x"',
				samplePrompts: ["it's a #1 photo: of [trigger]\\n", 'émoji 🎨\u2028end'],
			}),
		);
		for (const doc of [JSON.parse(text), parse11(text), parseYamlSubset(text)]) {
			const p = step0(doc);
			expect(p.datasets[0].folder_path).toBe('/app/ai-toolkit/datasets/ds.v2_final-1');
			expect(p.trigger_word).toBe('sks: "x"');
			expect(p.sample.prompts).toEqual(["it's a #1 photo: of [trigger]\\n", 'émoji 🎨\u2028end']);
		}
	});

	it('does not share the presets with the configs it returns', () => {
		const first = step0(buildSimpleConfig(simple({ baseModel: 'sdxl' })));
		(first.datasets[0].resolution as number[]).push(1);
		(first.model as Section).arch = 'changed';
		expect(step0(buildSimpleConfig(simple({ baseModel: 'sdxl' }))).datasets[0].resolution).toEqual([1024]);
		expect(step0(buildSimpleConfig(simple({ baseModel: 'sdxl' }))).model.arch).toBe('sdxl');
	});

	it('reports bad Simple inputs, each with what to do', () => {
		expect(checkSimpleInput(simple())).toEqual([]);
		const problems = checkSimpleInput(
			simple({ name: 'bad name/x', baseModel: 'nope', steps: 0, learningRate: 2, rank: 999, resolution: [10] }),
		);
		expect(problems).toHaveLength(6);
		expect(problems.join('\n')).toMatch(/Job Name "bad name\/x"/);
		expect(problems.join('\n')).toMatch(/pick one of flux-dev, flux-schnell, qwen-image, sdxl, wan21-14b, wan22-14b/);
	});
});

describe('base model presets (baseModels.json)', () => {
	it('are the data the node offers, each complete and with a unique id', () => {
		expect(BASE_MODELS).toBe(presets);
		expect(new Set(BASE_MODELS.map((m) => m.id)).size).toBe(BASE_MODELS.length);
		for (const m of BASE_MODELS) {
			expect(m).toEqual(
				expect.objectContaining({
					id: expect.stringMatching(/^[a-z0-9-]+$/),
					label: expect.any(String),
					summary: expect.any(String),
					model: expect.objectContaining({ name_or_path: expect.any(String), arch: expect.any(String) }),
					sample: expect.objectContaining({ guidance_scale: expect.any(Number), sample_steps: expect.any(Number) }),
					defaultRank: expect.any(Number),
				}),
			);
			expect(['flowmatch', 'ddpm']).toContain(m.noiseScheduler);
			expect(m.resolution.length).toBeGreaterThan(0);
			expect(m.resolution.every((r) => Number.isInteger(r) && r >= 64 && r <= 4096)).toBe(true);
			const known = [
				'id',
				'label',
				'summary',
				'model',
				'train',
				'dataset',
				'sample',
				'noiseScheduler',
				'resolution',
				'defaultRank',
				'video',
			];
			expect(Object.keys(m).filter((k) => !known.includes(k))).toEqual([]);
		}
	});
});
