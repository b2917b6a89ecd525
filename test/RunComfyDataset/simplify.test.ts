/**
 * Dataset → Get Status: Simplify (on by default, as in n8n's own nodes) keeps the id, name, status, error, the file
 * count and the missing captions; off gives the record with every uploaded file; an agent gets the simplified
 * form; an expression that gives nothing is refused before any call.
 */
import { runNode } from '../helpers/engine';
import { callTool, expectCompact, expectSummary, fromAI } from '../helpers/toolSetup';
import { FAST, byId, createDataset, credentialsFor, datasetNode, datasetParams, trainerCalls, uploadTexts, useSandbox } from './setup';

const sb = useSandbox();
beforeEach(() => sb.reset(FAST));

const run = async (parameters: Record<string, unknown>) =>
	await runNode({ node: datasetNode, credentials: credentialsFor(sb), parameters: parameters as never });

/** A dataset with a captioned image and one without a caption. */
async function dataset(): Promise<string> {
	const id = await createDataset(sb, 'faces');
	await uploadTexts(sb, id, { 'a.jpg': 'x', 'a.txt': 'cap a', 'b.png': 'x' });
	return id;
}

const FIELDS = ['id', 'name', 'status', 'error', 'file_count', 'missing_captions', 'warnings', 'created_at', 'updated_at'];

describe('Dataset → Get Status', () => {
	it('is simplified by default: the files as their count and the missing captions', async () => {
		const id = await dataset();
		const result = await run(datasetParams('getStatus', id));
		expect(result.error).toBeUndefined();
		const { json } = result.items[0];
		expect(Object.keys(json)).toEqual(FIELDS);
		expect(json).toMatchObject({ id, name: 'faces', file_count: 3, missing_captions: ['b.png'] });
		expect(json.warnings).toEqual([expect.stringContaining('b.png has no caption file (b.txt)')]);
	});

	it('Simplify off: the record with every uploaded file', async () => {
		const id = await dataset();
		const { json } = (await run(datasetParams('getStatus', id, { simple: false }))).items[0];
		expect((json.files as Array<{ filename: string }>).map((f) => f.filename).sort()).toEqual(['a.jpg', 'a.txt', 'b.png']);
		expect(json).toMatchObject({ id, file_count: 3 });
	});

	it('an AI agent gets the simplified form with its summary', async () => {
		const id = await dataset();
		const getStatus = { resource: 'dataset', operation: 'getStatus', dataset: byId(fromAI('dataset_id')) };
		const [item] = expectCompact(sb, await callTool(sb, datasetNode, getStatus, { dataset_id: id }));
		expect(Object.keys(item.json)).toEqual([...FIELDS, 'summary']);
		expect(item.json.id).toBe(id);
		expectSummary(item.json, 'faces', 'file_count 3');
	});

	it('a Simplify expression that gives nothing is refused before any call', async () => {
		const id = await dataset();
		sb.clearLog();
		const result = await run(datasetParams('getStatus', id, { simple: '={{ $json.simplify }}' }));
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe('"Simplify" of item 0 is empty: its expression {{ $json.simplify }} gave undefined');
		expect(trainerCalls(sb)).toEqual([]);
	});
});
