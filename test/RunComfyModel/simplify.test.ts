/**
 * Catalog → Get Model and Get Many Models: Simplify (on by default, as in n8n's own nodes) keeps the fields a user
 * needs, the model id first, and the input schema where there is one (what Run takes); off gives the catalog's
 * whole entry; an agent gets the simplified form; an expression that gives nothing is refused before any call.
 */
import { runNode } from '../helpers/engine';
import { callTool, expectCompact, expectSummary, fromAI } from '../helpers/toolSetup';
import { MODELS, credentialsFor, node, useSandbox } from './setup';

const sb = useSandbox();
beforeEach(() => sb.clearLog());

/** The simplified fields of a catalog entry, in order (the flash model has every one of them). */
const BASE = [
	'model_id',
	'display_name',
	'description',
	'categories',
	'kind',
	'base_price_usd',
	'price_unit',
	'model_url',
	'required_inputs',
];

const run = async (parameters: object) =>
	await runNode({ node, credentials: credentialsFor(sb), parameters: { resource: 'catalog', ...parameters } });
const catalogCalls = () => sb.log().filter((e) => e.api === 'model');

describe.each([
	['getModel', (model: string) => ({ operation: 'getModel', model: { __rl: true, mode: 'id', value: model } }), true],
	['getManyModels', (search: string) => ({ operation: 'getManyModels', limit: 1, filters: { search } }), false],
])('Catalog → %s', (_operation, params, withSchema) => {
	const schemaField = withSchema ? ['input_schema'] : [];

	it('is simplified by default: id, name, description, categories, price, page and required inputs', async () => {
		const result = await run(params(MODELS.flash));
		expect(result.error).toBeUndefined();
		const { json } = result.items[0];
		expect(Object.keys(json)).toEqual([...BASE, ...schemaField]);
		expect(json).toMatchObject({ model_id: MODELS.flash, display_name: 'FLUX.2 Flash', required_inputs: ['prompt'] });
	});

	it('Simplify off: the whole catalog entry (publisher, inputs, batch sizes, ...)', async () => {
		const { json } = (await run({ ...params(MODELS.flash), simple: false })).items[0];
		expect(json).toMatchObject({
			model_id: MODELS.flash,
			publisher: 'blackforestlabs',
			inputs: expect.any(Array),
			supported_batch_size: expect.any(Array),
		});
		expect(Object.keys(json).length).toBeGreaterThan(10);
	});

	it('an AI agent gets the simplified form with its summary', async () => {
		const parameters = { resource: 'catalog', ...params(fromAI('model')) };
		const [item] = expectCompact(sb, await callTool(sb, node, parameters, { model: MODELS.flash }));
		expect(Object.keys(item.json)).toEqual([...BASE, ...schemaField, 'summary']);
		expectSummary(item.json, MODELS.flash);
	});

	it('a Simplify expression that gives nothing is refused before any call', async () => {
		const result = await run({ ...params(MODELS.flash), simple: '={{ $json.simplify }}' });
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe('"Simplify" of item 0 is empty: its expression {{ $json.simplify }} gave undefined');
		expect(catalogCalls()).toEqual([]);
	});
});

describe('Catalog → Get Many Models with Include Input Schemas', () => {
	it('simplified, each model keeps its input schema: ten fields', async () => {
		const { json } = (
			await run({ operation: 'getManyModels', limit: 1, filters: { search: MODELS.flash }, options: { includeSchema: true } })
		).items[0];
		expect(Object.keys(json)).toEqual([...BASE, 'input_schema']);
		expect(json.input_schema).toMatchObject({ type: 'object', required: ['prompt'] });
	});

	it('an Include Input Schemas expression that gives nothing is refused before any call', async () => {
		const result = await run({ operation: 'getManyModels', options: { includeSchema: '={{ $json.schemas }}' } });
		expect(result.error?.message).toBe('"Include Input Schemas" of item 0 is empty: its expression {{ $json.schemas }} gave undefined');
		expect(catalogCalls()).toEqual([]);
	});
});
