/**
 * A batch's bookkeeping grows with its items, not with their square: a batch of 10,000 items looked up each
 * item's options and each job's items by scanning the whole batch. Counted here through the prepared items'
 * `itemIndex` (read through a getter), with items sharing jobs so each item still gets its own options and
 * its job's whole group.
 */
import type { IDataObject } from 'n8n-workflow';

import { INFERENCE_WAIT, runJobs } from '../../../nodes/shared/jobs';
import type { JobItem, JobKind } from '../../../nodes/shared/jobs';
import { withExecuteContext } from '../../helpers/engine';

const ITEMS = 300;
const CREDENTIALS = {
	accessToken: 'rc-token-1234',
	modelApiBaseUrl: 'http://127.0.0.1:9',
	serverlessApiBaseUrl: 'http://127.0.0.1:9',
	trainerApiBaseUrl: 'http://127.0.0.1:9',
	allowedDownloadHosts: '127.0.0.1',
};

function countingKind(reads: { count: number }, paid = false): JobKind<JobItem, { tag: string }> {
	return {
		noun: { one: 'run', many: 'runs', idField: 'request_id', idLabel: 'Request ID', lookUp: 'Model → Get Result' },
		wait: INFERENCE_WAIT,
		paid,
		submitConcurrency: 8,
		...(paid ? { estimate: () => ({ usd: 0.01, basis: 'flat' }) } : {}),
		prepare: async (i) => ({
			get itemIndex() {
				reads.count++;
				return i;
			},
		}),
		readOptions: (p) => ({ tag: `options of ${p.itemIndex}` }),
		ids: () => ({}),
		// Two items per job: items 2k and 2k + 1 follow job k.
		submit: async (p) => ({ id: `job-${Math.floor(p.itemIndex / 2)}`, json: {} }),
		poll: async () => ({ state: 'succeeded', record: { status: 'succeeded' } }),
		fetch: async () => ({ status: 'succeeded' }),
		verdict: (t) => ({ ok: true, json: { request_id: t.id } }),
		current: () => ({}),
		present: async (t, json, { options, group }) => ({
			json: { ...json, tag: options.tag, group: group.map((g) => g.itemIndex).join(',') } as IDataObject,
			pairedItem: { item: t.itemIndex },
		}),
	};
}

describe('a batch of many items', () => {
	it("gives each item its own options and its job's group, with a constant number of lookups per item", async () => {
		const reads = { count: 0 };
		const items = Array.from({ length: ITEMS }, (_, i) => ({ json: { i } }));
		const out = await withExecuteContext(
			{
				credentials: CREDENTIALS,
				inputItems: items,
				parameters: { waitOptions: { pollIntervalSeconds: 0.01, maxPollIntervalSeconds: 0.01 } },
			},
			async (ctx) => await runJobs(ctx, ctx.getInputData(), countingKind(reads)),
		);
		expect(out).toHaveLength(ITEMS);
		out.forEach((item, i) => {
			const k = Math.floor(i / 2);
			expect(item.json).toMatchObject({ request_id: `job-${k}`, tag: `options of ${i}`, group: `${2 * k},${2 * k + 1}` });
		});
		// A scan of the batch per item reads it ITEMS / 2 times per item on average.
		expect(reads.count / ITEMS).toBeLessThan(10);
	});
});

describe('the options of a paid batch', () => {
	it('are read once per item: the guards use what the check read', async () => {
		const items = Array.from({ length: ITEMS }, (_, i) => ({ json: { i } }));
		const paths: string[] = [];
		const out = await withExecuteContext(
			{
				credentials: CREDENTIALS,
				inputItems: items,
				parameters: {
					waitOptions: { pollIntervalSeconds: 0.01, maxPollIntervalSeconds: 0.01 },
					options: { minimumBalanceUsd: 0, maxEstimatedCostUsd: 1000 },
				},
			},
			async (ctx) => {
				const read = ctx.getNodeParameter.bind(ctx) as (...args: unknown[]) => unknown;
				(ctx as unknown as { getNodeParameter: (...args: unknown[]) => unknown }).getNodeParameter = (...args: unknown[]) => {
					paths.push(String(args[0]));
					return read(...args);
				};
				return await runJobs(ctx, ctx.getInputData(), countingKind({ count: 0 }, true));
			},
		);
		expect(out).toHaveLength(ITEMS);
		const count = (path: string) => paths.filter((p) => p === path).length;
		expect(count('options.minimumBalanceUsd')).toBe(ITEMS);
		expect(count('options.maxEstimatedCostUsd')).toBe(ITEMS);
	});
});
