/**
 * The transport against a scripted API host on loopback: the token is scrubbed before any text is cut (a token
 * at the cut leaves no prefix) on every error path, the dataset and account endpoints included; a 3xx from an
 * API host never takes the token to its target (not through our transport, not through n8n's own request
 * helper as the HTTP Request node uses it); a paused deployment answered with HTTP 200 + 10002 names no
 * made-up status; and a paid submission answered 2xx with error_code 0 and no id may have been accepted.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { apiRequest, getBalance, getDatasetUploadUrls, listDatasets, submitModelRun } from '../../../nodes/shared/transport';
import { setRetryPolicy } from '../../../nodes/shared/transport/request';
import type { RetryPolicy } from '../../../nodes/shared/transport';
import { withExecuteContext } from '../../helpers/engine';
import type { RunComfyCredentialData } from '../../helpers/engine';
import { LoopbackHost } from '../../helpers/loopbackHost';

/** A distinctive dummy access token (its first four characters appear nowhere else). */
const ACCESS = ['Qz7r', 'cDUMMY', 'value0123456789abcdef'].join('');

/** What the scripted API answers next: status, body (object → JSON, string → text) and extra headers. */
let answer: { status: number; body: unknown; headers?: Record<string, string> } = { status: 200, body: {} };

let api: LoopbackHost;
let elsewhere: LoopbackHost;
let previousPolicy: RetryPolicy;

beforeAll(async () => {
	elsewhere = await new LoopbackHost({ '*': (_req, res) => res.end('stolen?') }).start();
	api = await new LoopbackHost({
		'*': (_req, res) => {
			const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
			res.writeHead(answer.status, {
				'Content-Type': typeof answer.body === 'string' ? 'text/plain' : 'application/json',
				'Content-Length': Buffer.byteLength(text),
				...(answer.headers ?? {}),
			});
			res.end(text);
		},
	}).start();
	previousPolicy = setRetryPolicy({ maxAttempts: 1 });
});

afterAll(async () => {
	setRetryPolicy(previousPolicy);
	await api.stop();
	await elsewhere.stop();
});

beforeEach(() => {
	api.reset();
	elsewhere.reset();
});

const credentials = (): RunComfyCredentialData => ({
	accessToken: ACCESS,
	modelApiBaseUrl: api.base,
	serverlessApiBaseUrl: api.base,
	trainerApiBaseUrl: api.base,
	allowedDownloadHosts: '127.0.0.1',
});

const caught = async (fn: (ctx: IExecuteFunctions) => Promise<unknown>): Promise<Error & IDataObject> =>
	await withExecuteContext({ credentials: credentials() }, async (ctx) => {
		try {
			await fn(ctx);
		} catch (error) {
			return error as Error & IDataObject;
		}
		throw new Error('expected an error');
	});

/** Everything a user can see of an error, as one text. */
const visible = (error: Error & IDataObject): string =>
	JSON.stringify({
		message: error.message,
		description: error.description,
		context: error.context,
		cause: error.cause,
		response: error.errorResponse,
	});

/** Neither the token nor any 4-character piece of its start appears. */
function expectNoTokenPiece(text: string): void {
	expect(text).not.toContain(ACCESS);
	expect(text).not.toContain(ACCESS.slice(0, 4));
}

describe('the token is scrubbed before any text is cut', () => {
	it('in an answer that is not JSON, with the token right at the cut (200 characters)', async () => {
		answer = { status: 200, body: `${'x'.repeat(196)}${ACCESS} and more` };
		const error = await caught(async (ctx) => await apiRequest(ctx, { family: 'serverless', method: 'GET', path: '/prod/v2/anything' }));
		expect(error.description).toMatch(/Answer \(HTTP 200\): x{196}\*\*\*/);
		expectNoTokenPiece(visible(error));
	});

	it('in an error answer whose text is cut at 300 characters', async () => {
		answer = { status: 400, body: `${'y'.repeat(297)}${ACCESS}` };
		const error = await caught(async (ctx) => await apiRequest(ctx, { family: 'serverless', method: 'GET', path: '/prod/v2/anything' }));
		expect(error.message).toMatch(/^RunComfy API error 400: y{297}\*\*\*/);
		expectNoTokenPiece(visible(error));
	});

	it.each<[string, (ctx: IExecuteFunctions) => Promise<unknown>, unknown]>([
		['the balance (no balance in the answer)', async (ctx) => await getBalance(ctx), { note: `echo ${ACCESS}` }],
		['the dataset list (not a list)', async (ctx) => await listDatasets(ctx), { echo: `${'z'.repeat(180)}${ACCESS}` }],
		[
			'signed upload URLs (none in the answer)',
			async (ctx) => await getDatasetUploadUrls(ctx, 'ds-1', { 'a.png': 10 }),
			{ uploads: {}, echo: ACCESS },
		],
		['a model run without a request id', async (ctx) => await submitModelRun(ctx, 'a/b', { prompt: 'x' }), { status: 'ok', echo: ACCESS }],
	])('in the answer sample of %s', async (_what, call, body) => {
		answer = { status: 200, body };
		const error = await caught(call);
		expect(error.description).toContain('Answer: ');
		expect(error.description).toContain('***');
		expectNoTokenPiece(visible(error));
	});
});

