/**
 * RunComfy Dataset as an AI agent's tool (list_datasets, get_dataset_status of the tool server): JSON with ids,
 * statuses and files, no binary, and Wait Until Ready bounded to 120 s.
 */
import type { IDataObject } from 'n8n-workflow';

import { uploadPair } from '../helpers/sandboxCalls';
import { callTool, expectCompact, expectSummary, fromAI, virtualWaitClock } from '../helpers/toolSetup';
import { createDataset, datasetNode as datasets, readyDataset, useSandbox } from './setup';

describe('RunComfy Dataset as a tool', () => {
	const sb = useSandbox();
	beforeEach(() => sb.reset());

	it('list_datasets: id, name and status of each dataset', async () => {
		const id = await readyDataset(sb, 'dogs');
		const result = await callTool(sb, datasets, { resource: 'dataset', operation: 'getAll', returnAll: true });
		const items = expectCompact(sb, result);
		expect(items.map((i) => [i.json.id, i.json.name, i.json.status])).toEqual([[id, 'dogs', 'READY']]);
		expectSummary(items[0].json, 'dogs', 'READY');
	});

	it('get_dataset_status: status and the file count (simplified by default); the uploaded files with Simplify off', async () => {
		const id = await readyDataset(sb, 'dogs');
		const getStatus = { resource: 'dataset', operation: 'getStatus', dataset: { __rl: true, mode: 'id', value: fromAI('dataset_id') } };
		const [item] = expectCompact(sb, await callTool(sb, datasets, getStatus, { dataset_id: id }));
		expect(item.json).toMatchObject({ id, name: 'dogs', status: 'READY', file_count: 2, missing_captions: [] });
		expect(item.json.files).toBeUndefined();
		expectSummary(item.json, 'dogs', 'READY');
		const [raw] = expectCompact(sb, await callTool(sb, datasets, { ...getStatus, simple: false }, { dataset_id: id }));
		expect((raw.json.files as IDataObject[]).map((f) => f.filename)).toEqual(['img_0001.jpg', 'img_0001.txt']);
	});

	it('Wait Until Ready: a dataset still processing after the 120 s cap comes back as still processing', async () => {
		const id = await createDataset(sb, 'slow');
		sb.configure({ datasetReadyMs: 3_600_000 });
		await uploadPair(sb, id, 'img_0001');
		const clock = virtualWaitClock();
		try {
			const result = await callTool(
				sb,
				datasets,
				{ resource: 'dataset', operation: 'waitUntilReady', dataset: { __rl: true, mode: 'id', value: fromAI('dataset_id') } },
				{ dataset_id: id },
			);
			const [item] = expectCompact(sb, result);
			expect(item.json).toMatchObject({ id, status: 'UPLOADING', still_running: true });
			expect(clock.elapsedMs()).toBeGreaterThanOrEqual(110_000);
			expect(clock.elapsedMs()).toBeLessThanOrEqual(130_000);
		} finally {
			clock.restore();
		}
	});
});
