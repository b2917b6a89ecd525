/**
 * Empty cells and missing columns: batch generation from a sheet, where `{{ $json.budget }}` over a missing column
 * gives undefined and an empty cell gives "". A number, a switch or a form input whose expression gives nothing is
 * an error naming the field, the item and the expression, before anything is paid — never the default (a cap that
 * is off, 2,000 training steps). Spending guards refuse an empty value even when typed in. Sheet values arrive as
 * text ("0.25", "10") and are read as numbers. Real n8n engine, sandbox on loopback; "nothing paid" is proven from
 * the sandbox's log and wallet. The same three empty values are given to every numeric option of every node in the
 * bad-input table (./bad-input/numbers.ts).
 */
import type { INodeParameters, INodeType, ResourceMapperField } from 'n8n-workflow';

import { RunComfyDeployment } from '../../nodes/RunComfyDeployment/RunComfyDeployment.node';
import { RunComfyModel } from '../../nodes/RunComfyModel/RunComfyModel.node';
import { RunComfyTraining } from '../../nodes/RunComfyTraining/RunComfyTraining.node';
import { resourceMapping, runNode } from '../helpers/engine';
import type { InputItem, RunNodeResult } from '../helpers/engine';
import { STABLE, credentialsFor, isModelSubmit, isPaid, readyDataset, useFaultSandbox } from '../helpers/faults-setup';

const WAIT = { pollIntervalSeconds: 0.02, maxPollIntervalSeconds: 0.05, maxWaitSeconds: 20 };
const WALLET = 10_000_000;
const SDXL = '5f0c3a52-6b1e-4c8e-9a0d-2d4f7b8e1a01';
const EMPTY_FIX =
	/An expression that gives nothing \(a missing column, a misspelt field name, an empty cell\) is refused rather than taken as the default\. Make it produce (.+?)\. To fall back to a value, write it into the expression, e\.g\. \{\{ \$json\.column \?\? .+ \}\}\. Nothing was submitted\.$/;

const sb = useFaultSandbox();
beforeEach(() =>
	sb.reset({ runDurationMs: 20, queueMs: 0, walletMicrodollars: WALLET, datasetReadyMs: 10, trainingStepMs: 1, trainingQueueMs: 0 }),
);

const model = new RunComfyModel();

/** Rows of a sheet: every value as text, as spreadsheet nodes give them; an empty cell is "". */
const sheet = (rows: Array<Record<string, string>>): InputItem[] => rows.map((json, i) => ({ json: { prompt: `row ${i}`, ...json } }));

function modelRun(extra: INodeParameters): INodeParameters {
	return {
		resource: 'model',
		operation: 'run',
		model: { __rl: true, mode: 'id', value: STABLE.flash },
		inputMode: 'json',
		inputsJson: '={{ JSON.stringify({ prompt: $json.prompt }) }}',
		waitOptions: WAIT,
		downloadOutputs: false,
		...extra,
	};
}

async function run(node: INodeType, parameters: INodeParameters, inputItems: InputItem[]): Promise<RunNodeResult> {
	return await runNode({ node, credentials: credentialsFor(sb), parameters, inputItems });
}

const nothingPaid = () => {
	expect(sb.log().filter(isPaid)).toEqual([]);
	expect(sb.state().walletMicrodollars).toBe(WALLET);
};

/** `message` is the first item's (several bad items are reported together, each on its line). */
function expectRefused(result: RunNodeResult, message: string, wanted?: RegExp): void {
	expect(result.status).toBe('error');
	expect(result.error?.message.replace(/^Item \d+: /, '').split(/\. Item \d+: /)[0]).toBe(message);
	if (wanted) expect(EMPTY_FIX.exec(result.error?.description ?? '')?.[1]).toMatch(wanted);
	nothingPaid();
}

