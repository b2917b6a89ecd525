/**
 * RunComfy Model node: Catalog and Account operations, and the editor methods (model picker, category
 * options, input fields built from the schema), all in the real n8n engine against the sandbox.
 */
import type { ResourceMapperField } from 'n8n-workflow';

import { listSearch, loadOptions, resourceMapping, runNode } from '../helpers/engine';
import { MODELS, credentialsFor, node, useSandbox } from './setup';

/** The catalog is padded with generated models so paging is real (more than one page of 100/500). */
const EXTRA = 560;
const sb = useSandbox({ extraModels: EXTRA });
beforeEach(() => sb.clearLog());

const catalogLog = () => sb.log().filter((e) => e.api === 'model' && e.method === 'GET' && e.path === '/v1/models');

describe('Catalog → Get Many Models', () => {
	it('returns one item per model up to the limit, with filters sent to the server', async () => {
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: {
				resource: 'catalog',
				operation: 'getManyModels',
				limit: 3,
				filters: { search: 'flux', category: 'text-to-image', kind: 'model' },
			},
		});
		expect(result.status).toBe('success');
		expect(result.items).toHaveLength(3);
		for (const item of result.items) {
			expect(String(item.json.model_id)).toMatch(/flux/i);
			expect(item.json.categories).toContain('text-to-image');
			expect(item.json.input_schema).toBeUndefined();
			expect(item.pairedItem).toEqual({ item: 0 });
		}
		const [call] = catalogLog();
		expect(call.query).toMatchObject({ search: 'flux', category: 'text-to-image', kind: 'model', limit: '3' });
	});

	it('Return All pages through offset/total and returns every model exactly once', async () => {
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: { resource: 'catalog', operation: 'getManyModels', returnAll: true },
		});
		expect(result.status).toBe('success');
		const ids = result.items.map((i) => i.json.model_id);
		expect(new Set(ids).size).toBe(ids.length);
		expect(ids.length).toBeGreaterThan(EXTRA + 40);
		const pages = catalogLog();
		expect(pages.length).toBe(Math.ceil(ids.length / 500));
		expect(pages.map((p) => p.query.offset)).toEqual(pages.map((_, n) => String(n * 500)));
	});

	it('a limit above one page still pages, and Include Input Schemas adds input_schema', async () => {
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: { resource: 'catalog', operation: 'getManyModels', limit: 520, options: { includeSchema: true } },
		});
		expect(result.items).toHaveLength(520);
		expect(result.items[0].json.input_schema).toMatchObject({ type: 'object' });
		expect(catalogLog().map((p) => [p.query.limit, p.query.offset])).toEqual([
			['500', '0'],
			['20', '500'],
		]);
	});

	it("Skip First starts at that offset, like the API's offset: the same models as a page read directly", async () => {
		const all = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: { resource: 'catalog', operation: 'getManyModels', limit: 30 },
		});
		const skipped = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: { resource: 'catalog', operation: 'getManyModels', limit: 10, options: { offset: 20 } },
		});
		expect(skipped.items.map((i) => i.json.model_id)).toEqual(all.items.slice(20).map((i) => i.json.model_id));
		expect(catalogLog().at(-1)?.query).toMatchObject({ limit: '10', offset: '20' });
	});
});

describe('Catalog → Get Many Categories, Get Model; Account → Get Balance', () => {
	it('lists the categories as one item each', async () => {
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: { resource: 'catalog', operation: 'getManyCategories' },
		});
		const categories = result.items.map((i) => i.json.category);
		expect(categories).toHaveLength(11);
		expect(categories).toContain('text-to-image');
		expect(categories).toContain('speech-to-video');
		const three = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: { resource: 'catalog', operation: 'getManyCategories', returnAll: false, limit: 3 },
		});
		expect(three.items.map((i) => i.json.category)).toEqual(categories.slice(0, 3));
	});

	it('gets one model with its input schema', async () => {
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: { resource: 'catalog', operation: 'getModel', model: { __rl: true, mode: 'list', value: MODELS.flash } },
		});
		expect(result.status).toBe('success');
		expect(result.items[0].json).toMatchObject({
			model_id: MODELS.flash,
			display_name: 'FLUX.2 Flash',
			input_schema: { type: 'object', required: ['prompt'] },
		});
	});

	it("an unknown model id is the service's 404001 ResourceNotFound, naming the id", async () => {
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: { resource: 'catalog', operation: 'getModel', model: { __rl: true, mode: 'id', value: 'nobody/nothing/v1' } },
		});
		expect(result.status).toBe('error');
		expect(`${result.error?.message} ${result.error?.description}`).toContain('nobody/nothing/v1');
		expect(`${result.error?.message} ${result.error?.description}`).toMatch(/404001|ResourceNotFound|not found/i);
	});

	it('gets the balance', async () => {
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: { resource: 'account', operation: 'getBalance' },
		});
		expect(result.status).toBe('success');
		const { balance_usd, balance_microdollars, currency } = result.items[0].json;
		expect(balance_microdollars).toBe(sb.state().walletMicrodollars);
		expect(balance_usd).toBeCloseTo(Number(balance_microdollars) / 1e6, 6);
		expect(currency).toBe('USD');
	});

	it('a wrong token is a 401 that says to check the token, and the token never shows', async () => {
		const wrong = ['wrong', 'token', 'value', '123'].join('-');
		const result = await runNode({
			node,
			credentials: credentialsFor(sb, { accessToken: wrong }),
			parameters: { resource: 'account', operation: 'getBalance' },
		});
		expect(result.status).toBe('error');
		expect(result.error?.httpCode).toBe('401');
		expect(`${result.error?.message} ${result.error?.description}`).toMatch(/token/i);
		expect(JSON.stringify(result.error?.raw)).not.toContain(wrong);
	});
});

