/**
 * Account → Get Balance (on the RunComfy Model node): balance_usd, balance_microdollars and currency, in the n8n
 * engine against the sandbox's wallet.
 */
import type { Sandbox } from '../../sandbox';
import { runNode } from '../helpers/engine';
import { submitInference } from '../helpers/sandboxCalls';
import { credentialsFor, node, openSandbox } from './setup';

const GET_BALANCE = { resource: 'account', operation: 'getBalance' };

describe('RunComfy Model → Account → Get Balance', () => {
	let sb: Sandbox;
	beforeAll(async () => {
		sb = await openSandbox();
	});
	afterAll(async () => await sb.close());
	beforeEach(() => sb.reset());

	it('is offered as resource Account, operation Get Balance', () => {
		const resource = node.description.properties.find((p) => p.name === 'resource');
		expect(resource?.options).toContainEqual(expect.objectContaining({ name: 'Account', value: 'account' }));
		const operation = node.description.properties.find(
			(p) => p.name === 'operation' && (p.displayOptions?.show?.resource as string[] | undefined)?.includes('account'),
		);
		expect(operation?.options).toEqual([expect.objectContaining({ name: 'Get Balance', value: 'getBalance' })]);
	});

	it('outputs the balance in USD and exactly in microdollars, with the currency', async () => {
		sb.configure({ walletMicrodollars: 4_830_001 });
		const result = await runNode({ node, parameters: GET_BALANCE, credentials: credentialsFor(sb) });
		expect(result.error).toBeUndefined();
		expect(result.items.map((i) => i.json)).toEqual([{ balance_usd: 4.830001, balance_microdollars: 4_830_001, currency: 'USD' }]);
		expect(result.items[0].pairedItem).toEqual({ item: 0 });
		expect(result.unpairedItems).toBe(0);
		expect(sb.log().map((e) => [e.method, e.path])).toEqual([['GET', '/prod/v2/balance']]);
	});

	it('a zero or negative balance is a normal answer, not an error', async () => {
		for (const wallet of [0, -120_000]) {
			sb.configure({ walletMicrodollars: wallet });
			const result = await runNode({ node, parameters: GET_BALANCE, credentials: credentialsFor(sb) });
			expect(result.error).toBeUndefined();
			expect(result.items[0].json).toMatchObject({ balance_microdollars: wallet, balance_usd: wallet / 1_000_000 });
		}
	});

	it('follows spending: a deployment inference takes its price off the balance', async () => {
		const before = await runNode({ node, parameters: GET_BALANCE, credentials: credentialsFor(sb) });
		const dep = sb.stable.deployments.textToImage;
		await submitInference(sb, dep);
		const after = await runNode({ node, parameters: GET_BALANCE, credentials: credentialsFor(sb) });
		expect(Number(before.items[0].json.balance_microdollars) - Number(after.items[0].json.balance_microdollars)).toBe(20_000);
	});
});
