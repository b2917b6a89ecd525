/* eslint-disable @n8n/community-nodes/no-restricted-globals, no-console */
import { Readable } from 'stream';
import v8 from 'v8';
import vm from 'vm';
v8.setFlagsFromString('--expose_gc');
const gc = vm.runInNewContext('gc') as () => void;
import type { Sandbox } from '../../sandbox';
import { disposeEngine, runNode } from '../helpers/engine';
import { FAST, createDatasetDirect, credentialsFor, datasetNode, datasetParams, image, openSandbox } from './setup';

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

it('smoke big', async () => {
	const id = await createDatasetDirect(sb, 'big-ds');
	await runNode({ node: datasetNode, credentials: credentialsFor(sb), parameters: datasetParams('uploadFile', id, { waitForCompletion: false }), inputItems: [image('warm.png')] });
	global.gc?.();
	let base = 0;
	let peak = 0;
	let baseAb = 0;
	let peakAb = 0;
	const timer = setInterval(() => { if (base) { gc(); const m = process.memoryUsage(); peak = Math.max(peak, m.rss); peakAb = Math.max(peakAb, m.arrayBuffers); } }, 200);
	const size = 400 * 1024 * 1024;
	const up = await runNode({
		node: datasetNode,
		credentials: credentialsFor(sb),
		parameters: datasetParams('uploadFile', id, {}),
		inputItems: [{ json: {}, binary: { data: { data: zeros(size) as unknown as Buffer, mimeType: 'video/mp4', fileName: 'big.mp4' } } }],
		onStart: () => { gc(); const m = process.memoryUsage(); base = m.rss; peak = base; baseAb = m.arrayBuffers; peakAb = baseAb; },
	});
	clearInterval(timer);
	console.log((peak - base) / 1e6, 'MB growth', (peakAb - baseAb) / 1e6, 'MB ab growth');
	console.log(JSON.stringify(up.items.map((i) => i.json), null, 1), up.error);
	console.log(JSON.stringify(sb.log().map((e) => [e.api, e.method, e.path.slice(0, 80), e.status, e.authorization, e.body])));
});
