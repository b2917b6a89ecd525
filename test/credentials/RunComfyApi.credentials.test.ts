/**
 * The RunComfy API credential: its test request (GET /prod/v2/balance) against the sandbox through n8n's own
 * credential-test path, the token checks, and how the shared transport reads the credential.
 */
import { NodeOperationError, injectDomainRestrictionFields } from 'n8n-workflow';
import type { IHttpRequestOptions } from 'n8n-workflow';

import { DEFAULT_BASE_URLS, RunComfyApi } from '../../credentials/RunComfyApi.credentials';
import { getBalance, getCredentials } from '../../nodes/shared/transport';
import { startSandbox } from '../../sandbox';
import type { Sandbox } from '../../sandbox';
import { testCredential, withExecuteContext } from '../helpers/engine';
import type { RunComfyCredentialData } from '../helpers/engine';
import { credentialsFor } from '../helpers/sandboxSetup';

let sb: Sandbox;

beforeAll(async () => {
	sb = await startSandbox({ runDurationMs: 50, queueMs: 10 });
});

afterAll(async () => {
	await sb.close();
});

beforeEach(() => sb.reset());

const credentials = (over: Partial<RunComfyCredentialData> = {}): RunComfyCredentialData => credentialsFor(sb, over);

describe('credential test request', () => {
	it('passes with the right token (GET /prod/v2/balance on the serverless host, trailing slashes trimmed)', async () => {
		const result = await testCredential(credentials({ serverlessApiBaseUrl: `${sb.urls.serverless}///` }));
		expect(result.status).toBe('OK');
		const log = sb.log();
		expect(log).toHaveLength(1);
		expect(log[0]).toMatchObject({
			api: 'serverless',
			method: 'GET',
			path: '/prod/v2/balance',
			status: 200,
			authorization: `Bearer ${sb.token}`,
		});
	});

	it('passes with a zero balance (a zero balance is not an error)', async () => {
		sb.configure({ walletMicrodollars: 0 });
		const result = await testCredential(credentials());
		expect(result.status).toBe('OK');
		expect(sb.log()[0].status).toBe(200);
	});

	it('fails with a wrong token', async () => {
		const wrongToken = ['not', 'the', 'token'].join('-');
		const result = await testCredential(credentials({ accessToken: wrongToken }));
		expect(result.status).toBe('Error');
		expect(sb.log()[0]).toMatchObject({ path: '/prod/v2/balance', status: 401 });
	});

	it('refuses a token pasted with "Bearer " and sends nothing', async () => {
		const result = await testCredential(credentials({ accessToken: `Bearer ${sb.token}` }));
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/Bearer/);
		expect(sb.log()).toHaveLength(0);
	});
});

describe('authenticate', () => {
	const cred = new RunComfyApi();
	const options: IHttpRequestOptions = { url: 'https://api.runcomfy.net/prod/v2/balance', headers: { Accept: 'application/json' } };

	it('adds the bearer header to the request, keeping other headers', async () => {
		const out = await cred.authenticate({ accessToken: '  tok-123  ' }, options);
		expect(out.headers).toEqual({ Accept: 'application/json', Authorization: 'Bearer tok-123' });
	});

	it('refuses a token that starts with "Bearer "', async () => {
		await expect(cred.authenticate({ accessToken: 'Bearer tok-123' }, options)).rejects.toThrow(/Paste only the token itself/);
		await expect(cred.authenticate({ accessToken: 'bearer   tok-123' }, options)).rejects.toThrow(/Bearer/);
	});

	it('sends the token only to the three API base URLs, and never along a cross-origin redirect', async () => {
		const custom = {
			accessToken: 'tok-123',
			modelApiBaseUrl: 'https://proxy.example.com/runcomfy/model/v1',
			serverlessApiBaseUrl: 'http://127.0.0.1:8080/',
			trainerApiBaseUrl: '',
		};
		const allowed = [
			'https://proxy.example.com/runcomfy/model/v1/models/a%2Fb',
			'http://127.0.0.1:8080/prod/v2/balance',
			'https://trainer-api.runcomfy.net/prod/v1/trainers/datasets', // blank: the live default
		];
		for (const url of allowed) {
			const out = await cred.authenticate(custom, { url });
			expect(out.headers).toEqual({ Authorization: 'Bearer tok-123' });
			expect(out.sendCredentialsOnCrossOriginRedirect).toBe(false);
		}
		// relative URLs with a baseURL, as n8n's credential test sends them
		await expect(cred.authenticate(custom, { baseURL: 'http://127.0.0.1:8080', url: '/prod/v2/balance' })).resolves.toBeTruthy();
		const refused = [
			'https://api.runcomfy.net/prod/v2/balance', // the live host, but this credential points elsewhere
			'https://proxy.example.com/other/model/v1/models', // same origin, outside the base path
			'https://proxy.example.com/runcomfy/modelx', // a prefix of the path is not the path
			'http://127.0.0.1:8081/prod/v2/balance', // another port
			'https://127.0.0.1:8080/prod/v2/balance', // another scheme
			'https://evil.example/steal',
			'not a url',
		];
		for (const url of refused) {
			await expect(cred.authenticate(custom, { url })).rejects.toThrow(/sends its token only to its API base URLs/);
		}
	});
});