describe('a 3xx from an API host', () => {
	it('is not followed by the transport: the redirect target gets nothing', async () => {
		answer = { status: 302, body: '', headers: { Location: elsewhere.url('/steal') } };
		const error = await caught(async (ctx) => await getBalance(ctx));
		expect(error.message).toMatch(/unexpected/);
		expect(error.description).toContain(`redirect to ${elsewhere.url('/steal')}`);
		expect(api.hits).toHaveLength(1);
		expect(api.hits[0].headers.authorization).toBe(`Bearer ${ACCESS}`);
		expect(elsewhere.hits).toEqual([]);
	});

	it("through n8n's request helper (as the HTTP Request node uses the credential), the target gets no token", async () => {
		answer = { status: 302, body: '', headers: { Location: elsewhere.url('/steal') } };
		await withExecuteContext(
			{ credentials: credentials() },
			async (ctx) =>
				await ctx.helpers.httpRequestWithAuthentication.call(ctx, 'runComfyApi', { method: 'GET', url: `${api.base}/prod/v2/balance` }),
		);
		expect(api.hits[0].headers.authorization).toBe(`Bearer ${ACCESS}`);
		expect(elsewhere.hits).toHaveLength(1); // n8n followed the redirect ...
		expect(elsewhere.hits[0].headers.authorization).toBeUndefined(); // ... without the token
		expect(JSON.stringify(elsewhere.hits[0].headers)).not.toContain(ACCESS);
	});

	it('and a request with the credential to any other host is refused before it is sent', async () => {
		const error = await caught(
			async (ctx) =>
				await ctx.helpers.httpRequestWithAuthentication.call(ctx, 'runComfyApi', { method: 'GET', url: elsewhere.url('/steal') }),
		);
		expect(`${error.message} ${String(error.description ?? '')} ${String((error.cause as Error | undefined)?.message ?? '')}`).toMatch(
			/sends its token only to its API base URLs/,
		);
		expect(elsewhere.hits).toEqual([]);
	});
});

describe('HTTP 200 with an error_code', () => {
	it('a paused deployment (10002) names no made-up HTTP status', async () => {
		answer = { status: 200, body: { error_code: 10002, error_message: 'Deployment is paused' } };
		const error = await caught(
			async (ctx) =>
				await apiRequest(ctx, { family: 'serverless', method: 'POST', path: '/prod/v1/deployments/d-1/inference', body: {}, paid: true }),
		);
		expect(error.message).toBe('RunComfy API error (10002 DisabledDeployment): Deployment is paused');
		expect(error.description).toMatch(/Resume it \(Deployment → Resume\)/);
		expect(error.description).toContain('(answered HTTP 200 with error_code 10002)');
		expect(error.httpCode).toBeNull();
		expect(error.context).toMatchObject({ httpStatus: 200, errorCode: '10002' });
	});

	it('a code that stands for a status keeps it as httpCode, and the message names none', async () => {
		answer = { status: 200, body: { error_code: 404001, error_message: 'Model not found' } };
		const error = await caught(
			async (ctx) => await apiRequest(ctx, { family: 'model', method: 'GET', path: '/v1/models/a/b', retry: 'never' }),
		);
		expect(error.message).toBe('RunComfy API error (404001 ResourceNotFound): Model not found');
		expect(error.httpCode).toBe('404');
	});

	it('error_code 0 on a paid submission without an id is no refusal: it may have been accepted', async () => {
		answer = { status: 200, body: { error_code: 0, error_message: 'ok' } };
		const error = await caught(async (ctx) => await submitModelRun(ctx, 'a/b', { prompt: 'x' }, 0));
		expect(error.message).toBe('The model run of "a/b" was probably accepted, but the answer carries no request id');
		expect(error.context).toMatchObject({ mayHaveBeenAccepted: true });
	});

	it('an id beside an error_code makes no other request a success (only submissions)', async () => {
		answer = { status: 200, body: { request_id: 'r-1', error_code: 404001, error_message: 'Request not found' } };
		const error = await caught(async (ctx) => await apiRequest(ctx, { family: 'model', method: 'GET', path: '/v1/requests/r-1/status' }));
		expect(error.message).toBe('RunComfy API error (404001 ResourceNotFound): Request not found');
	});

	it('a real HTTP error keeps its status in the message', async () => {
		answer = { status: 403, body: { error_code: 10002, error_message: 'Deployment is paused' } };
		const error = await caught(
			async (ctx) => await apiRequest(ctx, { family: 'serverless', method: 'GET', path: '/prod/v1/deployments/d-1' }),
		);
		expect(error.message).toBe('RunComfy API error 403 (10002 DisabledDeployment): Deployment is paused');
		expect(error.httpCode).toBe('403');
	});
});
