import { STABLE_DEPLOYMENTS } from '../../sandbox';
import { client, distinct, pollUntil, useStartedSandbox } from './helpers';

const T2I = STABLE_DEPLOYMENTS.textToImage;
const I2I = STABLE_DEPLOYMENTS.imageToImage;
const PNG_DATA_URI =
	'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

describe('sandbox deployments', () => {
	const sb = useStartedSandbox({ runDurationMs: 30, queueMs: 10 });

	const S = () => sb.urls.serverless;
	const infer = (id: string, body: unknown, ver = 'v2') => client(sb).post(`${S()}/prod/${ver}/deployments/${id}/inference`, body);

	describe('CRUD', () => {
		it('lists wrapped by default and as a bare array with the quirk', async () => {
			const wrapped = (await client(sb).get(`${S()}/prod/v2/deployments`)).data;
			expect(wrapped.deployments.map((d: { id: string }) => d.id)).toEqual(expect.arrayContaining(Object.values(STABLE_DEPLOYMENTS)));
			expect(wrapped.deployments[0].payload).toBeUndefined();
			expect(wrapped.deployments[0]).toMatchObject({
				name: expect.any(String),
				workflow_id: expect.any(String),
				workflow_version: 'v1',
				hardware: [expect.any(String)],
				min_instances: 0,
				max_instances: 1,
				queue_size: 1,
				keep_warm_duration_in_seconds: 60,
				is_enabled: true,
				status: 'standby',
			});
			sb.configure({ quirks: { bareDeploymentList: true } });
			const bare = (await client(sb).get(`${S()}/prod/v2/deployments`)).data;
			expect(Array.isArray(bare)).toBe(true);
		});

		it('filters by repeatable ids and adds payload / readme on request', async () => {
			const res = await client(sb).get(`${S()}/prod/v2/deployments?ids=${T2I}&ids=${I2I}&includes=payload&includes=readme`);
			const list = res.data.deployments;
			expect(list.map((d: { id: string }) => d.id).sort()).toEqual([T2I, I2I].sort());
			const t2i = list.find((d: { id: string }) => d.id === T2I);
			expect(t2i.readme).toMatch(/#/);
			expect(t2i.workflow_api_json).toBeUndefined();
			const g = t2i.payload.workflow_api_json;
			expect(g['3'].class_type).toBe('KSampler');
			expect(g['4'].class_type).toBe('CheckpointLoaderSimple');
			expect(g['6']).toMatchObject({ class_type: 'CLIPTextEncode', _meta: { title: 'CLIP Text Encode (Prompt)' } });
			expect(g['7'].class_type).toBe('CLIPTextEncode');
			expect(g['9'].class_type).toBe('SaveImage');
			expect(t2i.payload.overrides['6'].inputs.text).toEqual(expect.any(String));
			expect(t2i.payload.object_info_url).toEqual(expect.any(String));
			const i2i = list.find((d: { id: string }) => d.id === I2I);
			expect(Object.values(i2i.payload.workflow_api_json).map((n) => (n as { class_type: string }).class_type)).toContain('LoadImage');
		});

		it('gets one deployment, with top-level workflow_api_json for include_payload=true', async () => {
			const plain = (await client(sb).get(`${S()}/prod/v2/deployments/${T2I}`)).data;
			expect(plain.id).toBe(T2I);
			expect(plain.payload).toBeUndefined();
			const withPayload = (await client(sb).get(`${S()}/prod/v2/deployments/${T2I}`, { params: { include_payload: true } })).data;
			expect(withPayload.workflow_api_json['9'].class_type).toBe('SaveImage');
			expect((await client(sb).get(`${S()}/prod/v2/deployments/nope`)).status).toBe(404);
		});

		it('creates with validation, patches, pauses and deletes', async () => {
			const bad = await client(sb).post(`${S()}/prod/v2/deployments`, { name: 'x', hardware: ['AMPERE_48', 'ADA_80_PLUS'] });
			expect(bad.status).toBe(422);
			const locs = bad.data.detail.map((d: { loc: string[] }) => d.loc.join('.'));
			expect(locs).toEqual(expect.arrayContaining(['body.workflow_id', 'body.hardware', 'body.min_instances']));
			const created = await client(sb).post(`${S()}/prod/v2/deployments`, {
				name: 'mine',
				workflow_id: '0b9f7a8e-1c2d-4e3f-8a9b-000000000002',
				workflow_version: 'v3',
				hardware: ['ADA_80_PLUS'],
				min_instances: 0,
				max_instances: 2,
				queue_size: 1,
				keep_warm_duration_in_seconds: 30,
			});
			expect(created.status).toBe(200);
			const id = created.data.id;
			const full = (await client(sb).get(`${S()}/prod/v2/deployments/${id}?includes=payload`)).data;
			expect(Object.values(full.payload.workflow_api_json).map((n) => (n as { class_type: string }).class_type)).toContain('LoadImage');

			const patched = await client(sb).patch(`${S()}/prod/v2/deployments/${id}`, { is_enabled: false });
			expect(patched.data).toMatchObject({ is_enabled: false, status: 'paused', name: 'mine' });
			expect((await infer(id, { overrides: {} })).data.error_code).toBe(10002);
			expect((await client(sb).patch(`${S()}/prod/v2/deployments/${id}`, { workflow_id: 'x' })).status).toBe(422);
			sb.configure({ quirks: { patchRequiresName: true } });
			const noName = await client(sb).patch(`${S()}/prod/v2/deployments/${id}`, { is_enabled: true });
			expect(noName.status).toBe(422);
			expect(noName.data.detail[0].msg).toMatch(/name is required/);
			expect((await client(sb).patch(`${S()}/prod/v2/deployments/${id}`, { name: 'mine', is_enabled: true })).data.is_enabled).toBe(true);

			expect((await client(sb).delete(`${S()}/prod/v2/deployments/${id}`)).data).toEqual({ id, deleted: true });
			expect((await client(sb).get(`${S()}/prod/v2/deployments/${id}`)).status).toBe(404);
			const gone = await infer(id, { overrides: {} });
			expect(gone.status).toBe(410);
			expect(gone.data.error_code).toBe(10003);
		});
	});

	describe('inference', () => {
		it('rejects an empty body, unknown nodes/inputs and bad values with 422 detail, creating nothing', async () => {
			const empty = await infer(T2I, {});
			expect(empty.status).toBe(422);
			const noBody = await client(sb).post(`${S()}/prod/v2/deployments/${T2I}/inference`);
			expect(noBody.status).toBe(422);
			const bad = await infer(T2I, {
				overrides: { 99: { inputs: { text: 'x' } }, 6: { inputs: { txt: 'x' } }, 3: { inputs: { steps: 'many', seed: 1.5 } } },
				extra: 1,
			});
			expect(bad.status).toBe(422);
			expect(bad.data.error_code).toBe(422001);
			const locs = bad.data.detail.map((d: { loc: string[] }) => d.loc.join('.'));
			expect(locs).toEqual(
				expect.arrayContaining([
					'body.overrides.99',
					'body.overrides.6.inputs.txt',
					'body.overrides.3.inputs.steps',
					'body.overrides.3.inputs.seed',
					'body.extra',
				]),
			);
			expect(bad.data.detail.find((d: { loc: string[] }) => d.loc.join('.') === 'body.overrides.6.inputs.txt').msg).toMatch(
				/no input 'txt'/,
			);
			const notInputs = await infer(T2I, { overrides: { 6: { text: 'x' } } });
			expect(notInputs.status).toBe(422);
			expect(sb.state().runs).toHaveLength(0);
		});

		it('accepts https URLs and data: URIs for file inputs, rejects http and malformed data URIs', async () => {
			expect((await infer(I2I, { overrides: { 10: { inputs: { image: PNG_DATA_URI } } } })).status).toBe(200);
			expect((await infer(I2I, { overrides: { 10: { inputs: { image: 'https://example.com/cat.png' } } } })).status).toBe(200);
			const http = await infer(I2I, { overrides: { 10: { inputs: { image: 'http://example.com/cat.png' } } } });
			expect(http.status).toBe(422);
			expect(http.data.detail[0].loc).toEqual(['body', 'overrides', '10', 'inputs', 'image']);
			const malformed = await infer(I2I, { overrides: { 10: { inputs: { image: 'data:;base64,@@@' } } } });
			expect(malformed.status).toBe(422);
		});

		it('refuses a paused deployment with 10002 DisabledDeployment', async () => {
			const res = await infer(STABLE_DEPLOYMENTS.paused, { overrides: { 6: { inputs: { text: 'x' } } } });
			expect(res.status).toBe(403);
			expect(res.data.error_code).toBe(10002);
			expect(res.data.error_message).toMatch(/DisabledDeployment/);
		});

		it('runs on v1 and v2 paths through in_queue -> in_progress (instance_id) -> completed, outputs per node', async () => {
			// 1 s in each state: every state is seen even when a loaded machine stalls a poll
			sb.configure({ queueMs: 1000, runDurationMs: 1000 });
			for (const ver of ['v1', 'v2']) {
				const sub = await infer(I2I, { overrides: { 6: { inputs: { text: 'a cat' } }, 10: { inputs: { image: PNG_DATA_URI } } } }, ver);
				expect(sub.status).toBe(200);
				const rid = sub.data.request_id;
				const base = `${S()}/prod/${ver}/deployments/${I2I}/requests/${rid}`;
				expect(sub.data).toEqual({
					request_id: rid,
					status_url: `${base}/status`,
					result_url: `${base}/result`,
					cancel_url: `${base}/cancel`,
				});
				const seen: string[] = [];
				let instance = '';
				await pollUntil(
					async () => {
						const s = (await client(sb).get(`${base}/status`)).data;
						seen.push(s.status);
						if (s.status === 'in_queue') expect(s.queue_position).toBe(1);
						if (s.status === 'in_progress') instance = s.instance_id;
						else expect(s.instance_id).toBeUndefined();
						return s.status;
					},
					(s) => s === 'completed',
				);
				expect(distinct(seen)).toEqual(['in_queue', 'in_progress', 'completed']);
				expect(instance).toEqual(expect.any(String));
				const result = (await client(sb).get(`${base}/result`)).data;
				expect(result.status).toBe('succeeded');
				expect(result.outputs['9'].images[0]).toMatchObject({ filename: 'img2img_00001_.png', subfolder: '', type: 'output' });
				expect(result.outputs['9'].images[0].url.startsWith(`${sb.urls.files}/files/outputs/${rid}/`)).toBe(true);
				expect(result.outputs['13'].text[0][0]).toEqual(expect.any(String));
				expect(result.created_at).toEqual(expect.any(String));
				expect(result.finished_at).toEqual(expect.any(String));
			}
		});

		it('makes one image per EmptyLatentImage batch and honours workflow_api_json', async () => {
			sb.configure({ queueMs: 0, runDurationMs: 0 });
			const sub = (await infer(T2I, { overrides: { 5: { inputs: { batch_size: 3 } } } })).data;
			const r = (await client(sb).get(sub.result_url)).data;
			expect(r.outputs['9'].images).toHaveLength(3);
			const graph = {
				1: { class_type: 'LoadImage', inputs: { image: 'a.png' } },
				2: { class_type: 'SaveImage', inputs: { filename_prefix: 'mine', images: ['1', 0] } },
			};
			const sub2 = (await infer(T2I, { workflow_api_json: graph, overrides: { 1: { inputs: { image: 'https://e.com/x.png' } } } })).data;
			const r2 = (await client(sb).get(sub2.result_url)).data;
			expect(Object.keys(r2.outputs)).toEqual(['2']);
			expect(r2.outputs['2'].images[0].filename).toBe('mine_00001_.png');
			expect((await infer(T2I, { workflow_api_json: { 1: { inputs: {} } } })).status).toBe(422);
		});

		it('serves inference only under the versions allowed by inferencePaths', async () => {
			sb.configure({ queueMs: 0, runDurationMs: 0, quirks: { inferencePaths: 'v1' } });
			expect((await infer(T2I, { overrides: {} }, 'v2')).status).toBe(404);
			const v1 = await infer(T2I, { overrides: {} }, 'v1');
			expect(v1.status).toBe(200);
			expect((await client(sb).get(v1.data.status_url)).status).toBe(200);
			sb.configure({ quirks: { inferencePaths: 'v2' } });
			expect((await infer(T2I, { overrides: {} }, 'v1')).status).toBe(404);
			expect((await infer(T2I, { overrides: {} }, 'v2')).status).toBe(200);
		});

		it('fails runs of deployments listed in failingModels with an error array', async () => {
			sb.configure({ queueMs: 0, runDurationMs: 0, failingModels: { [T2I]: 'Value not in list: ckpt_name' } });
			const sub = (await infer(T2I, { overrides: {} })).data;
			const r = (await client(sb).get(sub.result_url)).data;
			expect(r.status).toBe('failed');
			expect(r.error[0]).toMatchObject({ errorCode: 1, error: 'Value not in list: ckpt_name' });
		});

		it('charges a fixed price and refuses with 402 10001 when short', async () => {
			sb.reset({ walletMicrodollars: 30_000, deploymentPriceMicrodollars: 20_000 });
			expect((await infer(T2I, { overrides: {} })).status).toBe(200);
			const short = await infer(T2I, { overrides: {} });
			expect(short.status).toBe(402);
			expect(short.data.error_code).toBe(10001);
			expect(sb.state().walletMicrodollars).toBe(10_000);
			expect(sb.state().runs).toHaveLength(1);
		});

		it('answers 404 for a request of another deployment or a model request id', async () => {
			const rid = (await infer(T2I, { overrides: {} })).data.request_id;
			expect((await client(sb).get(`${S()}/prod/v2/deployments/${I2I}/requests/${rid}/status`)).status).toBe(404);
			const mid = (await client(sb).post(`${sb.urls.modelApi}/v1/models/${sb.stable.models.textToImage}`, { prompt: 'x' })).data.request_id;
			expect((await client(sb).get(`${S()}/prod/v2/deployments/${T2I}/requests/${mid}/status`)).status).toBe(404);
		});
	});

	describe('cancel, delete and proxy', () => {
		it('cancels queued or running requests (contract) and not completed ones', async () => {
			sb.configure({ queueMs: 60_000 });
			const q = (await infer(T2I, { overrides: {} })).data;
			const cq = await client(sb).post(q.cancel_url);
			expect(cq.data).toMatchObject({ request_id: q.request_id, status: 'cancelled', outcome: 'cancelled' });
			expect((await client(sb).get(q.status_url)).data.status).toBe('cancelled');
			expect((await client(sb).get(q.result_url)).data.status).toBe('cancelled');

			sb.configure({ queueMs: 0, runDurationMs: 60_000 });
			const r = (await infer(T2I, { overrides: {} })).data;
			expect((await client(sb).get(r.status_url)).data.status).toBe('in_progress');
			expect((await client(sb).post(r.cancel_url)).data.outcome).toBe('cancelled');
			expect((await client(sb).get(r.status_url)).data.status).toBe('cancelled');

			sb.configure({ runDurationMs: 0, quirks: { americanCanceled: true } });
			const done = (await infer(T2I, { overrides: {} })).data;
			expect((await client(sb).post(done.cancel_url)).data).toMatchObject({ outcome: 'not_cancellable' });
			expect((await client(sb).get(done.result_url)).data.status).toBe('succeeded');
			expect((await client(sb).get(r.status_url)).data.status).toBe('canceled');
		});

		it('answers cancellation_requested with the quirk and turns cancelled after two polls', async () => {
			sb.configure({ queueMs: 0, runDurationMs: 60_000, cancelDelayMs: 60_000, quirks: { deploymentCancelRequested: true } });
			const r = (await infer(T2I, { overrides: {} })).data;
			const c = await client(sb).post(r.cancel_url);
			expect(c.data).toEqual({ request_id: r.request_id, status: 'cancellation_requested' });
			expect(c.data.outcome).toBeUndefined();
			expect((await client(sb).get(r.status_url)).data.status).toBe('in_progress');
			expect((await client(sb).get(r.status_url)).data.status).toBe('cancelled');
			sb.configure({ runDurationMs: 0 });
			const done = (await infer(T2I, { overrides: {} })).data;
			expect((await client(sb).post(done.cancel_url)).data).toEqual({ request_id: done.request_id, status: 'not_cancellable' });
		});

		it('turns cancelled after cancelDelayMs with the quirk', async () => {
			sb.configure({ queueMs: 0, runDurationMs: 60_000, cancelDelayMs: 50, quirks: { deploymentCancelRequested: true } });
			const r = (await infer(T2I, { overrides: {} })).data;
			await client(sb).post(r.cancel_url);
			const run = () => sb.state().runs.find((x) => x.id === r.request_id);
			await pollUntil(
				async () => run()?.status,
				(s) => s === 'cancelled',
			);
		});

		it('deletes a request: status 404 and output files gone', async () => {
			sb.configure({ queueMs: 0, runDurationMs: 0 });
			const r = (await infer(T2I, { overrides: {} })).data;
			const url = (await client(sb).get(r.result_url)).data.outputs['9'].images[0].url;
			expect((await client(sb, null).get(url)).status).toBe(200);
			const del = await client(sb).delete(`${S()}/prod/v2/deployments/${T2I}/requests/${r.request_id}`);
			expect(del.data).toEqual({ request_id: r.request_id, deleted: true });
			expect((await client(sb).get(r.status_url)).status).toBe(404);
			expect((await client(sb, null).get(url)).status).toBe(404);
		});

		it('proxies to a live instance only', async () => {
			sb.configure({ queueMs: 0, runDurationMs: 60_000 });
			const r = (await infer(T2I, { overrides: {} })).data;
			const instance = (await client(sb).get(r.status_url)).data.instance_id;
			const proxy = (iid: string, path: string) => client(sb).post(`${S()}/prod/v2/deployments/${T2I}/instances/${iid}/proxy/${path}`, {});
			const free = await proxy(instance, 'api/free');
			expect(free.status).toBe(200);
			const stats = await proxy(instance, 'system_stats');
			expect(stats.data.devices[0].type).toBe('cuda');
			expect((await proxy(instance, 'no/such/route')).status).toBe(404);
			expect((await proxy('00000000-0000-0000-0000-000000000000', 'api/free')).status).toBe(404);
		});
	});
});