describe('Max Estimated Cost (USD) from a sheet column', () => {
	const capped = modelRun({ options: { maxEstimatedCostUsd: '={{ $json.budget }}' } });

	it('a missing column: refused naming the field, the item and the expression; the cap is never off', async () => {
		const result = await run(model, capped, sheet(Array(10).fill({})));
		expectRefused(
			result,
			'"Max Estimated Cost (USD)" of item 0 is empty: its expression {{ $json.budget }} gave undefined',
			/^a number \(US dollars, e\.g\. 10\)$/,
		);
	});

	it('an empty cell in one row: refused naming that row, nothing paid for the others', async () => {
		const result = await run(model, capped, sheet([{ budget: '1' }, { budget: '1' }, { budget: '' }, { budget: '1' }]));
		expectRefused(result, '"Max Estimated Cost (USD)" of item 2 is empty: its expression {{ $json.budget }} gave ""');
	});

	it('null (a database NULL): refused', async () => {
		const result = await run(model, capped, [{ json: { prompt: 'x', budget: null } }]);
		expectRefused(result, '"Max Estimated Cost (USD)" of item 0 is empty: its expression {{ $json.budget }} gave null');
	});

	it('NaN, text and a huge value: refused as before, with the value', async () => {
		expectRefused(
			await run(model, capped, sheet([{ budget: 'NaN' }])),
			'"Max Estimated Cost (USD)" of item 0 must be a number, but is "NaN"',
		);
		expectRefused(
			await run(model, capped, [{ json: { prompt: 'x', budget: Number.NaN } }]),
			'"Max Estimated Cost (USD)" of item 0 must be a number, but is NaN',
		);
		expectRefused(
			await run(model, capped, sheet([{ budget: '5 USD' }])),
			'"Max Estimated Cost (USD)" of item 0 must be a number, but is "5 USD"',
		);
		expectRefused(
			await run(model, capped, sheet([{ budget: '1e12' }])),
			'"Max Estimated Cost (USD)" of item 0 must be at most 1000000, but is "1e12"',
		);
	});

	it('a number as text from the sheet is the cap: 10 runs over "0.25" are refused, under "1" they run', async () => {
		const over = await run(model, capped, sheet(Array(10).fill({ budget: '0.25' })));
		expectRefused(over, 'The estimated cost of 10 items is $0.40 above the cap of $0.25');
		const under = await run(model, capped, sheet(Array(2).fill({ budget: '1' })));
		expect(under.status).toBe('success');
		expect(sb.log().filter(isModelSubmit)).toHaveLength(2);
	});

	it('typed in empty (a cleared field): refused too, with how to turn the cap off', async () => {
		const result = await run(model, modelRun({ options: { maxEstimatedCostUsd: null } }), sheet([{}]));
		expect(result.error?.message).toBe('"Max Estimated Cost (USD)" of item 0 is empty');
		expect(result.error?.description).toMatch(
			/^A spending guard that cannot be read is not taken as off\. Enter 0 to turn the cap off, or enter a number/,
		);
		nothingPaid();
	});
});

describe('other guards, numbers and switches', () => {
	it('Minimum Balance (USD) over a missing column: refused, the guard is never off', async () => {
		const result = await run(model, modelRun({ options: { minimumBalanceUsd: '={{ $json.minimum }}' } }), sheet([{}, {}]));
		expectRefused(result, '"Minimum Balance (USD)" of item 0 is empty: its expression {{ $json.minimum }} gave undefined');
	});

	it('Max Wait (Seconds) from an empty cell: refused, not the default wait', async () => {
		const result = await run(model, modelRun({ waitOptions: { ...WAIT, maxWaitSeconds: '={{ $json.wait }}' } }), sheet([{ wait: '' }]));
		expectRefused(
			result,
			'"Max Wait (Seconds)" of item 0 is empty: its expression {{ $json.wait }} gave ""',
			/^a number \(seconds, e\.g\. 600\)$/,
		);
	});

	it('On Timeout over a missing column: refused, not the default behaviour', async () => {
		const result = await run(model, modelRun({ waitOptions: { ...WAIT, onTimeout: '={{ $json.onTimeout }}' } }), sheet([{}]));
		expectRefused(
			result,
			'"On Timeout" of item 0 is empty: its expression {{ $json.onTimeout }} gave undefined',
			/^one of fail, returnRunning, cancel$/,
		);
	});

	it('Wait for Completion over a missing column: refused (a switch has no empty value)', async () => {
		const result = await run(model, modelRun({ waitForCompletion: '={{ $json.wait }}' }), sheet([{}]));
		expectRefused(result, '"Wait for Completion" of item 0 is empty: its expression {{ $json.wait }} gave undefined', /^true or false$/);
	});

	it('a number left empty in the editor (not an expression) still takes its default, as its hint says', async () => {
		const result = await run(model, modelRun({ waitOptions: { ...WAIT, concurrency: null } }), sheet([{}]));
		expect(result.status).toBe('success');
		expect(sb.log().filter(isModelSubmit)).toHaveLength(1);
	});

	it('Training Steps from a misspelt field: refused, never 2,000 steps', async () => {
		const ds = await readyDataset(sb, 'empty-cells');
		sb.clearLog();
		const parameters: INodeParameters = {
			resource: 'trainingJob',
			operation: 'submit',
			configMode: 'simple',
			jobName: 'empty_cells_job',
			dataset: { __rl: true, mode: 'id', value: ds.id },
			steps: '={{ $json.step }}',
			waitForCompletion: false,
		};
		const result = await run(new RunComfyTraining(), parameters, [{ json: { steps: '10' } }]);
		expect(result.error?.message).toBe('"Steps" of item 0 is empty: its expression {{ $json.step }} gave undefined');
		expect(sb.log().filter(isPaid)).toEqual([]);
		expect(sb.state().jobs).toEqual([]);

		const fixed = await run(new RunComfyTraining(), { ...parameters, steps: '={{ $json.steps }}' }, [{ json: { steps: '10' } }]);
		expect(fixed.status).toBe('success');
		expect(sb.state().jobs).toHaveLength(1);
	});
});

