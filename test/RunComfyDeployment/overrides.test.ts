/**
 * RunComfy Deployment node → Inference → Run: the overrides. Fields built from the deployment's saved
 * workflow, the three input modes, binary inputs sent as data URIs, and every check that must stop the
 * run before the paid inference call. Real n8n engine, sandbox on loopback.
 */
import type { INodeParameters, ResourceMapperField } from 'n8n-workflow';

import { loadOptions, resourceMapping, runNode } from '../helpers/engine';
import { FAST, FAST_WAIT, credentialsFor, deploymentId, inferenceBodies, inferences, locator, node, runJson, useSandbox } from './setup';

const sb = useSandbox();
beforeEach(() => sb.reset(FAST));

async function fieldsOf(id: string): Promise<ResourceMapperField[]> {
	const { fields } = await resourceMapping({
		node,
		method: 'getWorkflowInputs',
		credentials: credentialsFor(sb),
		parameters: { resource: 'inference', operation: 'run', deploymentId: locator(id) },
	});
	return fields;
}

/** Parameters of a Run in "Define Below" mode with the given form values. */
function runForm(id: string, fields: ResourceMapperField[], value: Record<string, unknown>, extra: INodeParameters = {}): INodeParameters {
	return {
		resource: 'inference',
		operation: 'run',
		deploymentId: locator(id),
		inputMode: 'defineBelow',
		inputs: {
			mappingMode: 'defineBelow',
			value,
			matchingColumns: [],
			schema: fields.map((f) => ({ ...f, removed: !(f.id in value) })),
			attemptToConvertTypes: false,
			convertFieldsToString: false,
		},
		waitOptions: FAST_WAIT,
		downloadOutputs: false,
		...extra,
	} as INodeParameters;
}

describe('Override fields from the saved workflow (resourceMapper getWorkflowInputs)', () => {
	it('lists every literal input as "<title> #<node id> → <input>", typed, with the current value; links are left out', async () => {
		const fields = await fieldsOf(deploymentId(sb, 'sdxl-text-to-image'));
		const byId = Object.fromEntries(fields.map((f) => [f.id, f]));
		expect(byId['6.text']).toMatchObject({
			displayName: 'CLIP Text Encode (Prompt) #6 → text',
			type: 'string',
			defaultValue: 'beautiful scenery nature glass bottle landscape, purple galaxy bottle,',
			required: false,
			display: true,
		});
		expect(byId['3.seed']).toMatchObject({ displayName: 'KSampler #3 → seed', type: 'number', defaultValue: 156680208700286 });
		expect(byId['3.cfg']).toMatchObject({ type: 'number', defaultValue: 8 });
		expect(byId['5.width']).toMatchObject({ displayName: 'Empty Latent Image #5 → width', defaultValue: 1024 });
		expect(byId['4.ckpt_name']).toMatchObject({ displayName: 'Load Checkpoint #4 → ckpt_name' });
		// ["4", 1]-style links are wiring, not values
		for (const link of ['6.clip', '3.model', '3.positive', '8.samples', '9.images']) expect(byId[link]).toBeUndefined();
		// ordered by node id
		expect(fields.map((f) => f.id)).toEqual([
			'3.seed',
			'3.steps',
			'3.cfg',
			'3.sampler_name',
			'3.scheduler',
			'3.denoise',
			'4.ckpt_name',
			'5.width',
			'5.height',
			'5.batch_size',
			'6.text',
			'7.text',
			'9.filename_prefix',
		]);
	});

	it('without a deployment there are no fields, with a notice', async () => {
		const result = await resourceMapping({
			node,
			method: 'getWorkflowInputs',
			credentials: credentialsFor(sb),
			parameters: { resource: 'inference', operation: 'run' },
		});
		expect(result.fields).toEqual([]);
		expect(result.emptyFieldsNotice).toMatch(/Pick a deployment first/);
	});

	it('Binary Inputs offer the workflow nodes, file loaders first', async () => {
		const options = await loadOptions({
			node,
			method: 'getWorkflowNodes',
			credentials: credentialsFor(sb),
			parameters: { resource: 'inference', operation: 'run', deploymentId: locator(deploymentId(sb, 'flux-image-to-image')) },
		});
		expect(options[0]).toEqual({ name: 'Load Image #10', value: '10', description: 'Inputs: image, upload' });
		expect(options.map((o) => o.value)).toEqual(expect.arrayContaining(['3', '6', '13']));
	});
});

