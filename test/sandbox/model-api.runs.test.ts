/** The sandbox Model API: the run state machine, the wallet, the errors-as-HTTP-200 quirk, the acceptedErrorCode fault. */
import { STABLE_MODELS } from '../../sandbox';
import { client, distinct, pollUntil, useStartedSandbox } from './helpers';

const T2I = STABLE_MODELS.textToImage;

describe('sandbox Model API: runs', () => {
	const sb = useStartedSandbox({ runDurationMs: 40, queueMs: 20 });

	const M = () => sb.urls.modelApi;

	describe('output files', () => {
		it("names the files by the output_format asked for, else by the model's default", async () => {
			sb.configure({ queueMs: 0, runDurationMs: 0 });
			const outputOf = async (model: string, inputs: Record<string, unknown>) => {
				const sub = await client(sb).post(`${M()}/v1/models/${model}`, { prompt: 'a cat', ...inputs });
				await pollUntil(
					async () => (await client(sb).get(sub.data.status_url)).data.status,
					(s) => s === 'completed',
				);
				return (await client(sb).get(sub.data.result_url)).data.output.images[0] as string;
			};
			// FLUX.1 [dev] with LoRA defaults to jpeg, FLUX.2 Flash to png
			expect(await outputOf(STABLE_MODELS.lora, { lora: { path: 'style.safetensors' } })).toMatch(/\.jpg$/);
			expect(await outputOf(STABLE_MODELS.lora, { lora: { path: 'style.safetensors' }, output_format: 'png' })).toMatch(/\.png$/);
			expect(await outputOf(T2I, {})).toMatch(/\.png$/);
			expect(await outputOf(T2I, { output_format: 'jpeg' })).toMatch(/\.jpg$/);
		});
	});

	describe('run state machine', () => {
		it('goes in_queue (with queue_position) -> in_progress -> completed and the result succeeds with outputs', async () => {
			// 1.5 s in each state: every state is seen even when a loaded machine stalls a poll
			sb.configure({ queueMs: 1500, runDurationMs: 1500 });
			const sub = await client(sb).post(`${M()}/v1/models/${T2I}`, { prompt: 'a cat', num_images: 2, output_format: 'webp' });
			expect(sub.status).toBe(200);
			const id = sub.data.request_id;
			expect(sub.data).toEqual({
				request_id: id,
				status_url: `${M()}/v1/requests/${id}/status`,
				result_url: `${M()}/v1/requests/${id}/result`,
				cancel_url: `${M()}/v1/requests/${id}/cancel`,
			});
			const first = (await client(sb).get(sub.data.status_url)).data;
			expect(first).toMatchObject({ request_id: id, status: 'in_queue', queue_position: 1 });
			const seen: string[] = [];
			await pollUntil(
				async () => {
					const s = (await client(sb).get(sub.data.status_url)).data;
					seen.push(s.status);
					if (s.status !== 'in_queue') expect(s.queue_position).toBeUndefined();
					return s.status;
				},
				(s) => s === 'completed',
			);
			expect(distinct(['in_queue', ...seen])).toEqual(['in_queue', 'in_progress', 'completed']);
			const result = (await client(sb).get(sub.data.result_url, { params: { include_cost: true } })).data;
			expect(result).toMatchObject({ request_id: id, status: 'succeeded', cost: 0.04 });
			expect(result.output.images).toHaveLength(2);
			expect(result.output.images[0]).toMatch(new RegExp(`^${sb.urls.files}/files/outputs/${id}/.*\\.webp$`));
			expect(Date.parse(result.finished_at)).toBeGreaterThanOrEqual(Date.parse(result.created_at));
			const noCost = (await client(sb).get(sub.data.result_url)).data;
			expect(noCost.cost).toBeUndefined();
		});

		it('lists outputs as https URLs with httpsOutputUrls, which another model accepts as a file input', async () => {
			sb.configure({ queueMs: 0, runDurationMs: 0, httpsOutputUrls: true });
			const first = (await client(sb).post(`${M()}/v1/models/${T2I}`, { prompt: 'a cat' })).data;
			await pollUntil(
				async () => (await client(sb).get(first.status_url)).data.status,
				(s) => s === 'completed',
			);
			const image = (await client(sb).get(first.result_url)).data.output.images[0] as string;
			expect(image).toMatch(new RegExp(`^${sb.urls.files.replace(/^http:/, 'https:')}/files/outputs/${first.request_id}/`));
			const chained = await client(sb).post(`${M()}/v1/models/${STABLE_MODELS.imageToVideo}`, { prompt: 'x', image_url: image });
			expect(chained.status).toBe(200);
		});

		it('returns the in-progress record from result before completion (and 400005 with the quirk)', async () => {
			sb.configure({ queueMs: 60_000 });
			const id = (await client(sb).post(`${M()}/v1/models/${T2I}`, { prompt: 'x' })).data.request_id;
			const early = await client(sb).get(`${M()}/v1/requests/${id}/result`);
			expect(early.status).toBe(200);
			expect(early.data.status).toBe('in_queue');
			expect(early.data.output).toBeUndefined();
			sb.configure({ quirks: { resultNotReady400: true } });
			const q = await client(sb).get(`${M()}/v1/requests/${id}/result`);
			expect(q.status).toBe(400);
			expect(q.data.error_code).toBe(400005);
		});

		it('queues behind busy workers with increasing queue_position', async () => {
			sb.configure({ queueMs: 0, runDurationMs: 60_000, workers: 1 });
			const ids: string[] = [];
			for (let i = 0; i < 3; i++) ids.push((await client(sb).post(`${M()}/v1/models/${T2I}`, { prompt: `p${i}` })).data.request_id);
			const st = await Promise.all(ids.map(async (id) => (await client(sb).get(`${M()}/v1/requests/${id}/status`)).data));
			expect(st.map((s) => s.status)).toEqual(['in_progress', 'in_queue', 'in_queue']);
			expect(st.map((s) => s.queue_position)).toEqual([undefined, 1, 2]);
			// cancelling the first queued one moves the next up
			await client(sb).post(`${M()}/v1/requests/${ids[1]}/cancel`);
			expect((await client(sb).get(`${M()}/v1/requests/${ids[2]}/status`)).data.queue_position).toBe(1);
		});

		it('cancels a queued run (refunds it) but not a running one', async () => {
			sb.configure({ queueMs: 60_000 });
			const before = sb.state().walletMicrodollars;
			const id = (await client(sb).post(`${M()}/v1/models/${T2I}`, { prompt: 'x' })).data.request_id;
			expect(sb.state().walletMicrodollars).toBe(before - 40_000);
			const c = await client(sb).post(`${M()}/v1/requests/${id}/cancel`);
			expect(c.status).toBe(202);
			expect(c.data).toMatchObject({ request_id: id, outcome: 'cancelled' });
			expect((await client(sb).get(`${M()}/v1/requests/${id}/status`)).data.status).toBe('cancelled');
			const r = (await client(sb).get(`${M()}/v1/requests/${id}/result`, { params: { include_cost: 'true' } })).data;
			expect(r).toMatchObject({ status: 'cancelled', cost: 0 });
			expect(sb.state().walletMicrodollars).toBe(before);

			sb.configure({ queueMs: 0, runDurationMs: 60_000 });
			const id2 = (await client(sb).post(`${M()}/v1/models/${T2I}`, { prompt: 'x' })).data.request_id;
			const c2 = await client(sb).post(`${M()}/v1/requests/${id2}/cancel`);
			expect(c2.status).toBe(202);
			expect(c2.data).toMatchObject({ outcome: 'not_cancellable', status: 'in_progress' });
			expect((await client(sb).get(`${M()}/v1/requests/${id2}/status`)).data.status).toBe('in_progress');
		});

		it('says "canceled" with the americanCanceled quirk', async () => {
			sb.configure({ queueMs: 60_000, quirks: { americanCanceled: true } });
			const id = (await client(sb).post(`${M()}/v1/models/${T2I}`, { prompt: 'x' })).data.request_id;
			await client(sb).post(`${M()}/v1/requests/${id}/cancel`);
			expect((await client(sb).get(`${M()}/v1/requests/${id}/status`)).data.status).toBe('canceled');
			expect((await client(sb).get(`${M()}/v1/requests/${id}/result`)).data.status).toBe('canceled');
		});

		it('fails always-fails runs and runs of failingModels; statusSaysFailed quirk', async () => {
			sb.configure({ queueMs: 0, runDurationMs: 0, failingModels: { [T2I]: 'NSFW content detected' } });
			const a = (await client(sb).post(`${M()}/v1/models/${STABLE_MODELS.alwaysFails}`, { prompt: 'x' })).data.request_id;
			const b = (await client(sb).post(`${M()}/v1/models/${T2I}`, { prompt: 'x' })).data.request_id;
			for (const [id, msg] of [
				[a, /CUDA/],
				[b, /NSFW/],
			] as const) {
				expect((await client(sb).get(`${M()}/v1/requests/${id}/status`)).data.status).toBe('completed');
				const r = (await client(sb).get(`${M()}/v1/requests/${id}/result`)).data;
				expect(r.status).toBe('failed');
				expect(r.error).toMatch(msg);
			}
			sb.configure({ quirks: { statusSaysFailed: true } });
			expect((await client(sb).get(`${M()}/v1/requests/${a}/status`)).data).toMatchObject({ status: 'failed', error: expect.any(String) });
		});

		it('says "completed" in results with resultSaysCompleted', async () => {
			sb.configure({ queueMs: 0, runDurationMs: 0, quirks: { resultSaysCompleted: true } });
			const id = (await client(sb).post(`${M()}/v1/models/${T2I}`, { prompt: 'x' })).data.request_id;
			expect((await client(sb).get(`${M()}/v1/requests/${id}/result`)).data.status).toBe('completed');
		});

		it('shapes outputs by category, large and mixed-host models', async () => {
			sb.configure({ queueMs: 0, runDurationMs: 0, largeOutputBytes: 123_456 });
			const run = async (model: string, body: object) => {
				const id = (await client(sb).post(`${M()}/v1/models/${model}`, body)).data.request_id;
				return (await client(sb).get(`${M()}/v1/requests/${id}/result`)).data.output;
			};
			expect((await run(STABLE_MODELS.imageToVideo, { prompt: 'x', image_url: 'https://e.com/a.png' })).video).toMatch(/\.mp4$/);
			expect((await run(STABLE_MODELS.audioToAudio, { prompt: 'x', audio_url: 'https://e.com/a.wav' })).audio).toMatch(/\.wav$/);
			expect((await run(STABLE_MODELS.largeOutput, {})).video.startsWith(`${sb.urls.files}/files/gen/123456/`)).toBe(true);
			const mixed = await run(STABLE_MODELS.mixedHosts, { prompt: 'x' });
			expect(mixed.images[0].startsWith(sb.urls.files)).toBe(true);
			expect(mixed.thumbnail.startsWith(sb.urls.foreignFiles)).toBe(true);
		});

		it('answers 404 for unknown request ids and for deployment request ids', async () => {
			expect((await client(sb).get(`${M()}/v1/requests/00000000-0000-0000-0000-000000000000/status`)).status).toBe(404);
			const dep = sb.stable.deployments.textToImage;
			const rid = (
				await client(sb).post(`${sb.urls.serverless}/prod/v2/deployments/${dep}/inference`, { overrides: { 6: { inputs: { text: 'x' } } } })
			).data.request_id;
			expect(rid).toEqual(expect.any(String));
			expect((await client(sb).get(`${M()}/v1/requests/${rid}/status`)).status).toBe(404);
			expect((await client(sb).post(`${M()}/v1/requests/${rid}/cancel`)).status).toBe(404);
		});
	});

	describe('wallet', () => {
		it('charges base_price_usd in microdollars and refuses when short, charging nothing', async () => {
			sb.reset({ walletMicrodollars: 100_000 });
			const bal = async () => (await client(sb).get(`${sb.urls.serverless}/prod/v2/balance`)).data;
			expect(await bal()).toEqual({ balance_usd: 0.1, balance_microdollars: 100_000, currency: 'USD' });
			expect((await client(sb).post(`${M()}/v1/models/${T2I}`, { prompt: 'x' })).status).toBe(200);
			expect((await client(sb).post(`${M()}/v1/models/${T2I}`, { prompt: 'x' })).status).toBe(200);
			expect((await bal()).balance_microdollars).toBe(20_000);
			const short = await client(sb).post(`${M()}/v1/models/${T2I}`, { prompt: 'x' });
			expect(short.status).toBe(400);
			expect(short.data.error_code).toBe(400002);
			expect(short.data.error_message).toMatch(/^InsufficientResources/);
			expect((await bal()).balance_microdollars).toBe(20_000);
			expect(sb.state().runs).toHaveLength(2);
		});

		it('treats a zero balance as a normal answer', async () => {
			sb.configure({ walletMicrodollars: 0 });
			const res = await client(sb).get(`${sb.urls.serverless}/prod/v2/balance`);
			expect(res.status).toBe(200);
			expect(res.data.balance_microdollars).toBe(0);
		});
	});

	describe('errorsAsHttp200 quirk', () => {
		it('sends the same error bodies with HTTP 200', async () => {
			sb.configure({ quirks: { errorsAsHttp200: true } });
			const nf = await client(sb).get(`${M()}/v1/models/nobody/none`);
			expect(nf.status).toBe(200);
			expect(nf.data).toMatchObject({ error_code: 404001, name: 'ResourceNotFound' });
			const unauth = await client(sb, 'bad').get(`${M()}/v1/models`);
			expect(unauth.status).toBe(200);
			expect(unauth.data.error_code).toBe(401001);
			sb.configure({ quirks: { errorsAsHttp200: false } });
			expect((await client(sb).get(`${M()}/v1/models/nobody/none`)).status).toBe(404);
		});
	});

	describe('acceptedErrorCode fault', () => {
		it('puts the error_code beside the id of an accepted submit only; refusals and reads are unchanged', async () => {
			sb.configure({ faults: { acceptedErrorCode: 0 } });
			const sub = await client(sb).post(`${M()}/v1/models/${T2I}`, { prompt: 'a cat' });
			expect(sub.status).toBe(200);
			expect(sub.data).toMatchObject({ request_id: expect.any(String), error_code: 0 });
			expect((await client(sb).get(sub.data.status_url)).data.error_code).toBeUndefined();
			expect((await client(sb).post(`${M()}/v1/models/nobody/none`, { prompt: 'a cat' })).data.error_code).toBe(404001);
		});
	});
});
