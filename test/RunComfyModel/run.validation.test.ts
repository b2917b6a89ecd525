/**
 * RunComfy Model node → Run: bad input gets one clear error naming the inputs and items, before any paid call.
 * Real n8n engine, sandbox on loopback.
 */
import { runNode } from '../helpers/engine';
import { FAST, MODELS, credentialsFor, node, paidCalls, runParams, useSandbox } from './setup';

const sb = useSandbox();
beforeEach(() => sb.reset(FAST));

describe('Bad input: one clear error, no paid call', () => {
	it('schema problems of every item are reported together, naming inputs and items', async () => {
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			inputItems: [
				{ json: { body: { prompt: 'ok', guidance_scale: 3 } } },
				{ json: { body: { prompt: '', guidance_scale: 25 } } },
				{ json: { body: { prompt: 'ok' } } },
				{ json: { body: { prompt: 'ok', guidance_scale: 'x', image_size: 'huge' } } },
			],
			parameters: runParams(MODELS.flash, {}, { inputsJson: '={{ JSON.stringify($json.body) }}' }),
		});
		expect(result.status).toBe('error');
		const message = result.error?.message ?? '';
		expect(message).toContain('Item 1: prompt is required');
		expect(message).toContain('guidance_scale must be at most 20');
		expect(message).toContain('Item 3: guidance_scale must be a number');
		expect(message).toContain('image_size must be one of');
		expect(message).not.toMatch(/Item [02]/);
		expect(result.error?.description).toMatch(/Nothing was submitted/);
		expect(paidCalls(sb)).toBe(0);
	});

	it('a single invalid item names the model and says what to do', async () => {
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: runParams(MODELS.imageToVideo, { prompt: 'go', image_url: 'data:image/png;base64,iVBORw0KGgo=', cfg_scale: 0.33 }),
		});
		expect(result.status).toBe('error');
		expect(result.error?.message).toMatch(/^Item 0: image_url is a Base64 data URI/);
		expect(result.error?.description).toContain(MODELS.imageToVideo);
		expect(result.error?.itemIndex).toBe(0);
		expect(paidCalls(sb)).toBe(0);
	});

	it('an {"input": {...}} wrapper is pointed out', async () => {
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: runParams(MODELS.flash, { input: { prompt: 'x' } }),
		});
		expect(result.status).toBe('error');
		expect(result.error?.message).toContain('input is not an input of this model');
		expect(result.error?.description).toContain('instead of inside "input"');
		expect(paidCalls(sb)).toBe(0);
	});

	it.each([
		['not JSON', '{ prompt: "x" ', /not valid JSON/],
		['an array', '[{"prompt": "x"}]', /must be a JSON object, not an array/],
		['a number', '42', /must be a JSON object, not a number/],
	])('a body that is %s is refused', async (_label, text, pattern) => {
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: { ...runParams(MODELS.flash, {}), inputsJson: text },
		});
		expect(result.status).toBe('error');
		expect(result.error?.message).toMatch(pattern);
		expect(paidCalls(sb)).toBe(0);
	});

	it("an unknown model id is the service's 404001 with the id, before any paid call", async () => {
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: runParams('acme/does-not-exist/v9', { prompt: 'x' }),
		});
		expect(result.status).toBe('error');
		const text = `${result.error?.message} ${result.error?.description}`;
		expect(text).toContain('acme/does-not-exist/v9');
		expect(text).toMatch(/404001|ResourceNotFound/);
		expect(paidCalls(sb)).toBe(0);
	});

	it.each([
		['no slash', 'flux'],
		['a .. segment', 'blackforestlabs/../secret'],
		['an empty segment', 'a//b'],
	])('a model id with %s (from an expression) is refused before any call', async (_label, id) => {
		sb.clearLog();
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			inputItems: [{ json: { id } }],
			parameters: { ...runParams(MODELS.flash, { prompt: 'x' }), model: { __rl: true, mode: 'id', value: '={{ $json.id }}' } },
		});
		expect(result.status).toBe('error');
		expect(result.error?.message).toContain('is not valid');
		expect(sb.log().filter((e) => e.api === 'model')).toHaveLength(0);
	});

	it('a typed model id without a slash: the node names it and the fix before any call', async () => {
		const result = await runNode({ node, credentials: credentialsFor(sb), parameters: runParams('flux', { prompt: 'x' }) });
		expect(result.status).toBe('error');
		expect(result.error?.message).toContain('flux');
		expect(`${result.error?.message} ${result.error?.description}`).toMatch(/separated by "\/"[\s\S]*exactly as the catalog lists it/);
		expect(sb.log().filter((e) => e.api === 'model')).toHaveLength(0);
	});

	it('a wrong token is a 401 telling to check the token; nothing is submitted', async () => {
		const result = await runNode({
			node,
			credentials: credentialsFor(sb, { accessToken: 'not-the-token' }),
			parameters: runParams(MODELS.flash, { prompt: 'x' }),
		});
		expect(result.status).toBe('error');
		expect(result.error?.httpCode).toBe('401');
		expect(`${result.error?.message} ${result.error?.description}`).toMatch(/token/i);
		expect(sb.state().runs).toHaveLength(0);
	});

	it('the Minimum Balance guard stops before submitting', async () => {
		sb.configure({ walletMicrodollars: 2_500_000 });
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			inputItems: [{ json: {} }, { json: {} }],
			parameters: runParams(MODELS.flash, { prompt: 'x' }, { options: { minimumBalanceUsd: 3 } }),
		});
		expect(result.status).toBe('error');
		expect(result.error?.message).toContain('$2.50, below the minimum of $3.00');
		expect(paidCalls(sb)).toBe(0);
		expect(sb.log().filter((e) => e.path === '/prod/v2/balance')).toHaveLength(1);
	});

	it('invalid Wait Options are refused before any paid call', async () => {
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: runParams(MODELS.flash, { prompt: 'x' }, { waitOptions: { maxWaitSeconds: 0 } }),
		});
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe('"Max Wait (Seconds)" of item 0 must be above 0, but is 0');
		expect(paidCalls(sb)).toBe(0);
	});

	it('a Polling Goal that is not one is refused before any paid call', async () => {
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: runParams(MODELS.flash, { prompt: 'x' }, { waitOptions: { pollingGoal: 'cheapest' } }),
		});
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe('"Polling Goal" of item 0 must be one of lowestDelay, fewestRequests, but is "cheapest"');
		expect(result.error?.description).toContain('Nothing was submitted');
		expect(paidCalls(sb)).toBe(0);
	});

	it("the service's own insufficient-funds answer says to top up", async () => {
		sb.configure({ walletMicrodollars: 10 });
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: runParams(MODELS.flash, { prompt: 'x' }),
		});
		expect(result.status).toBe('error');
		expect(`${result.error?.message} ${result.error?.description}`).toMatch(/top up/i);
		expect(sb.state().runs).toHaveLength(0);
	});
});