describe('a training config (YAML or JSON text) with expressions', () => {
	const template = (steps: string, name: string) => `=job: extension
config:
  name: ${name}
  process:
    - type: sd_trainer
      training_folder: /app/ai-toolkit/output
      datasets:
        - folder_path: /app/ai-toolkit/datasets/empty-config
      train:
        steps: ${steps}
        lr: 0.0001
      model: { name_or_path: black-forest-labs/FLUX.1-dev, is_flux: true, quantize: {{ $json.quantize }} }
`;
	const submit = (configText: string): INodeParameters => ({
		resource: 'trainingJob',
		operation: 'submit',
		configMode: 'text',
		configText,
		waitForCompletion: false,
	});

	it('a key whose expression gave nothing (misspelt field, empty cell) is refused naming its path, item and expression', async () => {
		await readyDataset(sb, 'empty-config');
		sb.clearLog();
		const rows = [{ json: { steps: '10', quantize: true } }, { json: { steps: '', quantize: true } }];
		const misspelt = await run(new RunComfyTraining(), submit(template('{{ $json.step }}', 'cfg_a')), rows.slice(0, 1));
		expect(misspelt.error?.message).toBe(
			'The training config cannot be used: config.process[0].train.steps of item 0 is empty: its expression {{ $json.step }} gave nothing (a missing column, a misspelt field name or an empty cell)',
		);
		const emptyCell = await run(new RunComfyTraining(), submit(template('{{ $json.steps }}', 'cfg_b')), rows.slice(1));
		expect(emptyCell.error?.message).toMatch(
			/config\.process\[0\]\.train\.steps of item 0 is empty: its expression \{\{ \$json\.steps \}\} gave nothing/,
		);
		const inFlowMapping = await run(new RunComfyTraining(), submit(template('10', 'cfg_c')), [{ json: {} }]);
		expect(inFlowMapping.error?.message).toMatch(
			/config\.process\[0\]\.model\.quantize of item 0 is empty: its expression \{\{ \$json\.quantize \}\}/,
		);
		expect(sb.log().filter(isPaid)).toEqual([]);
		expect(sb.state().jobs).toEqual([]);

		const fine = await run(new RunComfyTraining(), submit(template('{{ $json.steps }}', 'cfg_d')), rows.slice(0, 1));
		expect(fine.status).toBe('success');
		expect(sb.state().jobs).toHaveLength(1);
	});

	it('a null typed into the config (no expression after the key) is left to RunComfy, as before', async () => {
		await readyDataset(sb, 'empty-config');
		const typed = await run(new RunComfyTraining(), submit(template('~', 'cfg_e').replace('{{ $json.quantize }}', 'true')), [{ json: {} }]);
		expect(typed.error?.message ?? '').not.toMatch(/is empty/);
	});
});

