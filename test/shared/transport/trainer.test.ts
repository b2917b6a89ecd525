/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * Trainer endpoints of the shared transport (datasets, direct and signed uploads, training jobs) against
 * the sandbox over loopback.
 */
import { Readable } from 'stream';

import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import {
	cancelTrainingJob,
	createDataset,
	deleteDataset,
	editTrainingJob,
	getDatasetStatus,
	getDatasetUploadUrls,
	getTrainingJobResult,
	getTrainingJobStatus,
	listDatasets,
	putSignedUpload,
	resumeTrainingJob,
	submitTrainingJob,
	uploadDatasetFile,
	uploadDatasetText,
} from '../../../nodes/shared/transport';
import type { RequestLogEntry } from '../../../sandbox';
import { useTransportSandbox } from '../../helpers/transportSetup';

const CONFIG = { runDurationMs: 50, queueMs: 0, datasetReadyMs: 0, trainingStepMs: 0 };

const { sb, run, caught } = useTransportSandbox({
	config: CONFIG,
	credentials: (box) => ({ trainerApiBaseUrl: `${box.urls.trainer}/` }),
});

const trainer = (): RequestLogEntry[] => sb.log().filter((e) => e.api === 'trainer');
const files = (): RequestLogEntry[] => sb.log().filter((e) => e.api === 'files' || e.api === 'foreign');

const yamlConfig = (name: string, dataset: string, steps = 4) =>
	[
		'job: extension',
		'config:',
		`  name: ${name}`,
		'  process:',
		'    - type: sd_trainer',
		'      training_folder: /app/ai-toolkit/output',
		'      datasets:',
		`        - folder_path: /app/ai-toolkit/datasets/${dataset}`,
		'      train:',
		`        steps: ${steps}`,
		'      save:',
		'        save_every: 2',
		'      model:',
		'        name_or_path: black-forest-labs/FLUX.1-dev',
		'',
	].join('\n');

/** A READY dataset with one image and its caption. */
async function readyDataset(ctx: IExecuteFunctions, name: string): Promise<string> {
	const ds = await createDataset(ctx, name);
	await uploadDatasetFile(ctx, ds.id, { fileName: 'img_0001.png', contentType: 'image/png', data: Buffer.alloc(64, 7) });
	await uploadDatasetText(ctx, ds.id, 'img_0001.txt', 'a photo of sks dog');
	return ds.id;
}