describe("n8n's injected domain fields", () => {
	it('are hidden: the one host list the user sees is Allowed Download Hosts', () => {
		const cred = new RunComfyApi();
		expect(cred.hideDomainRestrictionFields).toBe(true);
		const names = injectDomainRestrictionFields(cred).map((p) => p.name);
		expect(names).toEqual(['accessToken', 'modelApiBaseUrl', 'serverlessApiBaseUrl', 'trainerApiBaseUrl', 'allowedDownloadHosts']);
		expect(names).not.toContain('allowedHttpRequestDomains');
	});

	it('describe the same wildcard rule as n8n\'s own lists ("*.example.com" is subdomains only)', () => {
		const field = new RunComfyApi().properties.find((p) => p.name === 'allowedDownloadHosts');
		expect(field?.description).toMatch(/"\*\.example\.com" its subdomains only/);
	});
});

describe('getCredentials (how the transport reads the credential)', () => {
	const read = async (over: Partial<RunComfyCredentialData>) =>
		await withExecuteContext({ credentials: credentials(over) }, async (ctx) => {
			try {
				return { ok: await getCredentials(ctx) };
			} catch (error) {
				return { error: error as NodeOperationError };
			}
		});

	it('trims trailing slashes and a pasted version prefix from the base URLs', async () => {
		const { ok } = await read({
			modelApiBaseUrl: 'https://model-api.example.com/v1/',
			serverlessApiBaseUrl: ' https://api.example.com/prod/v2// ',
			trainerApiBaseUrl: 'https://trainer.example.com/prod/v1',
		});
		expect(ok).toMatchObject({
			modelApiBaseUrl: 'https://model-api.example.com',
			serverlessApiBaseUrl: 'https://api.example.com',
			trainerApiBaseUrl: 'https://trainer.example.com',
		});
	});

	it('uses the live hosts for blank base URLs', async () => {
		const { ok } = await read({ modelApiBaseUrl: '', serverlessApiBaseUrl: '  ', trainerApiBaseUrl: '' });
		expect(ok).toMatchObject(DEFAULT_BASE_URLS);
	});

	it('parses the allowed download hosts (comma or space separated, lower-cased)', async () => {
		const { ok } = await read({ allowedDownloadHosts: ' *.RunComfy.net,files.example.com  cdn.Example.org,, ' });
		expect(ok?.allowedDownloadHosts).toEqual(['*.runcomfy.net', 'files.example.com', 'cdn.example.org']);
	});

	it('refuses a "Bearer " token and an empty token with the fix', async () => {
		const bearer = await read({ accessToken: `Bearer ${sb.token}` });
		expect(bearer.error).toBeInstanceOf(NodeOperationError);
		expect(bearer.error?.message).toMatch(/starts with "Bearer "/);
		expect(bearer.error?.description).toMatch(/paste only the token itself/);
		const empty = await read({ accessToken: '   ' });
		expect(empty.error?.message).toMatch(/no access token/);
		expect(empty.error?.description).toMatch(/Profile → API Token/);
	});

	it('refuses a base URL that is not an http(s) URL', async () => {
		const { error } = await read({ trainerApiBaseUrl: 'trainer-api.runcomfy.net' });
		expect(error?.message).toMatch(/Trainer API Base URL .* is not a valid URL/);
	});

	it('sends no request when the token is refused', async () => {
		const outcome = await withExecuteContext({ credentials: credentials({ accessToken: 'Bearer abc' }) }, async (ctx) => {
			try {
				await getBalance(ctx);
				return 'sent';
			} catch (error) {
				return (error as Error).message;
			}
		});
		expect(outcome).toMatch(/Bearer/);
		expect(sb.log()).toHaveLength(0);
	});
});
