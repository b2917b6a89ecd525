/** The sandbox Model API: auth and hosts, the catalog, and the checks of a submit. */
import { STABLE_MODELS } from '../../sandbox';
import { client, useStartedSandbox } from './helpers';

const T2I = STABLE_MODELS.textToImage;

describe('sandbox Model API', () => {
	const sb = useStartedSandbox({ runDurationMs: 40, queueMs: 20 });

	const M = () => sb.urls.modelApi;

	describe('auth and hosts', () => {
		it('refuses a missing or wrong bearer token with 401001', async () => {
			const none = await client(sb, null).get(`${M()}/v1/models`);
			expect(none.status).toBe(401);
			expect(none.data).toEqual({ error_code: 401001, error_message: 'Unauthorized' });
			const wrong = await client(sb, 'nope').get(`${M()}/v1/models`);
			expect(wrong.status).toBe(401);
			const ok = await client(sb).get(`${M()}/v1/models`);
			expect(ok.status).toBe(200);
		});

		it('serves each family on its own port only', async () => {
			const ports = new Set(Object.values(sb.urls).map((u) => new URL(u).port));
			expect(ports.size).toBe(4);
			const onServerless = await client(sb).get(`${sb.urls.serverless}/v1/models`);
			expect(onServerless.status).toBe(404);
			const balanceOnModel = await client(sb).get(`${M()}/prod/v2/balance`);
			expect(balanceOnModel.status).toBe(404);
			const balance = await client(sb).get(`${sb.urls.serverless}/prod/v2/balance`);
			expect(balance.status).toBe(200);
		});

		it('logs api, method, path, query, body and the authorization header', async () => {
			sb.clearLog();
			await client(sb).post(`${M()}/v1/models/${T2I}?x=1&x=2`, { prompt: 'cat' });
			const [entry] = sb.log();
			expect(entry).toMatchObject({
				api: 'model',
				method: 'POST',
				path: `/v1/models/${T2I}`,
				query: { x: ['1', '2'] },
				body: { prompt: 'cat' },
				authorization: `Bearer ${sb.token}`,
				status: 200,
			});
			expect(entry.createdId).toEqual(expect.any(String));
		});

		it('accepts a token given at start and changed by configure', async () => {
			sb.configure({ token: 'other-token-123' });
			expect((await client(sb, 'other-token-123').get(`${M()}/v1/models/categories`)).status).toBe(200);
			expect((await client(sb, 'sandbox-token-0123456789').get(`${M()}/v1/models/categories`)).status).toBe(401);
		});
	});

	describe('catalog', () => {
		it('has at least 40 curated models across all 11 categories', async () => {
			const res = await client(sb).get(`${M()}/v1/models`, { params: { limit: 500 } });
			expect(res.data.total).toBeGreaterThanOrEqual(40);
			const cats = await client(sb).get(`${M()}/v1/models/categories`);
			expect(cats.data.categories).toEqual([
				'audio-to-audio',
				'audio-to-video',
				'edit-video',
				'image-to-image',
				'image-to-video',
				'reference-to-video',
				'speech-to-video',
				'text-to-audio',
				'text-to-image',
				'text-to-video',
				'video-to-video',
			]);
			for (const c of cats.data.categories) {
				const r = await client(sb).get(`${M()}/v1/models`, { params: { category: c } });
				expect(r.data.total).toBeGreaterThan(0);
				expect(r.data.models.every((m: { categories: string[] }) => m.categories.includes(c))).toBe(true);
			}
			const kinds = new Set(res.data.models.map((m: { kind: string }) => m.kind));
			expect([...kinds].sort()).toEqual(['inference', 'model', 'workflow']);
		});

		it('pages with limit/offset and reports total before paging', async () => {
			const all = (await client(sb).get(`${M()}/v1/models`, { params: { limit: 500 } })).data;
			const page = (await client(sb).get(`${M()}/v1/models`, { params: { limit: 5, offset: 3 } })).data;
			expect(page).toMatchObject({ total: all.total, limit: 5, offset: 3 });
			expect(page.models.map((m: { model_id: string }) => m.model_id)).toEqual(
				all.models.slice(3, 8).map((m: { model_id: string }) => m.model_id),
			);
			const dflt = (await client(sb).get(`${M()}/v1/models`)).data;
			expect(dflt.limit).toBe(100);
			expect(dflt.offset).toBe(0);
		});

		it.each([
			['limit', '0'],
			['limit', '501'],
			['limit', 'ten'],
			['offset', '-1'],
			['kind', 'robot'],
			['include_schema', 'maybe'],
		])('rejects %s=%s with 422 detail', async (key, value) => {
			const res = await client(sb).get(`${M()}/v1/models`, { params: { [key]: value } });
			expect(res.status).toBe(422);
			expect(res.data.error_code).toBe(422001);
			expect(res.data.detail[0].loc).toEqual(['query', key]);
		});

		it('searches model_id, display_name and description case-insensitively, filters kind', async () => {
			const byName = (await client(sb).get(`${M()}/v1/models`, { params: { search: 'NANO BANANA' } })).data;
			expect(byName.models.map((m: { model_id: string }) => m.model_id)).toContain(STABLE_MODELS.imageEditPlural);
			const byDesc = (await client(sb).get(`${M()}/v1/models`, { params: { search: 'lip-sync' } })).data;
			expect(byDesc.total).toBeGreaterThan(0);
			const wf = (await client(sb).get(`${M()}/v1/models`, { params: { kind: 'workflow', limit: 500 } })).data;
			expect(wf.total).toBeGreaterThan(0);
			expect(wf.models.every((m: { kind: string }) => m.kind === 'workflow')).toBe(true);
		});

		it('includes input_schema only with include_schema=true', async () => {
			const without = (await client(sb).get(`${M()}/v1/models`, { params: { limit: 3 } })).data;
			expect(without.models[0].input_schema).toBeUndefined();
			expect(without.models[0].inputs).toEqual(expect.any(Array));
			const withS = (await client(sb).get(`${M()}/v1/models`, { params: { limit: 3, include_schema: 'true' } })).data;
			expect(withS.models[0].input_schema.type).toBe('object');
		});

		it('returns one model by its slash id (raw or with encoded segments) with the live schema quirks', async () => {
			const res = await client(sb).get(`${M()}/v1/models/${T2I}`);
			expect(res.status).toBe(200);
			const m = res.data;
			expect(m).toMatchObject({ model_id: T2I, publisher: 'blackforestlabs', categories: ['text-to-image'], base_price_usd: 0.04 });
			expect(m.required_inputs).toEqual(['prompt']);
			expect(m.inputs).toEqual(Object.keys(m.input_schema.properties));
			const p = m.input_schema.properties;
			expect(p.guidance_scale).toMatchObject({ type: 'float', minimum: 0, maximum: 20, default: 2.5 });
			expect(p.seed).toMatchObject({ type: 'integer', default: null });
			expect(p.output_format.enum).toEqual(['jpeg', 'png', 'webp']);
			expect(p.num_images).toMatchObject({ type: 'integer', minimum: 1, maximum: 4 });
			expect(p.prompt.maxLength).toEqual(expect.any(Number));
			const encoded = await client(sb).get(`${M()}/v1/models/${T2I.split('/').map(encodeURIComponent).join('/')}`);
			expect(encoded.data.model_id).toBe(T2I);
		});

		it('has LoRA, plural file and validations inputs on the stable models', async () => {
			const lora = (await client(sb).get(`${M()}/v1/models/${STABLE_MODELS.lora}`)).data;
			expect(lora.input_schema.properties.lora).toMatchObject({ type: 'object', properties: { path: { type: 'string' } } });
			const edit = (await client(sb).get(`${M()}/v1/models/${STABLE_MODELS.imageEditPlural}`)).data;
			expect(edit.input_schema.properties.image_urls).toMatchObject({ type: 'array', format: 'image_uris', minItems: 1, maxItems: 4 });
			expect(edit.input_schema.properties.image_urls.validations.length).toBeGreaterThan(0);
			const i2v = (await client(sb).get(`${M()}/v1/models/${STABLE_MODELS.imageToVideo}`)).data;
			expect(i2v.input_schema.properties.image_url.format).toBe('image_uri');
			const v2v = (await client(sb).get(`${M()}/v1/models/${STABLE_MODELS.videoToVideo}`)).data;
			expect(v2v.input_schema.properties.video_url.format).toBe('video_uri');
			const a2a = (await client(sb).get(`${M()}/v1/models/${STABLE_MODELS.audioToAudio}`)).data;
			expect(a2a.input_schema.properties.audio_url.format).toBe('audio_uri');
			const all = (await client(sb).get(`${M()}/v1/models`, { params: { limit: 500, include_schema: true } })).data;
			const props = all.models.flatMap((mm: { input_schema: { properties: Record<string, { multipleOf?: number }> } }) =>
				Object.values(mm.input_schema.properties),
			);
			expect(props.some((pp: { multipleOf?: number }) => pp.multipleOf !== undefined)).toBe(true);
		});

		it('answers an unknown model with 404001 ResourceNotFound', async () => {
			const res = await client(sb).get(`${M()}/v1/models/nobody/nothing/text-to-image`);
			expect(res.status).toBe(404);
			expect(res.data).toMatchObject({ error_code: 404001, name: 'ResourceNotFound' });
			expect(res.data.error_message).toMatch(/not found/);
			const post = await client(sb).post(`${M()}/v1/models/nobody/nothing`, { prompt: 'x' });
			expect(post.status).toBe(404);
		});

		it('generates extra models for big-catalog tests', async () => {
			sb.configure({ extraModels: 5000 });
			const res = (await client(sb).get(`${M()}/v1/models`, { params: { limit: 1 } })).data;
			expect(res.total).toBeGreaterThanOrEqual(5040);
			const last = (await client(sb).get(`${M()}/v1/models`, { params: { limit: 1, offset: res.total - 1 } })).data.models[0];
			const one = await client(sb).get(`${M()}/v1/models/${last.model_id}`);
			expect(one.data.input_schema.type).toBe('object');
		});
	});

	describe('submit validation', () => {
		const submit = (model: string, body: unknown) =>
			client(sb).post(`${M()}/v1/models/${model}`, body, { headers: { 'Content-Type': 'application/json' } });

		it.each<[string, unknown, (string | number)[], string]>([
			['missing required prompt', { num_images: 1 }, ['body', 'prompt'], 'missing'],
			['unknown key', { prompt: 'x', steps: 3 }, ['body', 'steps'], 'extra_forbidden'],
			['float as string', { prompt: 'x', guidance_scale: 'high' }, ['body', 'guidance_scale'], 'type_error'],
			['above maximum', { prompt: 'x', guidance_scale: 25 }, ['body', 'guidance_scale'], 'value_error.maximum'],
			['integer with decimals', { prompt: 'x', num_images: 1.5 }, ['body', 'num_images'], 'type_error'],
			['enum value', { prompt: 'x', output_format: 'gif' }, ['body', 'output_format'], 'enum'],
			['too long prompt', { prompt: 'x'.repeat(5000) }, ['body', 'prompt'], 'value_error.maxLength'],
		])('rejects %s with 422 naming the input', async (_name, body, loc, type) => {
			const res = await submit(T2I, body);
			expect(res.status).toBe(422);
			expect(res.data.error_code).toBe(422001);
			expect(res.data.detail).toEqual(expect.arrayContaining([expect.objectContaining({ loc, type })]));
			expect(sb.state().runs).toHaveLength(0);
		});

		it('accepts null for a property whose default is null, and a float for an integer-free float', async () => {
			const res = await submit(T2I, { prompt: 'x', seed: null, guidance_scale: 3.25 });
			expect(res.status).toBe(200);
		});

		it('rejects non-object bodies', async () => {
			for (const body of [[1, 2], '"text"', 'null']) {
				const res = await client(sb).post(`${M()}/v1/models/${T2I}`, body, {
					headers: { 'Content-Type': 'application/json' },
					transformRequest: [(d) => (typeof d === 'string' ? d : JSON.stringify(d))],
				});
				expect(res.status).toBe(422);
				expect(res.data.detail[0].loc).toEqual(['body']);
			}
			const bad = await client(sb).post(`${M()}/v1/models/${T2I}`, '{oops', {
				headers: { 'Content-Type': 'application/json' },
				transformRequest: [(d) => d],
			});
			expect(bad.status).toBe(422);
			expect(bad.data.detail[0].type).toBe('json_invalid');
		});

		it('rejects data: URIs and non-https file inputs, naming the input', async () => {
			const data = await submit(STABLE_MODELS.imageToVideo, { prompt: 'x', image_url: 'data:image/png;base64,iVBORw0KGgo=' });
			expect(data.status).toBe(422);
			expect(data.data.detail[0]).toMatchObject({ loc: ['body', 'image_url'] });
			expect(data.data.detail[0].msg).toMatch(/data URI/);
			const http = await submit(STABLE_MODELS.imageToVideo, { prompt: 'x', image_url: 'http://example.com/a.png' });
			expect(http.status).toBe(422);
			expect(http.data.detail[0].loc).toEqual(['body', 'image_url']);
			const plural = await submit(STABLE_MODELS.imageEditPlural, {
				prompt: 'x',
				image_urls: ['https://example.com/a.png', 'ftp://x/y.png'],
			});
			expect(plural.status).toBe(422);
			expect(plural.data.detail[0].loc).toEqual(['body', 'image_urls', 1]);
			const ok = await submit(STABLE_MODELS.imageToVideo, { prompt: 'x', image_url: 'https://example.com/a.png' });
			expect(ok.status).toBe(200);
		});

		it('enforces minItems/maxItems on plural inputs and the lora object shape', async () => {
			const none = await submit(STABLE_MODELS.imageEditPlural, { prompt: 'x', image_urls: [] });
			expect(none.status).toBe(422);
			const five = await submit(STABLE_MODELS.imageEditPlural, { prompt: 'x', image_urls: Array(5).fill('https://e.com/a.png') });
			expect(five.data.detail[0]).toMatchObject({ loc: ['body', 'image_urls'], type: 'value_error.maxItems' });
			const noPath = await submit(STABLE_MODELS.lora, { prompt: 'x', lora: { scale: 1 } });
			expect(noPath.data.detail[0].loc).toEqual(['body', 'lora', 'path']);
			const ok = await submit(STABLE_MODELS.lora, {
				prompt: 'sks dog',
				lora: { path: 'https://files.example.com/my_lora.safetensors', scale: 0.8 },
			});
			expect(ok.status).toBe(200);
		});
	});
});