describe('Run: what is sent', () => {
	it('"Define Below" sends only the inputs set, typed as in the saved workflow, keyed by node id', async () => {
		const id = deploymentId(sb, 'sdxl-text-to-image');
		const fields = await fieldsOf(id);
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			inputItems: [{ json: { prompt: 'a red fox in snow' } }],
			parameters: runForm(id, fields, { '6.text': '={{ $json.prompt }}', '3.seed': '42', '5.batch_size': 2, '7.text': '' }),
		});
		expect(result.error).toBeUndefined();
		expect(inferenceBodies(sb)).toEqual([
			{ overrides: { '6': { inputs: { text: 'a red fox in snow' } }, '3': { inputs: { seed: 42 } }, '5': { inputs: { batch_size: 2 } } } },
		]);
		expect(result.items[0].json.status).toBe('succeeded');
	});

	it('JSON mode sends the overrides object, extra_data and the webhook as query parameters', async () => {
		const id = deploymentId(sb, 'sdxl-text-to-image');
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: runJson(
				id,
				{ 6: { inputs: { text: 'a cat' } } },
				{
					waitForCompletion: false,
					options: {
						extraData: '{"api_key_comfy_org": "comfyui-abc"}',
						webhookUrl: 'https://hooks.example.com/runcomfy',
						webhookIntermediateStatus: true,
					},
				},
			),
		});
		expect(result.error).toBeUndefined();
		const [call] = inferences(sb);
		expect(call.body).toEqual({ overrides: { '6': { inputs: { text: 'a cat' } } }, extra_data: { api_key_comfy_org: 'comfyui-abc' } });
		expect(call.query).toMatchObject({ webhook: 'https://hooks.example.com/runcomfy', webhook_intermediate_status: 'true' });
		expect(result.items[0].json).toMatchObject({
			deployment_id: id,
			request_id: call.createdId,
			status: 'queued',
			service_status: 'in_queue',
		});
	});

	it('Full Workflow mode sends workflow_api_json instead of overrides', async () => {
		const id = deploymentId(sb, 'sdxl-text-to-image');
		const workflow = {
			1: {
				class_type: 'LoadImage',
				inputs: { image: 'https://files.example.com/in.png', upload: 'image' },
				_meta: { title: 'Load Image' },
			},
			2: { class_type: 'SaveImage', inputs: { filename_prefix: 'mine', images: ['1', 0] } },
		};
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: { ...runJson(id, {}), inputMode: 'fullWorkflow', workflowJson: JSON.stringify(workflow) },
		});
		expect(result.error).toBeUndefined();
		expect(inferenceBodies(sb)).toEqual([{ workflow_api_json: workflow }]);
		const flat = result.items[0].json.outputs_flat as Array<Record<string, unknown>>;
		expect(flat).toEqual([expect.objectContaining({ node_id: '2', channel: 'images', filename: 'mine_00001_.png' })]);
	});

	it('binary data of the item goes into a file input as a Base64 data URI', async () => {
		const id = deploymentId(sb, 'flux-image-to-image');
		const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			inputItems: [{ json: { prompt: 'watercolor' }, binary: { photo: { data: png, mimeType: 'image/png', fileName: 'in.png' } } }],
			parameters: runJson(
				id,
				{ 6: { inputs: { text: 'watercolor' } } },
				{
					binaryInputs: { files: [{ nodeId: '10', inputName: 'image', binaryPropertyName: 'photo' }] },
				},
			),
		});
		expect(result.error).toBeUndefined();
		expect(inferenceBodies(sb)).toEqual([
			{
				overrides: {
					'6': { inputs: { text: 'watercolor' } },
					'10': { inputs: { image: `data:image/png;base64,${png.toString('base64')}` } },
				},
			},
		]);
		expect(result.items[0].json.status).toBe('succeeded');
	});

	it('a public HTTPS URL is a plain override value', async () => {
		const id = deploymentId(sb, 'flux-image-to-image');
		const fields = await fieldsOf(id);
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: runForm(id, fields, { '10.image': 'https://files.example.com/cat.png' }),
		});
		expect(result.error).toBeUndefined();
		expect(inferenceBodies(sb)).toEqual([{ overrides: { '10': { inputs: { image: 'https://files.example.com/cat.png' } } } }]);
	});
});