describe('datasets', () => {
	it('creates a dataset with a name, and without one (the service picks the name)', async () => {
		const [named, unnamed] = await run(async (ctx) => [await createDataset(ctx, ' my-set '), await createDataset(ctx)]);
		expect(named).toMatchObject({ name: 'my-set', status: 'DRAFT' });
		expect(typeof named.id).toBe('string');
		expect(typeof unnamed.name).toBe('string');
		const [a, b] = trainer();
		expect(a).toMatchObject({ method: 'POST', path: '/prod/v1/trainers/datasets', body: { name: 'my-set' }, status: 200 });
		expect(b).toMatchObject({ method: 'POST', path: '/prod/v1/trainers/datasets', body: {} });
	});

	it('maps a duplicate name (409) to a hint', async () => {
		const error = await caught(async (ctx) => {
			await createDataset(ctx, 'dup');
			return await createDataset(ctx, 'dup');
		});
		expect(error.httpCode).toBe('409');
		expect(error.message).toContain('40901 DATASET_NAME_CONFLICT');
		expect(error.description).toMatch(/Choose another name/);
	});

	it('lists datasets from { datasets: [...] } and from a bare array', async () => {
		const wrapped = await run(async (ctx) => {
			await createDataset(ctx, 'one');
			return await listDatasets(ctx);
		});
		sb.configure({ quirks: { wrappedDatasetList: false } });
		const bare = await run(async (ctx) => await listDatasets(ctx));
		expect(wrapped.map((d) => d.name)).toEqual(['one']);
		expect(bare.map((d) => d.name)).toEqual(['one']);
		expect(
			trainer()
				.filter((e) => e.method === 'GET')
				.map((e) => e.path),
		).toEqual(['/prod/v1/trainers/datasets', '/prod/v1/trainers/datasets']);
	});

	it('uploads a file as multipart with one part named "file", and a caption as text/plain', async () => {
		const status = await run(async (ctx) => {
			const id = await readyDataset(ctx, 'uploads');
			return await getDatasetStatus(ctx, id);
		});
		expect(status.status).toBe('READY');
		expect(status.files?.map((f) => f.filename).sort()).toEqual(['img_0001.png', 'img_0001.txt']);
		const uploads = trainer().filter((e) => e.path.endsWith('/upload'));
		expect(uploads[0].body).toEqual({ file: { filename: 'img_0001.png', size: 64, contentType: 'image/png' } });
		expect(uploads[1].body).toEqual({
			file: { filename: 'img_0001.txt', size: Buffer.byteLength('a photo of sks dog'), contentType: 'text/plain; charset=utf-8' },
		});
		expect(trainer().at(-1)).toMatchObject({ method: 'GET', path: `/prod/v1/trainers/datasets/${status.id}/status` });
	});

	it('refuses a file over 150 MB and a file name with a path before sending', async () => {
		const big = { fileName: 'big.mp4', contentType: 'video/mp4', data: Buffer.alloc(150_000_001) };
		const e1 = await caught(async (ctx) => await uploadDatasetFile(ctx, 'ds-1', big));
		const e2 = await caught(async (ctx) => await uploadDatasetText(ctx, 'ds-1', '../x.txt', 'hi'));
		expect(e1).toBeInstanceOf(NodeOperationError);
		expect(e1.description).toMatch(/signed upload/);
		expect(e2).toBeInstanceOf(NodeOperationError);
		expect(trainer()).toHaveLength(0);
	});

	it('gets signed upload URLs and PUTs a Buffer there without the bearer token', async () => {
		const data = Buffer.alloc(2048, 1);
		const status = await run(async (ctx) => {
			const ds = await createDataset(ctx, 'signed');
			const uploads = await getDatasetUploadUrls(ctx, ds.id, { 'clip.mp4': data.length });
			await putSignedUpload(ctx, uploads['clip.mp4'], data, data.length);
			return await getDatasetStatus(ctx, ds.id);
		});
		const request = trainer().find((e) => e.path.endsWith('/get-upload-endpoint'));
		expect(request).toMatchObject({ method: 'POST', body: { filenameToByteSize: { 'clip.mp4': 2048 } } });
		const [put] = files();
		expect(put.method).toBe('PUT');
		expect(put.status).toBe(200);
		expect(put.authorization).toBeUndefined();
		expect(status.files?.find((f) => f.filename === 'clip.mp4')?.size_bytes).toBe(2048);
	});

	it('PUTs a Readable stream with the exact Content-Length', async () => {
		const chunks = [Buffer.alloc(1000, 2), Buffer.alloc(500, 3)];
		const status = await run(async (ctx) => {
			const ds = await createDataset(ctx, 'streamed');
			const uploads = await getDatasetUploadUrls(ctx, ds.id, { 'big.bin': 1500 });
			await putSignedUpload(ctx, uploads['big.bin'], Readable.from(chunks), 1500);
			return await getDatasetStatus(ctx, ds.id);
		});
		expect(files()[0]).toMatchObject({ method: 'PUT', status: 200 });
		expect(files()[0].authorization).toBeUndefined();
		expect(status.files?.find((f) => f.filename === 'big.bin')?.size_bytes).toBe(1500);
	});

	it('reports a signed upload the storage rejects (wrong size) with "request a fresh URL"', async () => {
		const error = await caught(async (ctx) => {
			const ds = await createDataset(ctx, 'wrong-size');
			const uploads = await getDatasetUploadUrls(ctx, ds.id, { 'a.bin': 10 });
			return await putSignedUpload(ctx, uploads['a.bin'], Readable.from([Buffer.alloc(12)]), 12);
		});
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.httpCode).toBe('403');
		expect(error.description).toMatch(/fresh upload URL/);
		expect(files()).toHaveLength(1);
		expect(files()[0].authorization).toBeUndefined();
	});

	it('refuses a Buffer whose length differs from the signed size before sending', async () => {
		const error = await caught(async (ctx) => {
			const ds = await createDataset(ctx, 'mismatch');
			const uploads = await getDatasetUploadUrls(ctx, ds.id, { 'a.bin': 10 });
			return await putSignedUpload(ctx, uploads['a.bin'], Buffer.alloc(11), 10);
		});
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(files()).toHaveLength(0);
	});

	it('refuses empty or invalid sizes for upload URLs before sending', async () => {
		const e1 = await caught(async (ctx) => await getDatasetUploadUrls(ctx, 'ds-1', {}));
		const e2 = await caught(async (ctx) => await getDatasetUploadUrls(ctx, 'ds-1', { 'a.png': 0 }));
		const e3 = await caught(async (ctx) => await getDatasetUploadUrls(ctx, 'ds-1', { 'a.png': 1.5 }));
		for (const e of [e1, e2, e3]) expect(e).toBeInstanceOf(NodeOperationError);
		expect(trainer()).toHaveLength(0);
	});

	it('deletes a dataset, and maps an unknown dataset to a 404 naming the id', async () => {
		const out = await run(async (ctx) => {
			const ds = await createDataset(ctx, 'gone');
			return { id: ds.id, deleted: await deleteDataset(ctx, ds.id) };
		});
		expect(trainer()[1]).toMatchObject({ method: 'DELETE', path: `/prod/v1/trainers/datasets/${out.id}`, status: 200 });
		expect(sb.state().datasets).toHaveLength(0);
		const error = await caught(async (ctx) => await getDatasetStatus(ctx, out.id));
		expect(error.httpCode).toBe('404');
		expect(error.description).toContain(`No dataset "${out.id}"`);
	});
});

