/**
 * Failure handling of the shared transport against the sandbox over loopback: service answers (the
 * HTTP-200-with-error_code quirk, 401, 402) and the token never appearing in any error.
 */
import { NodeApiError } from 'n8n-workflow';

import { getBalance, getModel, submitModelRun, submitTrainingJob } from '../../../nodes/shared/transport';
import { setRetryPolicy } from '../../../nodes/shared/transport/request';
import { collectStrings } from '../../helpers/faults-setup';
import { FLUX, apiCalls, closedPort, expectNoToken, readyDataset, useFailureSandbox, yamlConfig } from './failures-setup';

const { sb, run, caught, credentials } = useFailureSandbox();

describe('service answers', () => {
	it('treats HTTP 200 with an error_code as an error (live quirk)', async () => {
		sb.configure({ quirks: { errorsAsHttp200: true }, walletMicrodollars: 0 });
		const notFound = await caught(async (ctx) => await getModel(ctx, 'nobody/nothing'));
		expect(notFound).toBeInstanceOf(NodeApiError);
		expect(notFound.httpCode).toBe('404');
		expect(notFound.context.httpStatus).toBe(200);
		expect(notFound.message).toContain('404001 ResourceNotFound');
		expect(notFound.description).toMatch(/exactly as listed by Get Many Models/);

		const broke = await caught(async (ctx) => await submitModelRun(ctx, FLUX, { prompt: 'x' }));
		expect(broke.message).toContain('400002 InsufficientResources');
		expect(broke.description).toMatch(/Top up the balance/);

		const invalid = await caught(async (ctx) => await submitModelRun(ctx, FLUX, {}));
		expect(invalid.httpCode).toBe('422');
		expect(invalid.description).toMatch(/These inputs were rejected: prompt/);
		expect(apiCalls(sb).map((e) => e.status)).toEqual([200, 200, 200]);
	});

	it('maps 401 to "check the access token in the credential", without the token anywhere', async () => {
		const wrong = 'wrong-token-abcdef123456';
		const error = await caught(async (ctx) => await getBalance(ctx), credentials({ accessToken: wrong }));
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.httpCode).toBe('401');
		expect(error.message).toContain('401001 Unauthorized');
		expect(error.description).toMatch(/paste the current token from your RunComfy profile page/);
		expect(apiCalls(sb)[0]).toMatchObject({ status: 401, authorization: `Bearer ${wrong}` });
		expectNoToken(error, wrong);
	});

	it('maps 402 to "top up the balance" (trainer InsufficientFunds)', async () => {
		await run(async (ctx) => await readyDataset(ctx, 'cats'));
		sb.configure({ walletMicrodollars: 0 });
		const error = await caught(
			async (ctx) =>
				await submitTrainingJob(ctx, { configFile: yamlConfig('cat_lora', 'cats'), configFormat: 'yaml', gpuType: 'ADA_80_PLUS' }),
		);
		expect(error.httpCode).toBe('402');
		expect(error.description).toMatch(/Top up the balance/);
	});
});

describe('the token never appears in an error', () => {
	it('is scrubbed from errors although n8n attaches the request (with Authorization) to its own', async () => {
		const port = await closedPort();
		const creds = credentials({ serverlessApiBaseUrl: `http://127.0.0.1:${port}` });
		// n8n's own error for this request carries the Authorization header...
		const raw = await run(async (ctx) => {
			try {
				await ctx.helpers.httpRequestWithAuthentication.call(ctx, 'runComfyApi', {
					method: 'GET',
					url: `http://127.0.0.1:${port}/prod/v2/balance`,
				});
			} catch (error) {
				return collectStrings(error).some((s) => s.includes(sb.token));
			}
			return false;
		}, creds);
		expect(raw).toBe(true);
		// ...ours does not.
		const previous = setRetryPolicy({ baseDelayMs: 1 });
		try {
			const error = await caught(async (ctx) => await getBalance(ctx), creds);
			expect(error.message).toMatch(/connection was refused/);
			expectNoToken(error, sb.token);
		} finally {
			setRetryPolicy(previous);
		}
	});

	it('is absent from API errors, paid "may have been accepted" errors and rate-limit errors', async () => {
		const errors: unknown[] = [];
		errors.push(await caught(async (ctx) => await getModel(ctx, 'nobody/nothing')));
		errors.push(await caught(async (ctx) => await submitModelRun(ctx, FLUX, {})));
		sb.configure({ faults: { rate5xx: 1, paidFaultTiming: 'after', pathPrefixes: ['/v1/models/'] } });
		errors.push(await caught(async (ctx) => await submitModelRun(ctx, FLUX, { prompt: 'x' })));
		sb.configure({ faults: { rate5xx: 0, rate429: 1, retryAfterSeconds: 3600, pathPrefixes: [] } });
		errors.push(await caught(async (ctx) => await getBalance(ctx)));
		expect(errors).toHaveLength(4);
		for (const error of errors) {
			expect(error).toBeInstanceOf(NodeApiError);
			expectNoToken(error, sb.token);
		}
	});
});
