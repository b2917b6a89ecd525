/**
 * The bad-input table (runner and rules: ./table.ts). Model: account and credential, request ids, downloads (not errors by design), and every numeric option.
 */
import { SCAN_TOKEN } from '../../helpers/faults-setup';
import type { FixtureName, Row } from './table';
import {
	GUARD_FIX,
	NOT_AN_ERROR,
	REQUEST_ID_FIX,
	STABLE,
	TOP_UP,
	WAIT,
	modelOp,
	modelRun,
	noRequests,
	noWrites,
	useBadInputTable,
} from './table';
import { numericFixtures, numericRows } from './numbers';

const ROWS: Row[] = [
	// Model: account and credential
	{
		name: 'wrong token (401)',
		node: 'model',
		parameters: modelRun(STABLE.flash, { prompt: 'x' }),
		credentials: { accessToken: 'dummy-wrong-token-123' },
		error: /401 \(401001 Unauthorized\)/,
		fix: /RunComfy did not accept the access token\. Open the RunComfy API credential and paste the current token/,
	},
	{
		name: 'token pasted with "Bearer "',
		node: 'model',
		parameters: modelRun(STABLE.flash, { prompt: 'x' }),
		credentials: { accessToken: `Bearer ${SCAN_TOKEN}` },
		error: /The RunComfy access token starts with "Bearer "/,
		fix: /paste only the token itself, without the word "Bearer"/,
		check: noRequests,
	},
	{
		name: 'empty wallet (the service refuses: insufficient funds)',
		node: 'model',
		parameters: modelRun(STABLE.flash, { prompt: 'x' }),
		config: { walletMicrodollars: 0 },
		paidRefused: true,
		error: /400 \(400002 InsufficientResources\)/,
		fix: TOP_UP,
	},
	{
		name: 'minimum-balance guard (checked before submitting)',
		node: 'model',
		parameters: modelRun(STABLE.flash, { prompt: 'x' }, { options: { minimumBalanceUsd: 3 } }),
		config: { walletMicrodollars: 2_500_000 },
		error: /The RunComfy balance is \$2\.50, below the minimum of \$3\.00/,
		fix: GUARD_FIX,
		check: (log) => expect(log.some((e) => e.path === '/prod/v2/balance')).toBe(true),
	},
	{
		name: 'base URL that is not a URL',
		node: 'model',
		parameters: modelRun(STABLE.flash, { prompt: 'x' }),
		credentials: { modelApiBaseUrl: 'model-api.runcomfy' },
		error: /The Model API Base URL in the RunComfy API credential is not a valid URL/,
		fix: /Use a plain http\(s\) URL .*or clear the field to use the default/,
		check: noRequests,
	},
	// Model: request ids
	{
		name: 'empty request id (from an expression)',
		node: 'model',
		parameters: modelOp('getStatus', '={{ $json.id }}'),
		inputItems: [{ json: { id: '' } }],
		error: /^The Request ID is empty$/,
		fix: REQUEST_ID_FIX,
		check: noRequests,
	},
	{
		name: 'whitespace request id',
		node: 'model',
		parameters: modelOp('getResult', '   '),
		error: /^The Request ID is empty$/,
		fix: REQUEST_ID_FIX,
		check: noRequests,
	},
	{
		name: 'request id "../x" (path injection)',
		node: 'model',
		parameters: modelOp('getStatus', '../x'),
		error: /The Request ID "\.\.\/x" is not valid/,
		fix: REQUEST_ID_FIX,
		check: noRequests,
	},
	{
		name: 'request id with "?" on Cancel',
		node: 'model',
		parameters: modelOp('cancel', 'abc?x=1'),
		error: /The Request ID "abc\?x=1" is not valid/,
		fix: REQUEST_ID_FIX,
		check: noRequests,
	},
	{
		name: 'request id with "#"',
		node: 'model',
		parameters: modelOp('getResult', 'abc#frag'),
		error: /The Request ID "abc#frag" is not valid/,
		fix: REQUEST_ID_FIX,
		check: noRequests,
	},
	{
		name: 'request id with a backslash',
		node: 'model',
		parameters: modelOp('getStatus', 'abc\\def'),
		error: /The Request ID "abc\\def" is not valid/,
		fix: REQUEST_ID_FIX,
		check: noRequests,
	},
	{
		name: 'Get Result of a request id that does not exist',
		node: 'model',
		parameters: modelOp('getResult', '6d2c1f8e-0000-4000-8000-000000000000'),
		error: /404 \(404001 ResourceNotFound\).*6d2c1f8e-0000-4000-8000-000000000000/,
		fix: /Check the request id: it must come from a model run/,
	},
	{
		name: 'Cancel of a request id that does not exist',
		node: 'model',
		parameters: modelOp('cancel', '6d2c1f8e-0000-4000-8000-000000000001'),
		error: /404 \(404001 ResourceNotFound\)/,
		fix: /Check the request id: it must come from a model run/,
	},
	{
		name: 'Get Result on the Model API of a deployment request id',
		node: 'model',
		parameters: (fx) => modelOp('getResult', fx.deploymentRequest),
		error: /404 \(404001 ResourceNotFound\)/,
		fix: /deployment request ids are not valid here/,
	},
	// Model: downloads (not errors by design)
	{
		name: 'download host outside the allow-list: skipped and listed, never fetched',
		node: 'model',
		parameters: (fx) => modelOp('getResult', fx.mixedHostsRun, { downloadOutputs: true }),
		error: NOT_AN_ERROR,
		fix: NOT_AN_ERROR,
		succeeds: (result, log, fx) => {
			expect(result.error).toBeUndefined();
			const [item] = result.items;
			expect(item.json.request_id).toBe(fx.mixedHostsRun);
			const skipped = item.json.skipped_downloads as Array<{ url: string; reason: string }>;
			expect(skipped).toHaveLength(1);
			expect(skipped[0].url).toMatch(/^http:\/\/localhost:/);
			expect(skipped[0].reason).toMatch(/host not in the allowed download hosts.*add it to "Allowed Download Hosts"/);
			expect(Object.keys(item.binary ?? {}).length).toBeGreaterThan(0);
			expect(log.filter((e) => e.api === 'foreign')).toEqual([]);
			expect(log.filter((e) => e.api === 'files').length).toBeGreaterThan(0);
		},
	},
	{
		name: 'download over the size cap (1 MB cap, 3 MB output): aborted, nothing kept, reason and fix listed',
		node: 'model',
		parameters: (fx) => modelOp('getResult', fx.largeRun, { downloadOutputs: true, maxDownloadSizeMb: 1 }),
		error: NOT_AN_ERROR,
		fix: NOT_AN_ERROR,
		succeeds: (result, log, fx) => {
			expect(result.error).toBeUndefined();
			const [item] = result.items;
			expect(item.json.request_id).toBe(fx.largeRun);
			const skipped = item.json.skipped_downloads as Array<{ url: string; reason: string }>;
			expect(skipped).toHaveLength(1);
			expect(skipped[0].reason).toMatch(/over the 1 MiB download limit/);
			expect(skipped[0].reason).toMatch(/raise Max Download Size or turn off Download Outputs/);
			expect(item.binary).toBeUndefined();
			expect(log.filter((e) => e.api === 'files').length).toBeGreaterThan(0);
		},
	},
	// A number from an item: only that item's value is wrong, and nothing of the batch is paid.
	{
		name: 'Max Poll Interval "10s" on the second item only: refused before anything is paid, naming item 1',
		node: 'model',
		parameters: modelRun(STABLE.flash, '={{ JSON.stringify({ prompt: $json.prompt }) }}', {
			waitOptions: { ...WAIT, maxPollIntervalSeconds: '={{ $json.poll }}' },
		}),
		inputItems: [{ json: { prompt: 'a', poll: 1 } }, { json: { prompt: 'b', poll: '10s' } }],
		error: /^"Max Poll Interval \(Seconds\)" of item 1 must be a number, but is "10s"$/,
		fix: /^Enter a plain number \(.+\); an expression must produce one\./,
		check: noWrites,
	},
	...numericRows('model'),
];

useBadInputTable(ROWS, [...new Set<FixtureName>(['deploymentRequest', 'mixedHostsRun', 'largeRun', ...numericFixtures('model')])]);
