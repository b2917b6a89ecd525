/**
 * RunComfy Training node → Submit: the Simple form's config, user configs in YAML or JSON, the rules checked
 * before the paid call (GPU, training_folder, dataset folder_path by name, dataset READY, minimum balance). Wait for
 * Completion: submitWait.test.ts. Real n8n engine, sandbox.
 */
import YAML from 'yaml';
import type { INodeParameters } from 'n8n-workflow';

import { listSearch, runNode } from '../helpers/engine';
import {
	FAST,
	FAST_WAIT,
	createDataset,
	credentialsFor,
	isJobSubmit,
	node,
	readyDataset,
	simpleParams,
	uploadTexts,
	useSandbox,
} from './setup';

const sb = useSandbox();
beforeEach(() => sb.reset(FAST));

const submits = () => sb.log().filter(isJobSubmit);
const submitted = () =>
	submits().map((e) => e.body as { config_file: string; config_file_format: string; gpu_type: string; gpu_count?: number });

function textParams(configText: string, extra: INodeParameters = {}): INodeParameters {
	return {
		resource: 'trainingJob',
		operation: 'submit',
		configMode: 'text',
		configText,
		waitForCompletion: false,
		waitOptions: FAST_WAIT,
		...extra,
	};
}

const yamlConfig = (o: { name?: string; folder?: string; dataset?: string; steps?: number } = {}) => `job: extension
config:
  name: ${o.name ?? 'my_lora'}
  process:
    - type: sd_trainer
      training_folder: "${o.folder ?? '/app/ai-toolkit/output'}"
      datasets:
        - folder_path: "${o.dataset ?? '/app/ai-toolkit/datasets/ready-ds'}"  # mounted by name
      train:
        steps: ${o.steps ?? 20}
      save:
        save_every: 10
`;

const run = async (parameters: INodeParameters, extra: Partial<Parameters<typeof runNode>[0]> = {}) =>
	await runNode({ node, credentials: credentialsFor(sb), parameters, ...extra });

