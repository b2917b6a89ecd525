/**
 * RunComfy Model node → Run: inputs (mapper, JSON, LoRA), errors of the service, Continue on Fail, paired items,
 * AI-tool output (validation before any paid call: ./run.validation.test.ts). Real n8n engine, sandbox on loopback.
 */
import type { INodeParameters } from 'n8n-workflow';

import { resourceMapping, runNode } from '../helpers/engine';
import { FAST, FAST_WAIT, MODELS, credentialsFor, isResult, node, paidCalls, runParams, submits, useSandbox } from './setup';

const sb = useSandbox();
beforeEach(() => sb.reset(FAST));

/** The submitted bodies, from the sandbox's log. */
const submittedBodies = () => submits(sb).map((e) => e.body);

describe('Run with inputs defined below (resource mapper)', () => {
	it('submits the typed body, waits, returns result + cost + output_urls and downloads the files', async () => {
		const { fields } = await resourceMapping({
			node,
			method: 'getModelInputs',
			credentials: credentialsFor(sb),
			parameters: { resource: 'model', operation: 'run', model: { __rl: true, mode: 'list', value: MODELS.flash } },
		});
		const parameters: INodeParameters = {
			resource: 'model',
			operation: 'run',
			model: { __rl: true, mode: 'list', value: MODELS.flash },
			inputMode: 'defineBelow',
			inputs: {
				mappingMode: 'defineBelow',
				value: { prompt: 'a red fox', guidance_scale: 3.5, num_images: 2, image_size: 'square', seed: null },
				matchingColumns: [],
				schema: fields.map((f) => ({ ...f, removed: false })),
				attemptToConvertTypes: false,
				convertFieldsToString: false,
			},
			waitOptions: FAST_WAIT,
		};
		const result = await runNode({ node, credentials: credentialsFor(sb), parameters });
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		const [item] = result.items;
		expect(submittedBodies()).toEqual([{ prompt: 'a red fox', guidance_scale: 3.5, num_images: 2, image_size: 'square' }]);
		const requestId = submits(sb)[0].createdId;
		expect(item.json).toMatchObject({ model_id: MODELS.flash, request_id: requestId, status: 'succeeded', cost: 0.04 });
		expect(item.json.created_at).toEqual(expect.any(String));
		expect(item.json.finished_at).toEqual(expect.any(String));
		const images = (item.json.output as { images: string[] }).images;
		expect(images).toHaveLength(2);
		expect(item.json.output_urls).toEqual([
			{ path: 'output.images[0]', url: images[0] },
			{ path: 'output.images[1]', url: images[1] },
		]);
		expect(Object.keys(item.binary ?? {})).toEqual(['data', 'data_1']);
		expect(item.binary?.data.mimeType).toBe('image/png');
		const png = await result.readBinary(item, 'data');
		expect(png.subarray(1, 4).toString()).toBe('PNG');
		expect(item.pairedItem).toEqual({ item: 0 });
		// the result was fetched once, with the cost
		const results = sb.log().filter(isResult);
		expect(results).toHaveLength(1);
		expect(results[0].query.include_cost).toBe('true');
	});
});

describe('Run with JSON inputs and the LoRA field', () => {
	it('sends the flat JSON body, one per item, evaluated per item from expressions', async () => {
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			inputItems: [{ json: { text: 'first' } }, { json: { text: 'second' } }],
			parameters: runParams(
				MODELS.flash,
				{},
				{
					inputsJson: '={{ JSON.stringify({ prompt: $json.text, seed: 7 }) }}',
					downloadOutputs: false,
				},
			),
		});
		expect(result.error).toBeUndefined();
		expect(submittedBodies()).toEqual([
			{ prompt: 'first', seed: 7 },
			{ prompt: 'second', seed: 7 },
		]);
		expect(result.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		const runs = sb.state().runs;
		for (const [n, item] of result.items.entries()) {
			const run = runs.find((r) => r.id === item.json.request_id);
			expect((run?.body as { prompt: string }).prompt).toBe(n === 0 ? 'first' : 'second');
			expect(item.binary).toBeUndefined();
			expect(item.json.output_urls).toHaveLength(1);
		}
	});

	it('the LoRA field is sent as {"lora": {"path": ...}}, keeping other lora keys from the inputs', async () => {
		const url = 'https://files.runcomfy.net/train/abc/my_lora_000002000.safetensors';
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: runParams(
				MODELS.lora,
				{ prompt: 'tok a portrait', lora: { path: 'old.safetensors', scale: 0.8 } },
				{
					options: { lora: url },
					downloadOutputs: false,
				},
			),
		});
		expect(result.error).toBeUndefined();
		expect(submittedBodies()).toEqual([{ prompt: 'tok a portrait', lora: { path: url, scale: 0.8 } }]);
	});

	it('a LoRA for a model without a lora input is refused before any paid call (also as saved with version 1)', async () => {
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: runParams(MODELS.flash, { prompt: 'x' }, { options: { lora: 'my_lora.safetensors' } }),
		});
		expect(result.error?.message).toContain('does not accept a LoRA');
		// Version 1 (workflows saved before 1.1) has the LoRA as a field of its own.
		const v1 = await runNode({
			node,
			typeVersion: 1,
			credentials: credentialsFor(sb),
			parameters: runParams(MODELS.flash, { prompt: 'x' }, { lora: 'my_lora.safetensors' }),
		});
		expect(v1.error?.message).toContain('does not accept a LoRA');
		expect(result.status).toBe('error');
		expect(result.error?.message).toContain('does not accept a LoRA');
		expect(result.error?.description).toContain('lora');
		expect(paidCalls(sb)).toBe(0);
	});
});

