import type { IDataObject } from 'n8n-workflow';

import type { Sandbox } from '../../sandbox';
import { client, openSandbox, pollOnce } from './setup';

// Most tests start below the threshold and ask the first poll to fire for that too.
const params = (thresholdUsd: number, fireForExisting = true) => ({ event: 'balanceBelow', thresholdUsd, fireForExisting });

describe('RunComfy Trigger: balance below a threshold', () => {
	let sb: Sandbox;
	beforeAll(async () => {
		sb = await openSandbox();
	});
	afterAll(async () => await sb.close());
	beforeEach(() => sb.reset());

	const wallet = (microdollars: number) => sb.configure({ walletMicrodollars: microdollars });

	it('compares exactly in microdollars: $1.00 vs 1_000_000 µ$ is not below, 999_999 µ$ is', async () => {
		const staticData: IDataObject = {};
		wallet(1_000_000);
		expect(await pollOnce(sb, params(1), staticData)).toBeNull();

		wallet(999_999);
		const fired = await pollOnce(sb, params(1), staticData);
		expect(fired).toEqual([
			{
				event: 'balance.below_threshold',
				below_threshold: true,
				threshold_usd: 1,
				threshold_microdollars: 1_000_000,
				balance_usd: 0.999999,
				balance_microdollars: 999_999,
				currency: 'USD',
			},
		]);
	});

	it('the first poll records a balance already below without firing, unless "Fire If Already Below"', async () => {
		wallet(400_000);
		const off: IDataObject = {};
		expect(await pollOnce(sb, params(1, false), off)).toBeNull();
		expect(await pollOnce(sb, params(1, false), off)).toBeNull();
		// Back above and below again: that crossing fires.
		wallet(1_500_000);
		expect(await pollOnce(sb, params(1, false), off)).toBeNull();
		wallet(900_000);
		expect((await pollOnce(sb, params(1, false), off))?.map((e) => e.balance_microdollars)).toEqual([900_000]);

		wallet(400_000);
		expect((await pollOnce(sb, params(1, true), {}))?.map((e) => e.event)).toEqual(['balance.below_threshold']);
	});

	it('fires once when crossing below, and again only after the balance went back to or above it', async () => {
		const staticData: IDataObject = {};
		wallet(999_999);
		expect((await pollOnce(sb, params(1), staticData))?.map((e) => e.balance_microdollars)).toEqual([999_999]);
		// Still below, several polls, lower and lower: no repeat.
		expect(await pollOnce(sb, params(1), staticData)).toBeNull();
		wallet(500_000);
		expect(await pollOnce(sb, params(1), staticData)).toBeNull();
		wallet(0);
		expect(await pollOnce(sb, params(1), staticData)).toBeNull();

		// Topped up to exactly the threshold: re-armed, no event.
		wallet(1_000_000);
		expect(await pollOnce(sb, params(1), staticData)).toBeNull();
		expect(await pollOnce(sb, params(1), staticData)).toBeNull();

		// Down again by one microdollar: fires again.
		wallet(999_999);
		expect((await pollOnce(sb, params(1), staticData))?.map((e) => e.event)).toEqual(['balance.below_threshold']);
		expect(await pollOnce(sb, params(1), staticData)).toBeNull();
	});

	it('fires when paid work spends the wallet below the threshold', async () => {
		const staticData: IDataObject = {};
		// $0.05 threshold; $0.06 in the wallet; a deployment inference costs $0.02.
		wallet(60_000);
		expect(await pollOnce(sb, params(0.05), staticData)).toBeNull();
		const dep = sb.stable.deployments.textToImage;
		const infer = () =>
			client(sb).post(`${sb.urls.serverless}/prod/v2/deployments/${dep}/inference`, {
				overrides: { '6': { inputs: { text: 'a red fox' } } },
			});
		expect((await infer()).status).toBeLessThan(300);
		expect(sb.state().walletMicrodollars).toBe(40_000);
		const fired = await pollOnce(sb, params(0.05), staticData);
		expect(fired?.map((e) => [e.event, e.balance_microdollars, e.threshold_microdollars])).toEqual([
			['balance.below_threshold', 40_000, 50_000],
		]);
		expect((await infer()).status).toBeLessThan(300);
		expect(await pollOnce(sb, params(0.05), staticData)).toBeNull();
	});

	it('a zero or negative balance is a normal answer', async () => {
		wallet(-250_000);
		const fired = await pollOnce(sb, params(0), {});
		expect(fired?.map((e) => [e.balance_microdollars, e.balance_usd])).toEqual([[-250_000, -0.25]]);
	});

	it('changing the threshold starts afresh', async () => {
		const staticData: IDataObject = {};
		wallet(3_000_000);
		expect((await pollOnce(sb, params(5), staticData))?.length).toBe(1);
		expect(await pollOnce(sb, params(5), staticData)).toBeNull();
		expect(await pollOnce(sb, params(2), staticData)).toBeNull();
		expect((await pollOnce(sb, params(4), staticData))?.map((e) => e.threshold_microdollars)).toEqual([4_000_000]);
	});

	it('manual mode returns the current balance, below or not, and leaves the state alone', async () => {
		const staticData: IDataObject = {};
		wallet(2_000_000);
		expect(await pollOnce(sb, params(1), staticData, 'manual')).toEqual([
			expect.objectContaining({ event: 'balance.above_threshold', below_threshold: false, balance_microdollars: 2_000_000 }),
		]);
		wallet(999_999);
		expect(await pollOnce(sb, params(1), staticData, 'manual')).toEqual([
			expect.objectContaining({ event: 'balance.below_threshold', below_threshold: true }),
		]);
		expect(staticData).toEqual({});
		// The transition is still there for the real poll.
		expect((await pollOnce(sb, params(1), staticData))?.length).toBe(1);
	});
});