describe('Run: checked before sending (no inference call)', () => {
	const expectRefused = async (parameters: INodeParameters, message: RegExp | string, description?: RegExp) => {
		const result = await runNode({ node, credentials: credentialsFor(sb), parameters });
		expect(result.status).toBe('error');
		if (typeof message === 'string') expect(result.error?.message).toBe(message);
		else expect(result.error?.message).toMatch(message);
		if (description) expect(result.error?.description).toMatch(description);
		expect(inferences(sb)).toEqual([]);
		return result;
	};

	it('an unknown node id names the valid ones', async () => {
		const id = deploymentId(sb, 'sdxl-text-to-image');
		await expectRefused(
			runJson(id, { 99: { inputs: { text: 'x' } } }),
			/node "99" is not in the deployment's workflow \(its nodes: 3 \(KSampler\), 4 \(Load Checkpoint\), 5 \(Empty Latent Image\), 6 \(CLIP Text Encode \(Prompt\)\)/,
			/Nothing was submitted/,
		);
	});

	it('an unknown input names the inputs of that node', async () => {
		const id = deploymentId(sb, 'sdxl-text-to-image');
		await expectRefused(
			runJson(id, { 6: { inputs: { prompt: 'x' } } }),
			'The overrides do not match the deployment\'s workflow: CLIP Text Encode (Prompt) #6 has no input "prompt" (its inputs: text, clip)',
		);
	});

	it('an override not shaped {"inputs": {...}}, and a wrapped {"overrides": ...}, are explained', async () => {
		const id = deploymentId(sb, 'sdxl-text-to-image');
		await expectRefused(runJson(id, { 6: { text: 'x' } }), /the override for node "6" must look like \{"inputs"/);
		await expectRefused(
			runJson(id, { overrides: { 6: { inputs: { text: 'x' } } } }),
			/node "overrides" is not in the deployment's workflow/,
			/without an "overrides" wrapper/,
		);
	});

	it('invalid JSON, and JSON that is not an object', async () => {
		const id = deploymentId(sb, 'sdxl-text-to-image');
		await expectRefused(
			{ ...runJson(id, {}), overridesJson: '{"6": {inputs: 1}' },
			'"Overrides (JSON)" is not valid JSON',
			/double quotes/,
		);
		await expectRefused({ ...runJson(id, {}), overridesJson: '[1, 2]' }, '"Overrides (JSON)" must be a JSON object, not an array');
		await expectRefused(
			runJson(id, { 6: { inputs: { text: 'x' } } }, { options: { extraData: '{oops' } }),
			'"Extra Data (JSON)" is not valid JSON',
		);
		await expectRefused(
			{ ...runJson(id, {}), inputMode: 'fullWorkflow', workflowJson: '{"1": {"inputs": {}}}' },
			/not in ComfyUI's API format: node 1 lacks "class_type"/,
		);
	});

	it('an empty body is refused as the contract says', async () => {
		const id = deploymentId(sb, 'sdxl-text-to-image');
		await expectRefused(runJson(id, {}), 'No overrides to send', /refuses an empty body/);
		const fields = await fieldsOf(id);
		await expectRefused(runForm(id, fields, { '6.text': '', '3.seed': null }), 'No overrides to send', /Add at least one input/);
	});

	it('a form value of the wrong type: n8n refuses a literal, the node an expression result', async () => {
		const id = deploymentId(sb, 'sdxl-text-to-image');
		const fields = await fieldsOf(id);
		await expect(
			runNode({ node, credentials: credentialsFor(sb), parameters: runForm(id, fields, { '3.steps': 'many' }) }),
		).rejects.toThrow("'3.steps' expects a number but we got 'many'");
		await expectRefused(runForm(id, fields, { '3.steps': '={{ "many" }}' }), 'KSampler #3 → steps must be a number, got "many"');
	});

	it('a stale form field (the saved workflow changed)', async () => {
		const id = deploymentId(sb, 'sdxl-text-to-image');
		const fields = await fieldsOf(id);
		await expectRefused(
			runForm(id, [...fields, { ...(fields.find((f) => f.id === '6.text') as ResourceMapperField), id: '77.text' }], { '77.text': 'x' }),
			"The overrides name inputs the deployment's workflow does not have: 77.text",
			/refresh the Overrides fields/,
		);
	});

	it('a paused deployment: resume it first', async () => {
		const id = deploymentId(sb, 'paused-text-to-image');
		await expectRefused(
			runJson(id, { 6: { inputs: { text: 'x' } } }),
			`The deployment "paused-text-to-image" (${id}) is paused`,
			/Resume it first/,
		);
	});

	it('an unknown deployment id (404 of the lookup, with a hint)', async () => {
		const result = await expectRefused(
			{ ...runJson('no-such-id', { 6: { inputs: { text: 'x' } } }), deploymentId: locator('no-such-id', 'id') },
			'No deployment with ID "no-such-id" exists on this RunComfy account',
			/Pick the deployment from the list/,
		);
		expect(result.error?.httpCode).toBe('404');
	});

	it('a Binary Input naming a missing binary field, node or input', async () => {
		const id = deploymentId(sb, 'flux-image-to-image');
		const base = runJson(id, { 6: { inputs: { text: 'x' } } });
		const bin = (files: Array<Record<string, string>>) => ({ ...base, binaryInputs: { files } });
		await expectRefused(
			bin([{ nodeId: '10', inputName: 'image', binaryPropertyName: 'photo' }]),
			'Binary Input: the item has no binary field "photo"',
		);
		await expectRefused(bin([{ nodeId: '42', inputName: 'image' }]), 'Binary Input: node "42" is not in the deployment\'s workflow');
		await expectRefused(
			bin([{ nodeId: '10', inputName: 'picture' }]),
			'Binary Input: Load Image #10 has no input "picture"',
			/Its inputs: image, upload/,
		);
	});

	it('several bad items are reported together; under Continue on Fail good items still run', async () => {
		const id = deploymentId(sb, 'sdxl-text-to-image');
		const items = [{ json: { node: '6' } }, { json: { node: '99' } }, { json: { node: '6' } }, { json: { node: '98' } }];
		const parameters = { ...runJson(id, {}), overridesJson: '={{ JSON.stringify({ [$json.node]: { inputs: { text: "x" } } }) }}' };
		const strict = await runNode({ node, credentials: credentialsFor(sb), inputItems: items, parameters });
		expect(strict.status).toBe('error');
		expect(strict.error?.message).toMatch(/^Item 1: .*node "99".*\. Item 3: .*node "98"/);
		expect(inferences(sb)).toEqual([]);

		const lenient = await runNode({ node, credentials: credentialsFor(sb), inputItems: items, parameters, continueOnFail: true });
		expect(lenient.status).toBe('success');
		expect(lenient.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }, { item: 3 }]);
		expect(lenient.items[0].json.status).toBe('succeeded');
		expect(lenient.items[1].json.error).toMatch(/node "99"/);
		expect(lenient.items[2].json.status).toBe('succeeded');
		expect(lenient.items[3].json.error).toMatch(/node "98"/);
		expect(inferences(sb)).toHaveLength(2);
	});
});