describe('Continue on Fail and failed runs', () => {
	it('a failed run is an error with the service text; under Continue on Fail an item with request_id', async () => {
		const failing = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: runParams(MODELS.fails, { prompt: 'x' }),
		});
		expect(failing.status).toBe('error');
		expect(failing.error?.message).toContain('CUDA error: an illegal memory access');
		const id = submits(sb)[0].createdId as string;
		expect(`${failing.error?.message} ${failing.error?.description}`).toContain(id);

		sb.reset(FAST);
		const result = await runNode({
			node,
			continueOnFail: true,
			credentials: credentialsFor(sb),
			inputItems: [{ json: { m: MODELS.flash, p: 'ok' } }, { json: { m: MODELS.fails, p: 'boom' } }, { json: { m: MODELS.flash, p: '' } }],
			parameters: {
				...runParams(MODELS.flash, {}, { downloadOutputs: false }),
				model: { __rl: true, mode: 'id', value: '={{ $json.m }}' },
				inputsJson: '={{ JSON.stringify({ prompt: $json.p }) }}',
			},
		});
		expect(result.status).toBe('success');
		expect(result.items).toHaveLength(3);
		expect(result.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(result.items[0].json).toMatchObject({ status: 'succeeded', model_id: MODELS.flash });
		expect(result.items[1].json).toMatchObject({ model_id: MODELS.fails, status: 'failed' });
		expect(result.items[1].json.error).toContain('CUDA error');
		expect(result.items[1].json.request_id).toBe(submits(sb).find((e) => e.path.includes('always-fails'))?.createdId);
		expect(result.items[2].json.error).toContain('prompt is required');
		expect(result.items[2].json.request_id).toBeUndefined();
		expect(paidCalls(sb)).toBe(2);
	});

	it('insufficient funds under Continue on Fail is an error item per item', async () => {
		sb.configure({ walletMicrodollars: 10 });
		const result = await runNode({
			node,
			continueOnFail: true,
			credentials: credentialsFor(sb),
			inputItems: [{ json: {} }, { json: {} }],
			parameters: runParams(MODELS.flash, { prompt: 'x' }),
		});
		expect(result.items).toHaveLength(2);
		for (const [n, item] of result.items.entries()) {
			expect(item.json.error).toEqual(expect.any(String));
			expect(item.json.model_id).toBe(MODELS.flash);
			expect(item.pairedItem).toEqual({ item: n });
		}
	});
});

describe('live-service quirks (both forms accepted)', () => {
	it('results saying "completed", errors as HTTP 200, statuses saying "failed", "canceled" spelling', async () => {
		sb.configure({
			quirks: { resultSaysCompleted: true, errorsAsHttp200: true, statusSaysFailed: true, americanCanceled: true },
		});
		const ok = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: runParams(MODELS.flash, { prompt: 'x' }),
		});
		expect(ok.error).toBeUndefined();
		expect(ok.items[0].json.status).toBe('succeeded');
		expect(ok.items[0].json.service_status).toBe('completed');
		expect(ok.items[0].binary?.data).toBeDefined();

		const failed = await runNode({
			node,
			continueOnFail: true,
			credentials: credentialsFor(sb),
			parameters: runParams(MODELS.fails, { prompt: 'x' }),
		});
		expect(failed.items[0].json.error).toContain('CUDA error');
		expect(failed.items[0].json.request_id).toEqual(expect.any(String));

		const missing = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: runParams('acme/missing/v1', { prompt: 'x' }),
		});
		expect(missing.status).toBe('error');
		expect(`${missing.error?.message} ${missing.error?.description}`).toContain('acme/missing/v1');
		expect(sb.state().runs.filter((r) => r.target === 'acme/missing/v1')).toHaveLength(0);
	});
});

describe('Without waiting, and as an AI tool', () => {
	it('Wait for Completion off returns the handle at once', async () => {
		sb.configure({ runDurationMs: 60_000 });
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: runParams(MODELS.flash, { prompt: 'x' }, { waitForCompletion: false }),
		});
		expect(result.error).toBeUndefined();
		const json = result.items[0].json;
		expect(json).toEqual({
			model_id: MODELS.flash,
			request_id: submits(sb)[0].createdId,
			status: 'queued',
			service_status: 'in_queue',
			status_url: expect.stringMatching(/\/status$/),
			result_url: expect.stringMatching(/\/result$/),
			cancel_url: expect.stringMatching(/\/cancel$/),
		});
		expect(sb.log().filter((e) => e.path.endsWith('/status') || isResult(e))).toHaveLength(0);
	});

	it('as a tool it returns compact JSON with URLs and a summary, no binary', async () => {
		const result = await runNode({
			node,
			asTool: true,
			credentials: credentialsFor(sb),
			parameters: runParams(MODELS.flash, { prompt: 'x' }),
		});
		expect(result.error).toBeUndefined();
		const [item] = result.items;
		expect(item.binary).toBeUndefined();
		expect(Object.keys(item.json).sort()).toEqual(['cost', 'model_id', 'output_urls', 'request_id', 'status', 'summary']);
		expect(item.json.summary).toMatch(/: succeeded; 1 output file: http/);
		expect(sb.log().filter((e) => e.api === 'files')).toHaveLength(0);
	});
});
