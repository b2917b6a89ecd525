/** The sandbox trainer's training jobs: validation before queueing, the job state machine, results and billing. */
import { readyDataset as readyDatasetIn } from '../helpers/sandboxCalls';
import { client, distinct, pollUntil, useStartedSandbox } from './helpers';
import { D, J, TRAINER_SANDBOX, config, form } from './trainer-helpers';

describe('sandbox trainer: training jobs', () => {
	const sb = useStartedSandbox(TRAINER_SANDBOX);

	const T = () => sb.urls.trainer;

	/** A READY dataset with one captioned image. */
	const readyDataset = async (name = 'dogs') => await readyDatasetIn(sb, name);

	describe('training jobs', () => {
		const submit = (body: object) => client(sb).post(`${T()}${J}`, body);
		const status = async (id: string) => (await client(sb).get(`${T()}${J}/${id}/status`)).data;
		const result = async (id: string) => (await client(sb).get(`${T()}${J}/${id}/result`)).data;

		it('validates the config and the GPU choice before queueing (nothing charged)', async () => {
			await readyDataset('dogs');
			const dsId = (await client(sb).get(`${T()}${D}`)).data.datasets[0].id;
			const wallet = sb.state().walletMicrodollars;
			const cases: Array<[object, string]> = [
				[{ config_file_format: 'yaml', config_file: config({ folder: '/tmp/out' }), gpu_type: 'ADA_80_PLUS' }, 'training_folder'],
				[{ config_file_format: 'yaml', config_file: config({ dataset: dsId }), gpu_type: 'ADA_80_PLUS' }, 'folder_path'],
				[{ config_file_format: 'yaml', config_file: config({ dataset: 'cats' }), gpu_type: 'ADA_80_PLUS' }, 'folder_path'],
				[{ config_file_format: 'yaml', config_file: config(), gpu_type: 'HOPPER_141', gpu_count: 8 }, 'gpu_count'],
				[{ config_file_format: 'yaml', config_file: config(), gpu_type: 'ADA_80_PLUS', gpu_count: 2 }, 'gpu_count'],
				[{ config_file_format: 'yaml', config_file: config(), gpu_type: 'A100' }, 'gpu_type'],
				[{ config_file_format: 'yaml', config_file: config() }, 'gpu_type'],
				[{ config_file_format: 'yaml', config_file: 'config: [unclosed', gpu_type: 'ADA_80_PLUS' }, 'config_file'],
				[{ config_file_format: 'toml', config_file: config(), gpu_type: 'ADA_80_PLUS' }, 'config_file_format'],
			];
			for (const [body, field] of cases) {
				const res = await submit(body);
				expect(res.status).toBe(422);
				expect(res.data.error_code).toBe(42251);
				expect(res.data.detail.map((d: { loc: unknown[] }) => d.loc.join('.')).join(' ')).toContain(field);
			}
			expect(sb.state().jobs).toHaveLength(0);
			expect(sb.state().walletMicrodollars).toBe(wallet);
		});

		it('refuses a dataset that is not READY', async () => {
			sb.configure({ datasetReadyMs: 60_000 });
			const id = (await client(sb).post(`${T()}${D}`, { name: 'dogs' })).data.id;
			await client(sb).post(`${T()}${D}/${id}/upload`, form('a.jpg', 'x'));
			const res = await submit({ config_file_format: 'yaml', config_file: config(), gpu_type: 'ADA_80_PLUS' });
			expect(res.status).toBe(422);
			expect(res.data.detail[0].msg).toMatch(/UPLOADING/);
		});

		it('runs IN_QUEUE -> RUNNING -> STOPPED with growing checkpoints and samples', async () => {
			await readyDataset();
			// 1 s of steps: RUNNING is seen even when a loaded machine stalls a poll (IN_QUEUE is the submit's answer)
			sb.configure({ trainingStepMs: 25, queueMs: 100 });
			const wallet = sb.state().walletMicrodollars;
			const job = (
				await submit({
					config_file_format: 'yaml',
					config_file: config({ steps: 40, saveEvery: 10 }),
					gpu_type: 'ADA_80_PLUS',
					gpu_count: 8,
				})
			).data;
			expect(job).toMatchObject({ name: 'my_first_lora', status: 'IN_QUEUE', progress: { current_step: 0, total_steps: 40, percent: 0 } });
			expect(sb.state().walletMicrodollars).toBe(wallet - 250_000);
			const seen: string[] = [job.status];
			const counts: number[] = [];
			await pollUntil(
				async () => {
					const s = await status(job.id);
					seen.push(s.status);
					if (s.status === 'RUNNING') counts.push((await result(job.id)).artifacts.checkpoints.length);
					return s;
				},
				(s) => s.status === 'STOPPED',
			);
			expect(distinct(seen)).toEqual(['IN_QUEUE', 'RUNNING', 'STOPPED']);
			expect(counts).toEqual([...counts].sort((a, b) => a - b));
			const final = await status(job.id);
			expect(final).toMatchObject({ progress: { current_step: 40, total_steps: 40, percent: 100 }, error: null });
			expect(final.started_at).toEqual(expect.any(String));
			expect(final.finished_at).toEqual(expect.any(String));
			const r = await result(job.id);
			expect(r.error).toBeUndefined();
			expect(r.artifacts.checkpoints.map((c: { path: string }) => c.path.split('/').pop())).toEqual([
				'my_first_lora_000000010.safetensors',
				'my_first_lora_000000020.safetensors',
				'my_first_lora_000000030.safetensors',
				'my_first_lora.safetensors',
			]);
			expect(r.artifacts.samples).toHaveLength(8);
			expect(r.artifacts.config.path.startsWith(sb.urls.files)).toBe(true);
			const cfg = await client(sb, null).get(r.artifacts.config.path, { responseType: 'text' });
			expect(cfg.data).toContain('training_folder: /app/ai-toolkit/output');
			const ckpt = await client(sb, null).get(r.artifacts.checkpoints[0].path, { responseType: 'arraybuffer' });
			expect(Buffer.from(ckpt.data).readBigUInt64LE(0)).toBeGreaterThan(0n);
			expect((await client(sb).post(`${T()}${J}/${job.id}/resume`, {})).status).toBe(409);
		});

		it('reports RUNNING at the first step while loading', async () => {
			await readyDataset();
			// 1.5 s per phase: each is seen even when a loaded machine stalls a poll (loading is also the submit's answer)
			sb.configure({ trainingStepMs: 75, queueMs: 0, trainingLoadMs: 1500 });
			const job = (await submit({ config_file_format: 'yaml', config_file: config({ steps: 20 }), gpu_type: 'ADA_80_PLUS' })).data;
			const seen: string[] = [`${job.status} ${job.progress.current_step}/${job.progress.total_steps}`];
			await pollUntil(
				async () => {
					const s = await status(job.id);
					seen.push(`${s.status} ${s.progress.current_step}/${s.progress.total_steps}`);
					return s;
				},
				(s) => s.status === 'STOPPED',
			);
			const phases = distinct(seen.map((x) => (x.startsWith('RUNNING') && !/ (0|20)\//.test(x) ? 'RUNNING stepping' : x)));
			expect(phases).toEqual(['RUNNING 0/20', 'RUNNING stepping', 'STOPPED 20/20']);
			expect((await result(job.id)).error).toBeUndefined();
		});

		it('accepts a JSON config', async () => {
			await readyDataset();
			const cfg = {
				job: 'extension',
				config: {
					name: 'json_lora',
					process: [
						{
							training_folder: '/app/ai-toolkit/output',
							datasets: [{ folder_path: '/app/ai-toolkit/datasets/dogs' }],
							train: { steps: 5 },
						},
					],
				},
			};
			const res = await submit({ config_file_format: 'json', config_file: JSON.stringify(cfg), gpu_type: 'HOPPER_141' });
			expect(res.status).toBe(200);
			expect(res.data.name).toBe('json_lora');
		});

		it('cancels a running job keeping its checkpoints, edits it and resumes from the highest checkpoint', async () => {
			await readyDataset();
			sb.configure({ trainingStepMs: 5, queueMs: 0 });
			const job = (
				await submit({ config_file_format: 'yaml', config_file: config({ steps: 100000, saveEvery: 10 }), gpu_type: 'ADA_80_PLUS' })
			).data;
			await pollUntil(
				() => status(job.id),
				(s) => s.progress.current_step >= 25,
			);
			const c = await client(sb).post(`${T()}${J}/${job.id}/cancel`);
			expect(c.data.status).toBe('CANCELED');
			const s = await status(job.id);
			expect(s.status).toBe('CANCELED');
			const steps = (await result(job.id)).artifacts.checkpoints.map((x: { step: number }) => x.step);
			const highest = Math.max(...steps);
			expect(highest).toBe(Math.floor(s.progress.current_step / 10) * 10);
			expect((await client(sb).post(`${T()}${J}/${job.id}/cancel`)).status).toBe(409);

			const badName = await client(sb).post(`${T()}${J}/${job.id}/edit`, {
				config_file_format: 'yaml',
				config_file: config({ name: 'other', steps: 60 }),
			});
			expect(badName.status).toBe(422);
			const edit = await client(sb).post(`${T()}${J}/${job.id}/edit`, {
				config_file_format: 'yaml',
				config_file: config({ steps: highest + 20 }),
			});
			expect(edit.status).toBe(200);
			expect(edit.data).toMatchObject({ id: job.id, status: 'CANCELED' });

			const resumed = await client(sb).post(`${T()}${J}/${job.id}/resume`, { gpu_type: 'HOPPER_141', gpu_count: 1 });
			expect(resumed.status).toBe(200);
			expect(resumed.data).toMatchObject({ id: job.id, gpu_type: 'HOPPER_141' });
			expect(resumed.data.progress.current_step).toBe(highest);
			expect(
				(await client(sb).post(`${T()}${J}/${job.id}/edit`, { config_file_format: 'yaml', config_file: config({ steps: 70 }) })).status,
			).toBe(409);
			const done = await pollUntil(
				() => status(job.id),
				(x) => x.status === 'STOPPED',
			);
			expect(done.progress.current_step).toBe(highest + 20);
			expect(sb.state().jobs[0].attempts).toBe(2);
			const resumeLog = sb.log().find((e) => e.path.endsWith('/resume') && e.status === 200);
			expect(resumeLog?.createdId).toBe(`${job.id}/resume/1`);
		});

		it('stops a preempted job early with "server was reclaimed", then resumes to the end', async () => {
			await readyDataset();
			sb.configure({ trainingStepMs: 1, queueMs: 0 });
			const job = (
				await submit({
					config_file_format: 'yaml',
					config_file: config({ name: 'preempt_me', steps: 40, saveEvery: 10 }),
					gpu_type: 'ADA_80_PLUS',
				})
			).data;
			const s = await pollUntil(
				() => status(job.id),
				(x) => x.status === 'STOPPED',
			);
			expect(s.progress.current_step).toBe(20);
			expect(s.progress.current_step).toBeLessThan(s.progress.total_steps);
			const r = await result(job.id);
			expect(r.error).toEqual({ message: 'Job failed: server was reclaimed.', code: 'TRAINING_ERROR' });
			expect((await client(sb).post(`${T()}${J}/${job.id}/resume`, {})).status).toBe(200);
			const end = await pollUntil(
				() => status(job.id),
				(x) => x.status === 'STOPPED',
			);
			expect(end.progress.current_step).toBe(40);
			expect((await result(job.id)).error).toBeUndefined();
		});

		it('fails a job whose model path contains "fail", fixable through edit + resume', async () => {
			await readyDataset();
			sb.configure({ trainingStepMs: 1, queueMs: 0 });
			const job = (
				await submit({
					config_file_format: 'yaml',
					config_file: config({ steps: 30, modelPath: 'does-not-exist/fail' }),
					gpu_type: 'ADA_80_PLUS',
				})
			).data;
			const s = await pollUntil(
				() => status(job.id),
				(x) => x.status === 'FAILED',
			);
			expect(s.error).toMatch(/does-not-exist\/fail/);
			expect((await result(job.id)).error.code).toBe('TRAINING_ERROR');
			await client(sb).post(`${T()}${J}/${job.id}/edit`, { config_file_format: 'yaml', config_file: config({ steps: 30 }) });
			expect((await client(sb).post(`${T()}${J}/${job.id}/resume`, {})).status).toBe(200);
			await pollUntil(
				() => status(job.id),
				(x) => x.status === 'STOPPED',
			);
		});

		it('fails every attempt of a job named with "fail"', async () => {
			await readyDataset();
			sb.configure({ trainingStepMs: 1, queueMs: 0 });
			const job = (
				await submit({ config_file_format: 'yaml', config_file: config({ name: 'fail_me', steps: 30 }), gpu_type: 'ADA_80_PLUS' })
			).data;
			await pollUntil(
				() => status(job.id),
				(x) => x.status === 'FAILED',
			);
			await client(sb).post(`${T()}${J}/${job.id}/resume`, {});
			const again = await pollUntil(
				() => status(job.id),
				(x) => x.status === 'FAILED',
			);
			expect(again.error).toMatch(/fail_me/);
		});

		it('refuses submit with 402 when the wallet is short and 404 for unknown jobs', async () => {
			await readyDataset();
			sb.configure({ walletMicrodollars: 1000 });
			const res = await submit({ config_file_format: 'yaml', config_file: config(), gpu_type: 'ADA_80_PLUS' });
			expect(res.status).toBe(402);
			expect(res.data.error_code).toBe(40251);
			expect(sb.state().jobs).toHaveLength(0);
			const nf = await client(sb).get(`${T()}${J}/nope/status`);
			expect(nf.status).toBe(404);
			expect(nf.data.error_code).toBe(40451);
		});
	});
});
