/**
 * How the polling RunComfy Trigger watches a list of ids (shown with model runs; every id-list event shares
 * it): the first poll after publishing records without firing (unless "Fire for Already Finished"), each id is
 * read on its own, a 404 is one "gone" event, other errors are reported once and hold nothing back.
 */
import type { IDataObject } from 'n8n-workflow';

import type { Sandbox } from '../../sandbox';
import { getRetryPolicy, setRetryPolicy } from '../../nodes/shared/transport/request';
import { client, openSandbox, pollOnce, runReaches, submitModelRun } from './setup';

const params = (ids: string[], fireForExisting = false) => ({
	event: 'request',
	requestType: 'model',
	requestIds: ids.join(', '),
	fireForExisting,
});

const events = (out: IDataObject[] | null) => out?.map((e) => [e.event, e.request_id]) ?? null;

describe('RunComfy Trigger: watching a list of ids', () => {
	let sb: Sandbox;
	const savedPolicy = getRetryPolicy();
	beforeAll(async () => {
		sb = await openSandbox();
		// 5xx answers are retried; keep the retries quick.
		setRetryPolicy({ baseDelayMs: 1, maxDelayMs: 2 });
	});
	afterAll(async () => {
		setRetryPolicy(savedPolicy);
		await sb.close();
	});
	beforeEach(() => sb.reset());

	const statusReads = (id: string) => sb.log().filter((e) => e.method === 'GET' && e.path === `/v1/requests/${id}/status`).length;

	async function finishedRun(): Promise<string> {
		const id = await submitModelRun(sb);
		await runReaches(sb, id, 'completed');
		return id;
	}

	it('the first poll records what already finished without firing; later transitions and later ids fire once', async () => {
		const done = await finishedRun();
		sb.configure({ queueMs: 60_000 });
		const queued = await submitModelRun(sb);
		const staticData: IDataObject = {};

		expect(await pollOnce(sb, params([done, queued]), staticData)).toBeNull();
		expect(await pollOnce(sb, params([done, queued]), staticData)).toBeNull();

		expect((await client(sb).post(`${sb.urls.modelApi}/v1/requests/${queued}/cancel`)).data.outcome).toBe('cancelled');
		expect(events(await pollOnce(sb, params([done, queued]), staticData))).toEqual([['request.cancelled', queued]]);

		// An id added after the first poll is not part of what was there before: it fires when seen finished.
		sb.configure({ queueMs: 0 });
		const added = await finishedRun();
		expect(events(await pollOnce(sb, params([done, queued, added]), staticData))).toEqual([['request.succeeded', added]]);
		expect(await pollOnce(sb, params([done, queued, added]), staticData)).toBeNull();
	});

	it('"Fire for Already Finished" makes the first poll fire for runs that finished before; later polls are unchanged', async () => {
		const done = await finishedRun();
		const off: IDataObject = {};
		const on: IDataObject = {};
		expect(await pollOnce(sb, params([done], false), off)).toBeNull();
		expect(events(await pollOnce(sb, params([done], true), on))).toEqual([['request.succeeded', done]]);
		expect(await pollOnce(sb, params([done], true), on)).toBeNull();
		// On or off, a poll after the first fires only transitions.
		expect(await pollOnce(sb, params([done], true), off)).toBeNull();
	});

	it('a 404 id gives one request.gone event and is no longer requested; the other ids still fire', async () => {
		const done = await finishedRun();
		sb.configure({ queueMs: 60_000 });
		const queued = await submitModelRun(sb);
		const missing = 'a1b2c3d4-0000-4000-8000-00000000dead';
		const ids = [done, missing, queued];
		const staticData: IDataObject = {};

		const first = await pollOnce(sb, params(ids, true), staticData);
		expect(events(first)).toEqual([
			['request.succeeded', done],
			['request.gone', missing],
		]);
		expect(first![1]).toMatchObject({ request_type: 'model', http_code: '404', watching: false });
		expect(String(first![1].error)).toMatch(/404|not found/i);

		sb.clearLog();
		expect(await pollOnce(sb, params(ids, true), staticData)).toBeNull();
		expect(statusReads(missing)).toBe(0);
		expect(statusReads(queued)).toBe(1);

		await client(sb).post(`${sb.urls.modelApi}/v1/requests/${queued}/cancel`);
		expect(events(await pollOnce(sb, params(ids, true), staticData))).toEqual([['request.cancelled', queued]]);

		// "Fetch Test Event" still shows it, as gone, and changes nothing.
		const before = JSON.stringify(staticData);
		const sample = await pollOnce(sb, params(ids, true), staticData, 'manual');
		expect(sample?.map((e) => e.event)).toEqual(['request.succeeded', 'request.gone', 'request.cancelled']);
		expect(JSON.stringify(staticData)).toBe(before);

		// Taken out of the list and put back: watched again (and reported again if still missing).
		expect(await pollOnce(sb, params([done, queued], true), staticData)).toBeNull();
		expect(events(await pollOnce(sb, params(ids, true), staticData))).toEqual([['request.gone', missing]]);
	});

	it('another error is reported once, holds back nothing, and the run still fires once it can be read', async () => {
		const done = await finishedRun();
		const flaky = await finishedRun();
		const staticData: IDataObject = {};
		sb.configure({ faults: { rate5xx: 1, pathPrefixes: [`/v1/requests/${flaky}/`] } });

		const first = await pollOnce(sb, params([done, flaky], true), staticData);
		expect(events(first)).toEqual([
			['request.succeeded', done],
			['request.error', flaky],
		]);
		expect(first![1]).toMatchObject({ http_code: '500', watching: true });

		// Still failing the same way: not reported again, and nothing else is held back.
		expect(await pollOnce(sb, params([done, flaky], true), staticData)).toBeNull();
		expect(await pollOnce(sb, params([done, flaky], true), staticData)).toBeNull();

		sb.configure({ faults: { rate5xx: 0 } });
		expect(events(await pollOnce(sb, params([done, flaky], true), staticData))).toEqual([['request.succeeded', flaky]]);
		expect(await pollOnce(sb, params([done, flaky], true), staticData)).toBeNull();
	});

	it('a result that cannot be fetched is reported like a failed read, and the transition fires on a later poll', async () => {
		const done = await finishedRun();
		const staticData: IDataObject = {};
		sb.configure({ faults: { rate5xx: 1, pathPrefixes: [`/v1/requests/${done}/result`] } });
		expect(events(await pollOnce(sb, params([done], true), staticData))).toEqual([['request.error', done]]);
		sb.configure({ faults: { rate5xx: 0 } });
		expect(events(await pollOnce(sb, params([done], true), staticData))).toEqual([['request.succeeded', done]]);
	});
});