describe('Simple form', () => {
	it("writes a valid ai-toolkit config with the dataset's name in folder_path and submits it once", async () => {
		const datasetId = await readyDataset(sb, 'portraits-v2');
		const result = await run(simpleParams(datasetId));
		expect(result.error).toBeUndefined();
		expect(submitted()).toHaveLength(1);
		expect(submitted()[0]).toMatchObject({ config_file_format: 'yaml', gpu_type: 'ADA_80_PLUS', gpu_count: 1 });
		const job = sb.state().jobs[0];
		// the config exactly as the service received it (the sandbox serves it back)
		const received = await (await fetch(`${sb.urls.files}/files/train/${job.id}/config.yaml`)).text();
		const doc = YAML.parse(received, { version: '1.1' });
		// sent as JSON text, which YAML readers take as the same document
		expect(JSON.parse(received)).toEqual(doc);
		const p = doc.config.process[0];
		expect(doc.config.name).toBe('p3r5on_v1');
		expect(p.training_folder).toBe('/app/ai-toolkit/output');
		expect(p.datasets[0].folder_path).toBe('/app/ai-toolkit/datasets/portraits-v2');
		expect(p.train).toMatchObject({ steps: 40, lr: 0.0002 });
		expect(p.network).toMatchObject({ linear: 8, linear_alpha: 8 });
		expect(p.save.save_every).toBe(10);
		expect(p.trigger_word).toBe('p3r5on');
		expect(p.sample.prompts).toEqual(['a photo of [trigger] on a beach', 'portrait of [trigger]']);
		expect(p.model.name_or_path).toBe('black-forest-labs/FLUX.1-dev');

		expect(result.items[0].json).toMatchObject({
			job_id: job.id,
			name: 'p3r5on_v1',
			status: expect.stringMatching(/^(queued|running)$/),
			gpu_type: 'ADA_80_PLUS',
			gpu_count: 1,
			config_format: 'yaml',
			dataset: { id: datasetId, name: 'portraits-v2', status: 'READY' },
			datasets: ['portraits-v2'],
			config_file: received,
		});
		expect(result.unpairedItems).toBe(0);
	});

	it.each([
		['DRAFT', async () => await createDataset(sb, 'empty-ds'), /dataset "empty-ds" is DRAFT, not READY/],
		[
			'UPLOADING',
			async () => {
				sb.configure({ datasetReadyMs: 60_000 });
				const id = await createDataset(sb, 'busy-ds');
				await uploadTexts(sb, id, { 'a.jpg': 'x' });
				return id;
			},
			/dataset "busy-ds" is UPLOADING, not READY/,
		],
		[
			'FAILED',
			async () => {
				sb.configure({ datasetReadyMs: 0 });
				const id = await createDataset(sb, 'bad-ds');
				await uploadTexts(sb, id, { 'fail.jpg': 'x' });
				return id;
			},
			/dataset "bad-ds" FAILED \(Processing of 'fail.jpg' failed/,
		],
	])('refuses a %s dataset before submitting', async (_state, make, message) => {
		const datasetId = await make();
		const result = await run(simpleParams(datasetId));
		expect(result.status).toBe('error');
		expect(result.error?.message).toMatch(message);
		expect(result.error?.description).toMatch(/^Nothing was submitted/);
		expect(submits()).toHaveLength(0);
	});

	it('refuses a job name that cannot be a file name, before any call', async () => {
		const datasetId = await readyDataset(sb, 'names-ds');
		sb.clearLog();
		const result = await run(simpleParams(datasetId, { jobName: 'my lora/v1' }));
		expect(result.error?.message).toMatch(/Job Name "my lora\/v1" cannot be used/);
		expect(sb.log().filter((e) => e.api === 'trainer')).toHaveLength(0);
	});

	it("offers the account's datasets in the picker", async () => {
		await readyDataset(sb, 'picker-ds');
		const found = await listSearch({ node, method: 'searchDatasets', credentials: credentialsFor(sb), parameters: {} });
		expect(found.results.map((r) => r.name)).toEqual(['picker-ds — READY']);
	});
});

describe('YAML or JSON config', () => {
	beforeEach(async () => {
		await readyDataset(sb, 'ready-ds');
		sb.clearLog();
	});

	it('sends a YAML config unchanged (as the original string) when the rules hold', async () => {
		const text = yamlConfig();
		const result = await run(textParams(text));
		expect(result.error).toBeUndefined();
		expect(submitted()).toEqual([{ config_file_format: 'yaml', config_file: text, gpu_type: 'ADA_80_PLUS', gpu_count: 1 }]);
		expect(result.items[0].json).toMatchObject({ name: 'my_lora', datasets: ['ready-ds'], config_format: 'yaml' });
		expect(result.items[0].json.config_file).toBeUndefined();
	});

	it('sends JSON exactly as given, as format json (also when mapped as an object)', async () => {
		const config = {
			job: 'extension',
			config: {
				name: 'json_lora',
				process: [
					{
						training_folder: '/app/ai-toolkit/output',
						datasets: [{ folder_path: '/app/ai-toolkit/datasets/ready-ds' }],
						train: { steps: 20 },
					},
				],
			},
		};
		const text = JSON.stringify(config, null, 4);
		const asText = await run(textParams(text));
		expect(asText.error).toBeUndefined();
		const asObject = await run(textParams('={{ $json.config }}'), { inputItems: [{ json: { config } }] });
		expect(asObject.error).toBeUndefined();
		const bodies = submitted();
		expect(bodies[0]).toMatchObject({ config_file_format: 'json', config_file: text });
		expect(bodies[1].config_file_format).toBe('json');
		expect(JSON.parse(bodies[1].config_file)).toEqual(config);
	});

	it.each([
		[
			'a wrong training_folder',
			yamlConfig({ folder: 'output' }),
			'config.process[0].training_folder is "output" but must be "/app/ai-toolkit/output"',
		],
		[
			'a folder_path outside the datasets folder',
			yamlConfig({ dataset: '/data/ready-ds' }),
			'config.process[0].datasets[0].folder_path is "/data/ready-ds" but must be "/app/ai-toolkit/datasets/<dataset name>", here "/app/ai-toolkit/datasets/ready-ds"',
		],
		[
			'a dataset that does not exist',
			yamlConfig({ dataset: '/app/ai-toolkit/datasets/nope' }),
			'refers to dataset "nope", which does not exist in this account; the datasets are: ready-ds (READY)',
		],
	])('refuses %s before submitting, with the correct value', async (_what, text, expected) => {
		const result = await run(textParams(text));
		expect(result.status).toBe('error');
		expect(`${result.error?.message}\n${result.error?.description}`).toContain(expected);
		expect(result.error?.description).toMatch(/^Nothing was submitted/);
		expect(submits()).toHaveLength(0);
	});

	it("refuses the dataset's id in folder_path and names the right path", async () => {
		const id = sb.state().datasets[0].id;
		const result = await run(textParams(yamlConfig({ dataset: `/app/ai-toolkit/datasets/${id}` })));
		expect(result.error?.message).toBe(
			'The training config cannot be used: config.process[0].datasets[0].folder_path uses the dataset\'s id; use its name: "/app/ai-toolkit/datasets/ready-ds"',
		);
		expect(submits()).toHaveLength(0);
	});

	it('refuses a dataset that is not READY (looked up by name)', async () => {
		sb.configure({ datasetReadyMs: 60_000 });
		const id = await createDataset(sb, 'slow-ds');
		await uploadTexts(sb, id, { 'a.jpg': 'x' });
		const result = await run(textParams(yamlConfig({ dataset: '/app/ai-toolkit/datasets/slow-ds' })));
		expect(result.error?.message).toMatch(/Dataset "slow-ds" is UPLOADING, not READY/);
		expect(submits()).toHaveLength(0);
	});

	it('lists every broken rule at once', async () => {
		const result = await run(textParams(yamlConfig({ folder: '/tmp/out', dataset: '/app/ai-toolkit/datasets/nope' })));
		expect(result.error?.message).toMatch(/breaks 2 rules/);
		expect(result.error?.description).toContain('- config.process[0].training_folder is "/tmp/out"');
		expect(result.error?.description).toContain('- config.process[0].datasets[0].folder_path refers to dataset "nope"');
	});

	it('refuses invalid JSON, but sends YAML it cannot read itself with a warning (the service decides)', async () => {
		const badJson = await run(textParams('{"config": {"name": "x",}}', { configFormat: 'json' }));
		expect(badJson.error?.message).toMatch(/not valid JSON/);
		expect(submits()).toHaveLength(0);

		const withAlias = `config:
  name: alias_job
  process:
    - training_folder: /app/ai-toolkit/output
      datasets:
        - folder_path: &ds /app/ai-toolkit/datasets/ready-ds
      train: {steps: 20}
      sample: {note: *ds}
`;
		const sent = await run(textParams(withAlias));
		expect(sent.error).toBeUndefined();
		expect(submitted()[0].config_file).toBe(withAlias);
		expect(sent.items[0].json.warnings).toEqual([
			expect.stringMatching(
				/could not read this YAML \(Aliases .*\), so training_folder, the dataset folder_path and the dataset's state were not checked/,
			),
		]);
	});

	it('lets the service decide about keys it does not find, and says so', async () => {
		const text = 'config:\n  process:\n    - train: {steps: 5}\n';
		const result = await run(textParams(text));
		expect(result.status).toBe('error');
		// the sandbox (like the service) refuses it; the node passed it on
		expect(submits()).toHaveLength(1);
		expect(result.error?.message).toMatch(/422|config\.name|training_folder|dataset/i);
	});
});

describe('GPU and money rules', () => {
	it('refuses 8 GPUs with HOPPER_141 without any call, and sends 8 with ADA_80_PLUS', async () => {
		const datasetId = await readyDataset(sb, 'gpu-ds');
		sb.clearLog();
		const refused = await run(simpleParams(datasetId, { gpuType: 'HOPPER_141', gpuCount: 8 }));
		expect(refused.error?.message).toBe(
			'8 GPUs are available only with ADA_80_PLUS (H100), not with HOPPER_141: choose ADA_80_PLUS for 8 GPUs, or 1 GPU on HOPPER_141',
		);
		expect(sb.log()).toHaveLength(0);

		const accepted = await run(simpleParams(datasetId, { gpuType: 'ADA_80_PLUS', gpuCount: 8 }));
		expect(accepted.error).toBeUndefined();
		expect(submitted()[0]).toMatchObject({ gpu_type: 'ADA_80_PLUS', gpu_count: 8 });
		const h200 = await run(simpleParams(datasetId, { jobName: 'h200', gpuType: 'HOPPER_141', gpuCount: 1 }));
		expect(h200.error).toBeUndefined();
		expect(submitted()[1]).toMatchObject({ gpu_type: 'HOPPER_141', gpu_count: 1 });
	});

	it('sends Options → GPU ID as gpu_id (trimmed), and no gpu_id when it is empty', async () => {
		const datasetId = await readyDataset(sb, 'gpu-id-ds');
		const pinned = await run(simpleParams(datasetId, { options: { gpuId: ' #1 ' } }));
		expect(pinned.error).toBeUndefined();
		expect(submits()[0].body).toMatchObject({ gpu_type: 'ADA_80_PLUS', gpu_count: 1, gpu_id: '#1' });
		expect(pinned.items[0].json).toMatchObject({ job_id: sb.state().jobs[0].id, gpu_type: 'ADA_80_PLUS', gpu_count: 1, gpu_id: '#1' });

		const unpinned = await run(simpleParams(datasetId, { jobName: 'no_pin', options: { gpuId: '' } }));
		expect(unpinned.error).toBeUndefined();
		expect(Object.keys(submits()[1].body as object)).not.toContain('gpu_id');
		expect(unpinned.items[0].json).not.toHaveProperty('gpu_id');
	});

	it('stops before submitting when the balance is below the minimum', async () => {
		const datasetId = await readyDataset(sb, 'money-ds');
		sb.configure({ walletMicrodollars: 1_000_000 });
		const result = await run(simpleParams(datasetId, { options: { minimumBalanceUsd: 5 } }));
		expect(result.error?.message).toMatch(/balance is \$1\.00, below the minimum of \$5\.00/);
		expect(submits()).toHaveLength(0);
	});

	it('validates every item before submitting any (one bad item stops the batch before it costs anything)', async () => {
		const datasetId = await readyDataset(sb, 'batch-ds');
		const result = await run(simpleParams(datasetId, { jobName: '={{ $json.name }}' }), {
			inputItems: [{ json: { name: 'good_one' } }, { json: { name: 'bad name' } }],
		});
		expect(result.status).toBe('error');
		expect(result.error?.itemIndex).toBe(1);
		expect(submits()).toHaveLength(0);
	});
});
