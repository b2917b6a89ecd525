/**
 * RunComfy Training node → "Output Files" and "Output Binary Field" for the artifact downloads of Submit (with
 * Wait for Completion) and Get Result: all artifacts on the job's item (data, data_1, ...) or one item per
 * artifact (each in the field itself, with the job's JSON and the artifact's own URL); bad values are refused
 * before the paid submit.
 */
import type { INodeParameters } from 'n8n-workflow';

import { FAST, isJobSubmit, readyDataset, runTraining, textConfig, useSandbox } from './setup';

const sb = useSandbox();
beforeEach(() => sb.reset(FAST));

/** 20 steps, a checkpoint and two samples every 10: the latest checkpoint plus four samples to download. */
const config = (name: string, dataset: string) => textConfig({ name, dataset, samples: ['first prompt', 'second prompt'] });

const run = async (parameters: INodeParameters) => await runTraining(sb, parameters);

const downloads = { downloadOutputs: true, artifactsToDownload: ['latestCheckpoint', 'samples'] };

async function finishedJob(name: string): Promise<string> {
	await readyDataset(sb, 'files-ds');
	const result = await run({ operation: 'submit', configMode: 'text', configText: config(name, 'files-ds'), waitForCompletion: true });
	expect(result.error).toBeUndefined();
	return result.items[0].json.job_id as string;
}

describe('Training → Submit (waiting): Output Files', () => {
	it('One Item per File: the checkpoint and each sample on their own item, with the job ids', async () => {
		await readyDataset(sb, 'files-ds');
		const result = await run({
			operation: 'submit',
			configMode: 'text',
			configText: config('split_me', 'files-ds'),
			waitForCompletion: true,
			...downloads,
			outputFiles: 'oneItemPerFile',
		});
		expect(result.error).toBeUndefined();
		const job = sb.state().jobs[0];
		expect(result.items).toHaveLength(1 + 4);
		expect(result.items[0].json).toMatchObject({
			job_id: job.id,
			status: 'succeeded',
			file_index: 0,
			file_url: result.items[0].json.latest_checkpoint_url,
			downloaded: [expect.objectContaining({ fileName: 'split_me.safetensors' })],
			skipped: [],
		});
		result.items.forEach((item, i) => {
			expect(item.pairedItem).toEqual({ item: 0 });
			expect(item.json.job_id).toBe(job.id);
			expect(item.json.file_index).toBe(i);
			expect(Object.keys(item.binary ?? {})).toEqual(['data']);
		});
		expect(result.items.slice(1).map((i) => i.json.file_url)).toEqual(result.items[0].json.sample_urls);
		expect(sb.log().filter(isJobSubmit)).toHaveLength(1);
	});

	it('a bad Output Files value is refused before the training job is submitted', async () => {
		await readyDataset(sb, 'files-ds');
		const result = await run({
			operation: 'submit',
			configMode: 'text',
			configText: config('never_sent', 'files-ds'),
			waitForCompletion: true,
			...downloads,
			outputFiles: 'perFile',
		});
		expect(result.status).toBe('error');
		expect(result.error?.message).toMatch(/"Output Files" of item 0 must be one of allOnOneItem, oneItemPerFile, but is "perFile"/);
		expect(sb.log().filter(isJobSubmit)).toEqual([]);
	});
});

describe('Training → Get Result: Output Files', () => {
	it('All Files on One Item: the artifacts in lora, lora_1, ... (Output Binary Field "lora")', async () => {
		const jobId = await finishedJob('together');
		const result = await run({ operation: 'getResult', jobId, ...downloads, outputBinaryField: 'lora' });
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		const binary = result.items[0].binary ?? {};
		expect(Object.keys(binary)).toEqual(['lora', 'lora_1', 'lora_2', 'lora_3', 'lora_4']);
		expect(binary.lora.fileName).toBe('together.safetensors');
		expect((result.items[0].json.downloaded as unknown[]).length).toBe(5);
	});

	it('One Item per File: one item per artifact, each in the chosen field', async () => {
		const jobId = await finishedJob('apart');
		const result = await run({ operation: 'getResult', jobId, ...downloads, outputFiles: 'oneItemPerFile', outputBinaryField: 'lora' });
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(5);
		expect(result.items.map((i) => Object.keys(i.binary ?? {}))).toEqual(Array(5).fill(['lora']));
		expect(result.items.map((i) => i.json.job_id)).toEqual(Array(5).fill(jobId));
		expect(result.items[0].binary?.lora.fileName).toBe('apart.safetensors');
		expect(result.items.map((i) => (i.json.downloaded as unknown[]).length)).toEqual(Array(5).fill(1));
	});
});