describe('training jobs', () => {
	it('submits the config with the GPU choice (paid, once) and reads status and result', async () => {
		const out = await run(async (ctx) => {
			await readyDataset(ctx, 'dogs');
			const job = await submitTrainingJob(
				ctx,
				{ configFile: yamlConfig('my_lora', 'dogs'), configFormat: 'yaml', gpuType: 'ADA_80_PLUS', gpuCount: 1, gpuId: '#1' },
				0,
			);
			const status = await getTrainingJobStatus(ctx, String(job.id));
			const result = await getTrainingJobResult(ctx, String(job.id));
			return { job, status, result };
		});
		expect(out.job.id).toBeDefined();
		expect(out.job.job_id).toBe(out.job.id);
		expect(out.status.progress?.total_steps).toBe(4);
		expect(out.result.artifacts).toBeDefined();
		const submits = trainer().filter((e) => e.path === '/prod/v1/trainers/ai-toolkit/jobs');
		expect(submits).toHaveLength(1);
		expect(submits[0]).toMatchObject({
			method: 'POST',
			body: { config_file_format: 'yaml', gpu_type: 'ADA_80_PLUS', gpu_count: 1, gpu_id: '#1' },
			status: 200,
		});
		expect(String((submits[0].body as { config_file: string }).config_file)).toContain('name: my_lora');
		const paths = trainer().map((e) => `${e.method} ${e.path}`);
		expect(paths).toContain(`GET /prod/v1/trainers/ai-toolkit/jobs/${out.job.id}/status`);
		expect(paths).toContain(`GET /prod/v1/trainers/ai-toolkit/jobs/${out.job.id}/result`);
	});

	it('refuses bad GPU choices and an empty config before sending', async () => {
		const cfg = yamlConfig('x', 'y');
		const e1 = await caught(
			async (ctx) => await submitTrainingJob(ctx, { configFile: cfg, configFormat: 'yaml', gpuType: 'HOPPER_141', gpuCount: 8 }),
		);
		const e2 = await caught(async (ctx) => await submitTrainingJob(ctx, { configFile: cfg, configFormat: 'yaml', gpuType: 'RTX_4090' }));
		const e3 = await caught(
			async (ctx) => await submitTrainingJob(ctx, { configFile: '  ', configFormat: 'yaml', gpuType: 'ADA_80_PLUS' }),
		);
		const e4 = await caught(async (ctx) => await resumeTrainingJob(ctx, 'job-1', { gpuType: 'HOPPER_141', gpuCount: 8 }));
		expect(e1.message).toMatch(/8 GPUs are only available with ADA_80_PLUS/);
		for (const e of [e1, e2, e3, e4]) expect(e).toBeInstanceOf(NodeOperationError);
		expect(trainer()).toHaveLength(0);
	});

	it('renders which config fields failed (422 detail)', async () => {
		const error = await caught(
			async (ctx) =>
				await submitTrainingJob(ctx, { configFile: yamlConfig('x', 'missing-set'), configFormat: 'yaml', gpuType: 'ADA_80_PLUS' }),
		);
		expect(error.httpCode).toBe('422');
		expect(error.description).toMatch(/These inputs were rejected: config_file\.config\.process\.0\.datasets\.0\.folder_path/);
	});

	it('cancels a running job', async () => {
		sb.configure({ trainingStepMs: 60_000 });
		const out = await run(async (ctx) => {
			await readyDataset(ctx, 'cats');
			const job = await submitTrainingJob(ctx, { configFile: yamlConfig('cat_lora', 'cats'), configFormat: 'yaml', gpuType: 'HOPPER_141' });
			return { job, cancel: await cancelTrainingJob(ctx, String(job.id)) };
		});
		expect(trainer().at(-1)).toMatchObject({ method: 'POST', path: `/prod/v1/trainers/ai-toolkit/jobs/${out.job.id}/cancel`, status: 200 });
		expect(sb.state().jobs[0].status).toBe('CANCELED');
	});

	it('edits the config of a stopped job and resumes it with a GPU choice (paid, once)', async () => {
		const out = await run(async (ctx) => {
			await readyDataset(ctx, 'birds');
			const job = await submitTrainingJob(ctx, {
				configFile: yamlConfig('preempt_lora', 'birds', 8),
				configFormat: 'yaml',
				gpuType: 'ADA_80_PLUS',
			});
			const id = String(job.id);
			const stopped = await getTrainingJobStatus(ctx, id);
			const edited = await editTrainingJob(ctx, id, { configFile: yamlConfig('preempt_lora', 'birds', 8), configFormat: 'yaml' });
			const resumed = await resumeTrainingJob(ctx, id, { gpuType: 'ADA_80_PLUS', gpuCount: 8 }, 0);
			return { id, stopped, edited, resumed };
		});
		expect(out.stopped.status).toBe('STOPPED');
		expect(out.edited).toMatchObject({ id: out.id });
		expect(out.resumed.id).toBe(out.id);
		const log = trainer();
		expect(log.find((e) => e.path.endsWith('/edit'))).toMatchObject({ method: 'POST', body: { config_file_format: 'yaml' }, status: 200 });
		const resumes = log.filter((e) => e.path.endsWith('/resume'));
		expect(resumes).toHaveLength(1);
		expect(resumes[0]).toMatchObject({
			method: 'POST',
			path: `/prod/v1/trainers/ai-toolkit/jobs/${out.id}/resume`,
			body: { gpu_type: 'ADA_80_PLUS', gpu_count: 8 },
		});
	});

	it('resumes with an empty body {} when no GPU choice is given', async () => {
		await run(async (ctx) => {
			await readyDataset(ctx, 'fish');
			const job = await submitTrainingJob(ctx, {
				configFile: yamlConfig('preempt_fish', 'fish', 8),
				configFormat: 'yaml',
				gpuType: 'ADA_80_PLUS',
			});
			return await resumeTrainingJob(ctx, String(job.id));
		});
		expect(trainer().find((e) => e.path.endsWith('/resume'))).toMatchObject({ body: {}, status: 200 });
	});

	it('maps an unknown job to a 404 naming the job id', async () => {
		const error = await caught(async (ctx) => await getTrainingJobStatus(ctx, 'no-such-job'));
		expect(error.httpCode).toBe('404');
		expect(error.description).toMatch(/No training job "no-such-job"/);
	});
});
