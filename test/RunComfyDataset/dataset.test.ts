/**
 * RunComfy Dataset node: Create, List, Get Status (files + missing-caption warnings), Delete, Get Upload URLs,
 * Wait Until Ready (READY, FAILED with the service's error, timeout, empty draft), the dataset picker, Continue on
 * Fail and AI-tool use. Real n8n engine, sandbox on loopback.
 */
import { listSearch, runNode } from '../helpers/engine';
import {
	FAST,
	FAST_WAIT,
	createDataset,
	credentialsFor,
	datasetNode,
	datasetParams,
	isUploadEndpoint,
	readyDataset,
	trainerCalls,
	until,
	uploadTexts,
	useSandbox,
} from './setup';

const sb = useSandbox();
beforeEach(() => sb.reset(FAST));

const run = async (parameters: Record<string, unknown>, extra: Partial<Parameters<typeof runNode>[0]> = {}) =>
	await runNode({ node: datasetNode, credentials: credentialsFor(sb), parameters: parameters as never, ...extra });

describe('Create, List, Get Status, Delete', () => {
	it('creates a dataset and lists it; Get Status shows files and warns about media without captions', async () => {
		const created = await run({ resource: 'dataset', operation: 'create', name: 'faces-v1' });
		expect(created.error).toBeUndefined();
		expect(created.items[0].json).toMatchObject({ name: 'faces-v1', status: 'DRAFT' });
		const id = created.items[0].json.id as string;
		expect(sb.state().datasets).toEqual([expect.objectContaining({ id, name: 'faces-v1' })]);

		await uploadTexts(sb, id, { 'a.jpg': 'x', 'a.txt': 'cap a', 'b.png': 'x', 'clip.mp4': 'x', 'notes.json': '{}' });
		const status = await run(datasetParams('getStatus', id, { simple: false }));
		expect(status.error).toBeUndefined();
		const json = status.items[0].json;
		expect(json).toMatchObject({ id, name: 'faces-v1', file_count: 5, missing_captions: ['b.png', 'clip.mp4'] });
		expect((json.files as unknown[]).length).toBe(5);
		expect(json.warnings).toEqual([
			expect.stringContaining('b.png has no caption file (b.txt)'),
			expect.stringContaining('clip.mp4 has no caption file (clip.txt)'),
		]);

		const listed = await run({ resource: 'dataset', operation: 'getAll', returnAll: true });
		expect(listed.items.map((i) => i.json.name)).toEqual(['faces-v1']);
	});

	it('lists with a limit and filters by status and name', async () => {
		await readyDataset(sb, 'alpha-ready');
		await createDataset(sb, 'beta-draft');
		await createDataset(sb, 'gamma-draft');
		const limited = await run({ resource: 'dataset', operation: 'getAll', returnAll: false, limit: 2 });
		expect(limited.items).toHaveLength(2);
		const ready = await run({ resource: 'dataset', operation: 'getAll', returnAll: true, filters: { status: ['READY'] } });
		expect(ready.items.map((i) => i.json.name)).toEqual(['alpha-ready']);
		const named = await run({ resource: 'dataset', operation: 'getAll', returnAll: true, filters: { nameContains: 'GAMMA' } });
		expect(named.items.map((i) => i.json.name)).toEqual(['gamma-draft']);
	});

	it('deletes a dataset permanently', async () => {
		const id = await createDataset(sb, 'to-delete');
		const deleted = await run(datasetParams('delete', id));
		expect(deleted.items[0].json).toMatchObject({ id, deleted: true });
		expect(sb.state().datasets).toEqual([]);
	});

	it("reports an unknown dataset with the service's message; Continue on Fail keeps the item paired", async () => {
		const failed = await run(datasetParams('getStatus', 'no-such-dataset'));
		expect(failed.status).toBe('error');
		expect(failed.error?.message).toMatch(/not found|no-such-dataset/i);

		const continued = await run(datasetParams('getStatus', 'no-such-dataset'), {
			continueOnFail: true,
			inputItems: [{ json: {} }, { json: {} }],
		});
		expect(continued.items).toHaveLength(2);
		expect(continued.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		expect(continued.items[0].json.error).toEqual(expect.any(String));
		expect(continued.unpairedItems).toBe(0);
	});

	it('refuses an empty dataset choice before calling the service', async () => {
		const failed = await run(datasetParams('getStatus', '={{ "" }}'));
		expect(failed.error?.message).toBe('No dataset was chosen');
		expect(trainerCalls(sb)).toHaveLength(0);
	});
});

describe('dataset picker', () => {
	it('lists datasets with their status (and file count when the service gives one), filtered as the user types', async () => {
		await readyDataset(sb, 'portraits');
		await createDataset(sb, 'landscapes');
		const all = await listSearch({ node: datasetNode, method: 'searchDatasets', credentials: credentialsFor(sb), parameters: {} });
		expect(all.results.map((r) => r.name).sort()).toEqual(['landscapes — DRAFT', 'portraits — READY']);
		const filtered = await listSearch({
			node: datasetNode,
			method: 'searchDatasets',
			credentials: credentialsFor(sb),
			parameters: {},
			filter: 'port',
		});
		expect(filtered.results).toEqual([{ name: 'portraits — READY', value: sb.state().datasets.find((d) => d.name === 'portraits')!.id }]);
	});
});

describe('Get Upload URLs', () => {
	it('returns the signed URL per file for the exact sizes given', async () => {
		const id = await createDataset(sb, 'raw-urls');
		const result = await run(datasetParams('getUploadUrls', id, { fileSizes: '{"big.mp4": 200000000, "big.txt": 12}' }));
		expect(result.error).toBeUndefined();
		const uploads = result.items[0].json.uploads as Record<string, { upload_url: string; method: string; headers: object }>;
		expect(Object.keys(uploads).sort()).toEqual(['big.mp4', 'big.txt']);
		expect(uploads['big.mp4']).toMatchObject({ method: 'PUT', headers: { 'Content-Type': 'video/mp4' } });
		expect(uploads['big.mp4'].upload_url).toContain('size=200000000');
		expect(
			sb
				.log()
				.filter(isUploadEndpoint)
				.map((e) => e.body),
		).toEqual([{ filenameToByteSize: { 'big.mp4': 200000000, 'big.txt': 12 } }]);
	});

	it.each([
		['not JSON', '{"a.jpg": '],
		['an empty map', '{}'],
		['a zero size', '{"a.jpg": 0}'],
		['a boolean size', '{"a.jpg": true}'],
		['a fractional size', '{"a.jpg": 1.5}'],
		['a path as name', '{"dir/a.jpg": 10}'],
	])('refuses %s before calling the service', async (_what, fileSizes) => {
		const id = await createDataset(sb, 'raw-urls-bad');
		sb.clearLog();
		const result = await run(datasetParams('getUploadUrls', id, { fileSizes }));
		expect(result.status).toBe('error');
		expect(result.error?.description).toMatch(/exact byte size/);
		expect(sb.log().filter(isUploadEndpoint)).toHaveLength(0);
	});
});

describe('Wait Until Ready', () => {
	it('polls until READY and reports missing captions as warnings, not errors', async () => {
		sb.configure({ datasetReadyMs: 60_000 });
		const id = await createDataset(sb, 'settling');
		await uploadTexts(sb, id, { 'x.jpg': 'x' });
		const isPoll = (e: { method: string; path: string }) => e.method === 'GET' && e.path.endsWith(`/${id}/status`);
		const result = await run(datasetParams('waitUntilReady', id), {
			// the dataset becomes READY only after the node has seen it UPLOADING
			onStart: () => void until(() => sb.log().some(isPoll), 'a first poll').then(() => sb.configure({ datasetReadyMs: 0 })),
		});
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toMatchObject({ id, status: 'READY', missing_captions: ['x.jpg'] });
		expect(sb.log().filter(isPoll).length).toBeGreaterThan(1);
	});

	it("fails with the service's error when the dataset becomes FAILED", async () => {
		const id = await createDataset(sb, 'broken');
		await uploadTexts(sb, id, { 'fail_0001.jpg': 'x' });
		const result = await run(datasetParams('waitUntilReady', id));
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe(
			`Dataset "broken" (${id}) FAILED: Processing of 'fail_0001.jpg' failed: unsupported or corrupt media file.`,
		);
	});

	it('fails at once for an empty DRAFT dataset, which would never become READY', async () => {
		const id = await createDataset(sb, 'empty');
		const result = await run(datasetParams('waitUntilReady', id));
		expect(result.error?.message).toMatch(/DRAFT and has no files/);
		expect(sb.log().filter((e) => e.path.endsWith('/status'))).toHaveLength(1);
	});

	it('on timeout either fails naming the dataset or returns it as still processing', async () => {
		sb.configure({ datasetReadyMs: 60_000 });
		const id = await createDataset(sb, 'slow');
		await uploadTexts(sb, id, { 'x.jpg': 'x' });
		const short = { ...FAST_WAIT, maxWaitSeconds: 0.2 };
		const failed = await run(datasetParams('waitUntilReady', id, { waitOptions: { ...short, onTimeout: 'fail' } }));
		expect(failed.error?.message).toBe(`Dataset ${id} did not finish within 0.2 s (status: UPLOADING)`);
		expect(failed.error?.description).toMatch(/keeps going on RunComfy/);
		const running = await run(datasetParams('waitUntilReady', id, { waitOptions: { ...short, onTimeout: 'returnRunning' } }));
		expect(running.items[0].json).toMatchObject({ id, status: 'UPLOADING', still_running: true });
	});

	it('waits for several datasets at once, one item per input', async () => {
		const a = await readyDataset(sb, 'multi-a');
		const b = await readyDataset(sb, 'multi-b');
		const result = await run(
			{
				resource: 'dataset',
				operation: 'waitUntilReady',
				dataset: { __rl: true, mode: 'id', value: '={{ $json.id }}' },
				waitOptions: FAST_WAIT,
			},
			{ inputItems: [{ json: { id: a } }, { json: { id: b } }, { json: { id: a } }] },
		);
		expect(result.items.map((i) => [i.json.id, i.json.status, i.pairedItem])).toEqual([
			[a, 'READY', { item: 0 }],
			[b, 'READY', { item: 1 }],
			[a, 'READY', { item: 2 }],
		]);
		expect(result.unpairedItems).toBe(0);
	});
});

describe('as an AI tool', () => {
	it('lists datasets when an agent calls it', async () => {
		await readyDataset(sb, 'tool-ds');
		const result = await run({ resource: 'dataset', operation: 'getAll', returnAll: true }, { asTool: true });
		expect(result.error).toBeUndefined();
		expect(result.items.map((i) => i.json.name)).toEqual(['tool-ds']);
	});
});
