/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console */
import { Readable } from 'stream';
import type { Sandbox } from '../../sandbox';
import { disposeEngine, runNode, withExecuteContext } from '../helpers/engine';
import { FAST, credentialsFor, datasetNode, openSandbox } from './setup';

let sb: Sandbox;
beforeAll(async () => {
	sb = await openSandbox();
});
afterAll(async () => {
	await sb.close();
	await disposeEngine();
});
beforeEach(() => sb.reset(FAST));

function zeros(total: number): Readable {
	const chunk = Buffer.alloc(1024 * 1024, 7);
	let left = total;
	return new Readable({
		read() {
			if (left <= 0) return this.push(null);
			const n = Math.min(left, chunk.length);
			left -= n;
			this.push(n === chunk.length ? chunk : chunk.subarray(0, n));
		},
	});
}
async function measure(label: string, fn: () => Promise<unknown>) {
	const base = process.memoryUsage().rss;
	let peak = base;
	const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 5);
	const t = Date.now();
	await fn();
	clearInterval(timer);
	console.log(label, ((peak - base) / 1e6).toFixed(1), 'MB', Date.now() - t, 'ms');
}

it('phases', async () => {
	await runNode({ node: datasetNode, credentials: credentialsFor(sb), parameters: { resource: 'dataset', operation: 'list' } });
	await measure('input only', () => runNode({ node: datasetNode, credentials: credentialsFor(sb), parameters: { resource: 'dataset', operation: 'list' },
		inputItems: [{ json: {}, binary: { data: { data: zeros(200 * 1024 * 1024) as unknown as Buffer, mimeType: 'video/mp4', fileName: 'big.mp4' } } }] }));
	await measure('stream read', () => withExecuteContext({ credentials: credentialsFor(sb), inputItems: [{ json: {}, binary: { data: { data: zeros(200 * 1024 * 1024) as unknown as Buffer, mimeType: 'video/mp4', fileName: 'big.mp4' } } }] }, async (ctx) => {
		const bin = ctx.helpers.assertBinaryData(0, 'data');
		const s = await ctx.helpers.getBinaryStream(bin.id!);
		let n = 0;
		for await (const c of s) n += (c as Buffer).length;
		console.log('read', n);
	}));
});