describe('Model picker (listSearch searchModels)', () => {
	const search = async (filter?: string, paginationToken?: string, categoryFilter = '') =>
		await listSearch({
			node,
			method: 'searchModels',
			credentials: credentialsFor(sb),
			parameters: { resource: 'model', operation: 'run', categoryFilter },
			filter,
			paginationToken,
		});

	it('searches on the server and shows display name · category · base price, value = model id', async () => {
		const page = await search('flux.2 flash');
		const flash = page.results.find((r) => r.value === MODELS.flash);
		expect(flash).toBeDefined();
		expect(flash?.name).toBe('FLUX.2 Flash · text-to-image · $0.04/output');
		expect(flash?.url).toMatch(/^https:\/\/www\.runcomfy\.com\/models\//);
		const call = catalogLog().at(-1);
		expect(call?.query.search).toBe('flux.2 flash');
	});

	it('pages through the whole catalog with the pagination token', async () => {
		const seen = new Set<string>();
		let token: string | undefined;
		let pages = 0;
		do {
			const page = await search(undefined, token);
			page.results.forEach((r) => seen.add(String(r.value)));
			token = page.paginationToken;
			pages++;
		} while (token && pages < 50);
		expect(token).toBeUndefined();
		const total = (await search()).results.length;
		expect(total).toBe(100);
		expect(seen.size).toBeGreaterThan(EXTRA + 40);
		expect(pages).toBe(Math.ceil(seen.size / 100));
	});

	it('the Category Filter narrows the list', async () => {
		const page = await search('', undefined, 'speech-to-video');
		expect(page.results.length).toBeGreaterThan(0);
		expect(page.results.every((r) => r.name.includes('speech-to-video'))).toBe(true);
		expect(catalogLog().at(-1)?.query.category).toBe('speech-to-video');
	});

	it('the category options come from /v1/models/categories', async () => {
		const plain = await loadOptions({
			node,
			method: 'getCategories',
			credentials: credentialsFor(sb),
			parameters: { resource: 'catalog', operation: 'getManyModels' },
		});
		expect(plain).toHaveLength(11);
		const withAny = await loadOptions({
			node,
			method: 'getCategoryFilterOptions',
			credentials: credentialsFor(sb),
			parameters: { resource: 'model', operation: 'run' },
		});
		expect(withAny[0]).toEqual({ name: 'Any Category', value: '' });
		expect(withAny.slice(1)).toEqual(plain);
		expect(sb.log().some((e) => e.path === '/v1/models/categories')).toBe(true);
	});
});

describe('Inputs mapper fields (resourceMapping getModelInputs)', () => {
	const fieldsFor = async (model: string) => {
		const result = await resourceMapping({
			node,
			method: 'getModelInputs',
			credentials: credentialsFor(sb),
			parameters: { resource: 'model', operation: 'run', model: { __rl: true, mode: 'list', value: model } },
			path: 'parameters.inputs',
		});
		return new Map<string, ResourceMapperField>(result.fields.map((f) => [f.id, f]));
	};

	it('text-to-image: required prompt, float with range, integer with null default, enums as options', async () => {
		const fields = await fieldsFor(MODELS.flash);
		expect(fields.get('prompt')).toMatchObject({ required: true, type: 'string', display: true });
		const guidance = fields.get('guidance_scale');
		expect(guidance).toMatchObject({ required: false, type: 'number', defaultValue: 2.5 });
		expect(guidance?.displayName).toContain('0–20');
		const seed = fields.get('seed');
		expect(seed).toMatchObject({ type: 'number', required: false });
		expect(seed?.defaultValue).toBeUndefined();
		const size = fields.get('image_size');
		expect(size?.type).toBe('options');
		expect(size?.options?.map((o) => o.value)).toEqual([
			'square_hd',
			'square',
			'portrait_4_3',
			'portrait_16_9',
			'landscape_4_3',
			'landscape_16_9',
		]);
		expect(size?.defaultValue).toBe('landscape_4_3');
		expect([...fields.keys()][0]).toBe('prompt');
	});

	it('file inputs say they take public HTTPS URLs (single and plural)', async () => {
		const video = await fieldsFor(MODELS.imageToVideo);
		expect(video.get('image_url')).toMatchObject({ type: 'string', required: true });
		expect(video.get('image_url')?.displayName).toMatch(/public HTTPS image URL/);
		const plural = await fieldsFor(MODELS.imageEditPlural);
		expect(plural.get('image_urls')).toMatchObject({ type: 'array', required: true });
		expect(plural.get('image_urls')?.displayName).toMatch(/public HTTPS URLs/);
	});

	it('a model with a LoRA input offers it as a text field (file name or URL)', async () => {
		const fields = await fieldsFor(MODELS.lora);
		expect(fields.get('lora')).toMatchObject({ type: 'string', required: false });
		expect(fields.get('lora')?.displayName).toMatch(/LoRA/);
		expect(fields.get('enable_safety_checker')).toMatchObject({ type: 'boolean', defaultValue: true });
	});

	it("switching model gives that model's fields; no model gives none", async () => {
		const a = await fieldsFor(MODELS.flash);
		const b = await fieldsFor(MODELS.imageToVideo);
		expect([...a.keys()]).not.toEqual([...b.keys()]);
		const none = await resourceMapping({
			node,
			method: 'getModelInputs',
			credentials: credentialsFor(sb),
			parameters: { resource: 'model', operation: 'run', model: { __rl: true, mode: 'list', value: '' } },
		});
		expect(none.fields).toEqual([]);
	});
});
