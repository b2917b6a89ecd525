import type { IDataObject } from 'n8n-workflow';

import type { Sandbox } from '../../sandbox';
import { listSearch } from '../helpers/engine';
import { DATASETS, client, createDataset, credentialsFor, datasetReaches, openSandbox, pollOnce, trigger, uploadPair } from './setup';

// Most tests start from datasets already READY or FAILED and ask the first poll to fire for those too.
const params = (id: string, more = '') => ({
	event: 'dataset',
	dataset: { __rl: true, mode: 'list', value: id },
	moreDatasetIds: more,
	fireForExisting: true,
});
const allParams = (fireForExisting = false) => ({ event: 'dataset', watchDatasets: 'all', fireForExisting });

describe('RunComfy Trigger: dataset ready or failed', () => {
	let sb: Sandbox;
	beforeAll(async () => {
		sb = await openSandbox();
	});
	afterAll(async () => await sb.close());
	beforeEach(() => sb.reset());

	it('fires dataset.ready once when uploads finish, and again after further uploads', async () => {
		const id = await createDataset(sb, 'dogs');
		const staticData: IDataObject = {};
		// DRAFT: nothing yet.
		expect(await pollOnce(sb, params(id), staticData)).toBeNull();

		await uploadPair(sb, id, 'img_0001');
		await datasetReaches(sb, id, 'READY');
		const ready = await pollOnce(sb, params(id), staticData);
		expect(ready).toHaveLength(1);
		expect(ready![0]).toMatchObject({
			event: 'dataset.ready',
			dataset_id: id,
			id,
			name: 'dogs',
			status: 'READY',
			files_count: 2,
			files: [
				{ filename: 'img_0001.jpg', size_bytes: 2000 },
				{ filename: 'img_0001.txt', size_bytes: 18 },
			],
		});
		expect(await pollOnce(sb, params(id), staticData)).toBeNull();
		expect(await pollOnce(sb, params(id), staticData)).toBeNull();

		// Two more files, READY again (no poll saw UPLOADING): a new transition.
		await uploadPair(sb, id, 'img_0002');
		await datasetReaches(sb, id, 'READY', 4);
		const again = await pollOnce(sb, params(id), staticData);
		expect(again?.map((e) => [e.event, e.files_count])).toEqual([['dataset.ready', 4]]);
		expect(await pollOnce(sb, params(id), staticData)).toBeNull();
	});

	it('fires dataset.failed with the error; watches the picked dataset and more ids together', async () => {
		const good = await createDataset(sb, 'good');
		const bad = await createDataset(sb, 'bad');
		const staticData: IDataObject = {};
		// A file name with "fail" makes the sandbox fail the dataset's processing.
		const upload = await client(sb).post(`${sb.urls.trainer}${DATASETS}/${bad}/upload`, {
			filename: 'fail_0001.txt',
			text: 'broken',
		});
		expect(upload.status).toBe(200);
		await datasetReaches(sb, bad, 'FAILED');

		const first = await pollOnce(sb, params(good, bad), staticData);
		expect(first).toHaveLength(1);
		expect(first![0]).toMatchObject({ event: 'dataset.failed', dataset_id: bad, status: 'FAILED' });
		expect(String(first![0].error)).toMatch(/fail_0001\.txt/);
		expect(await pollOnce(sb, params(good, bad), staticData)).toBeNull();

		await uploadPair(sb, good, 'img_0001');
		await datasetReaches(sb, good, 'READY');
		const second = await pollOnce(sb, params(good, bad), staticData);
		expect(second?.map((e) => [e.event, e.dataset_id])).toEqual([['dataset.ready', good]]);
	});

	it('manual mode returns the current state of every dataset without consuming the transition', async () => {
		const draft = await createDataset(sb, 'draft');
		const ready = await createDataset(sb, 'ready');
		await uploadPair(sb, ready, 'img_0001');
		await datasetReaches(sb, ready, 'READY');
		const staticData: IDataObject = {};

		const sample = await pollOnce(sb, params(draft, ready), staticData, 'manual');
		expect(sample?.map((e) => [e.event, e.status])).toEqual([
			['dataset.status', 'DRAFT'],
			['dataset.ready', 'READY'],
		]);
		expect(staticData).toEqual({});
		const fired = await pollOnce(sb, params(draft, ready), staticData);
		expect(fired?.map((e) => e.dataset_id)).toEqual([ready]);
	});

	it('reads an id typed "By ID" and ids from an expression', async () => {
		const a = await createDataset(sb, 'a');
		await uploadPair(sb, a, 'img_0001');
		await datasetReaches(sb, a, 'READY');
		const staticData: IDataObject = {};
		const out = await pollOnce(
			sb,
			{
				event: 'dataset',
				dataset: { __rl: true, mode: 'id', value: ` ${a} ` },
				moreDatasetIds: `={{ ["${a}"] }}`,
				fireForExisting: true,
			},
			staticData,
		);
		expect(out?.map((e) => e.dataset_id)).toEqual([a]);
	});

	it('watches every dataset of the account with one list request per poll, new datasets included', async () => {
		const old = await createDataset(sb, 'old');
		await uploadPair(sb, old, 'img_0001');
		await datasetReaches(sb, old, 'READY');
		const staticData: IDataObject = {};
		const lists = () => sb.log().filter((e) => e.method === 'GET' && e.path === DATASETS).length;
		const details = () => sb.log().filter((e) => e.method === 'GET' && e.path.endsWith('/status')).length;

		// First poll: what is there is recorded, nothing fires.
		sb.clearLog();
		expect(await pollOnce(sb, allParams(), staticData)).toBeNull();
		expect([lists(), details()]).toEqual([1, 0]);

		// A dataset created later becomes READY, another one FAILED: each fires once, with its files.
		const fresh = await createDataset(sb, 'fresh');
		await uploadPair(sb, fresh, 'img_0001');
		await datasetReaches(sb, fresh, 'READY');
		const broken = await createDataset(sb, 'broken');
		await client(sb).post(`${sb.urls.trainer}${DATASETS}/${broken}/upload`, { filename: 'fail_0001.txt', text: 'x' });
		await datasetReaches(sb, broken, 'FAILED');
		sb.clearLog();
		const fired = await pollOnce(sb, allParams(), staticData);
		expect(fired?.map((e) => [e.event, e.dataset_id, e.files_count ?? null]).sort()).toEqual(
			[
				['dataset.ready', fresh, 2],
				['dataset.failed', broken, 0],
			].sort(),
		);
		expect(fired?.find((e) => e.dataset_id === fresh)).toMatchObject({ name: 'fresh', status: 'READY' });
		// One list, and the status record only of the two that fired.
		expect([lists(), details()]).toEqual([1, 2]);
		expect(await pollOnce(sb, allParams(), staticData)).toBeNull();

		// More files in the old dataset: READY again after an update no poll saw.
		await uploadPair(sb, old, 'img_0002');
		await datasetReaches(sb, old, 'READY', 4);
		expect((await pollOnce(sb, allParams(), staticData))?.map((e) => [e.dataset_id, e.files_count])).toEqual([[old, 4]]);
		expect(await pollOnce(sb, allParams(), staticData)).toBeNull();
	});

	it('all datasets: "Fire for Already Ready or Failed" fires for the ones already READY on the first poll', async () => {
		const ready = await createDataset(sb, 'ready');
		await uploadPair(sb, ready, 'img_0001');
		await datasetReaches(sb, ready, 'READY');
		await createDataset(sb, 'draft');
		expect((await pollOnce(sb, allParams(true), {}))?.map((e) => [e.event, e.dataset_id])).toEqual([['dataset.ready', ready]]);
		expect(await pollOnce(sb, allParams(false), {})).toBeNull();
	});

	it("offers the Dataset node's dataset picker", async () => {
		await createDataset(sb, 'cats');
		const dogs = await createDataset(sb, 'dogs');
		const found = await listSearch({
			node: trigger,
			method: 'searchDatasets',
			parameters: { event: 'dataset' },
			credentials: credentialsFor(sb),
			filter: 'dog',
		});
		expect(found.results).toEqual([{ name: expect.stringMatching(/^dogs — DRAFT/), value: dogs }]);
	});
});
