/**
 * Where the polling trigger keeps its state: under the node's id in the workflow's static data, so a renamed
 * node (n8n keys `getWorkflowStaticData('node')` by the node's name) does not fire everything again, and a
 * state saved under the name by earlier versions is moved over without firing.
 */
import type { IDataObject } from 'n8n-workflow';

import type { Sandbox } from '../../sandbox';
import { stateKeyOf } from '../../nodes/RunComfyTrigger/state';
import { openSandbox, pollOnce, runReaches, submitModelRun } from './setup';

const params = (ids: string[], fireForExisting = true) => ({
	event: 'request',
	requestType: 'model',
	requestIds: ids.join(', '),
	fireForExisting,
});

describe('RunComfy Trigger: state across renames and upgrades', () => {
	let sb: Sandbox;
	beforeAll(async () => {
		sb = await openSandbox();
	});
	afterAll(async () => await sb.close());
	beforeEach(() => sb.reset());

	async function finishedRun(): Promise<string> {
		const id = await submitModelRun(sb);
		await runReaches(sb, id, 'completed');
		return id;
	}

	it('a renamed node fires nothing again; its transitions still fire once', async () => {
		const a = await finishedRun();
		const staticData: IDataObject = {};
		const node = { id: '0f6a6a52-3c1b-4d8e-9b0e-2f1d7c4e5a61' };
		const fired = await pollOnce(sb, params([a]), staticData, 'trigger', { ...node, name: 'RunComfy Trigger' });
		expect(fired?.map((e) => e.request_id)).toEqual([a]);
		expect(Object.keys(staticData.global as IDataObject)).toEqual([stateKeyOf({ ...node, name: 'RunComfy Trigger' })]);

		// Renamed in the editor (same node id): nothing finished again.
		expect(await pollOnce(sb, params([a]), staticData, 'trigger', { ...node, name: 'When Runs Finish' })).toBeNull();
		expect(await pollOnce(sb, params([a]), staticData, 'trigger', { ...node, name: 'Renamed Again' })).toBeNull();
		const b = await finishedRun();
		const next = await pollOnce(sb, params([a, b]), staticData, 'trigger', { ...node, name: 'Renamed Again' });
		expect(next?.map((e) => e.request_id)).toEqual([b]);
	});

	it('a state saved under the node name by an earlier version is moved to the node id and fires nothing again', async () => {
		const a = await finishedRun();
		// What the previous version left: the node's static data (`node:<name>`), one state per event kind.
		const staticData: IDataObject = { 'node:RunComfy Trigger': { request: { seen: { [a]: 'succeeded' } } } };
		const node = { id: 'b7d4e0c2-5a3f-4c6e-8d1b-9e0f2a3b4c5d' };
		expect(await pollOnce(sb, params([a]), staticData, 'trigger', { ...node, name: 'RunComfy Trigger' })).toBeNull();
		expect(staticData['node:RunComfy Trigger']).toEqual({});
		const stored = (staticData.global as IDataObject)[stateKeyOf({ ...node, name: 'RunComfy Trigger' })] as IDataObject;
		expect(stored.request).toEqual({ seen: { [a]: 'succeeded' } });
		// ...so a rename after the upgrade keeps it too.
		expect(await pollOnce(sb, params([a]), staticData, 'trigger', { ...node, name: 'Finished Runs' })).toBeNull();
	});
});