describe("form inputs (a model's input_schema, a deployment's workflow)", () => {
	async function modelForm(value: Record<string, string>, modelId: string = STABLE.flash): Promise<INodeParameters> {
		const locator = { __rl: true, mode: 'id', value: modelId };
		const { fields } = await resourceMapping({
			node: model,
			method: 'getModelInputs',
			credentials: credentialsFor(sb),
			parameters: { resource: 'model', operation: 'run', model: locator },
		});
		const inputs = {
			mappingMode: 'defineBelow',
			value,
			matchingColumns: [],
			schema: fields.map((f) => ({ ...f, removed: !(f.id in value) })),
			attemptToConvertTypes: false,
			convertFieldsToString: false,
		};
		return modelRun({ model: locator, inputMode: 'defineBelow', inputs });
	}

	it('a number input over a missing column or from an empty cell: refused naming the input', async () => {
		const parameters = await modelForm({ prompt: '={{ $json.prompt }}', seed: '={{ $json.seed }}', num_images: '={{ $json.images }}' });
		expectRefused(
			await run(model, parameters, sheet([{ images: '1' }])),
			'"seed" of item 0 is empty: its expression {{ $json.seed }} gave undefined',
			/^a number$/,
		);
		// n8n's own check of the form would make the empty cell a 0 (or false); it is refused before that.
		expectRefused(
			await run(model, parameters, sheet([{ seed: '7', images: '' }])),
			'"num_images" of item 0 is empty: its expression {{ $json.images }} gave ""',
		);
		const seedOnly = await modelForm({ prompt: '={{ $json.prompt }}', seed: '={{ $json.seed }}' });
		expectRefused(await run(model, seedOnly, sheet([{ seed: '' }])), '"seed" of item 0 is empty: its expression {{ $json.seed }} gave ""');
	});

	it('a switch input from an empty cell: refused, not false', async () => {
		const parameters = await modelForm(
			{ prompt: '={{ $json.prompt }}', expand_prompt: '={{ $json.expand }}' },
			'ideogram/ideogram-v3/text-to-image',
		);
		expectRefused(
			await run(model, parameters, sheet([{ expand: '' }])),
			'"expand_prompt" of item 0 is empty: its expression {{ $json.expand }} gave ""',
			/^true or false$/,
		);
	});

	it('a text input over a missing column is refused; an empty cell leaves it out, as a field left empty', async () => {
		const parameters = await modelForm(
			{ prompt: '={{ $json.text }}', negative_prompt: '={{ $json.negative }}' },
			'google/imagen-4/preview/text-to-image',
		);
		expectRefused(
			await run(model, parameters, sheet([{ text: 'a fox' }])),
			'"negative_prompt" of item 0 is empty: its expression {{ $json.negative }} gave undefined',
			/^a value$/,
		);
		const result = await run(
			model,
			parameters,
			sheet([
				{ text: 'a fox', negative: '' },
				{ text: 'a cat', negative: 'blur' },
			]),
		);
		expect(result.status).toBe('success');
		expect(
			sb
				.log()
				.filter(isModelSubmit)
				.map((e) => e.body),
		).toEqual([{ prompt: 'a fox' }, { prompt: 'a cat', negative_prompt: 'blur' }]);
	});

	it("a deployment's number override over a missing column or from an empty cell: refused naming the node and input", async () => {
		const deployment = new RunComfyDeployment();
		const locator = { __rl: true, mode: 'id', value: SDXL };
		const { fields } = await resourceMapping({
			node: deployment,
			method: 'getWorkflowInputs',
			credentials: credentialsFor(sb),
			parameters: { resource: 'inference', operation: 'run', deploymentId: locator },
		});
		const value: Record<string, string> = { '6.text': '={{ $json.prompt }}', '3.seed': '={{ $json.seed }}' };
		const parameters: INodeParameters = {
			resource: 'inference',
			operation: 'run',
			deploymentId: locator,
			inputMode: 'defineBelow',
			inputs: {
				mappingMode: 'defineBelow',
				value,
				matchingColumns: [],
				schema: fields.map((f: ResourceMapperField) => ({ ...f, removed: !(f.id in value) })),
				attemptToConvertTypes: false,
				convertFieldsToString: false,
			},
			waitOptions: WAIT,
			downloadOutputs: false,
		};
		const result = await run(deployment, parameters, sheet([{}]));
		expectRefused(result, '"KSampler #3 → seed" of item 0 is empty: its expression {{ $json.seed }} gave undefined', /^a number$/);
		// An empty cell: n8n's own check of the form would send 0.
		expectRefused(
			await run(deployment, parameters, sheet([{ seed: '' }])),
			'"KSampler #3 → seed" of item 0 is empty: its expression {{ $json.seed }} gave ""',
		);
	});
});
