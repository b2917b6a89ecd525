import { startSandbox, STABLE_DEPLOYMENTS, STABLE_MODELS, type Sandbox } from '../../sandbox';
import { client, distinct, pollUntil } from './helpers';

const CHEAP_MODEL = STABLE_MODELS.mixedHosts;
const DEPLOYMENT = STABLE_DEPLOYMENTS.textToImage;
const OVERRIDES = { overrides: { 6: { inputs: { text: 'a lighthouse' } } } };

type RunState = ReturnType<Sandbox['state']>['runs'][number];

describe('sandbox run times and queueing', () => {
	let sb: Sandbox;
	beforeAll(async () => {
		sb = await startSandbox({ runDurationMs: 40, queueMs: 10, walletMicrodollars: 1e12 });
	});
	afterAll(async () => sb.close());
	beforeEach(() => sb.reset());

	const M = () => sb.urls.modelApi;
	const S = () => sb.urls.serverless;
	const submitModel = async (id = CHEAP_MODEL, inputs: Record<string, unknown> = {}) => {
		const res = await client(sb).post(`${M()}/v1/models/${id}`, { prompt: 'x', ...inputs });
		expect(res.status).toBe(200);
		return res.data.request_id as string;
	};
	const submitDeployment = async () => {
		const res = await client(sb).post(`${S()}/prod/v2/deployments/${DEPLOYMENT}/inference`, OVERRIDES);
		expect(res.status).toBe(200);
		return res.data.request_id as string;
	};
	const runOf = (id: string): RunState => {
		const run = sb.state().runs.find((r) => r.id === id);
		if (!run) throw new Error(`no run ${id}`);
		return run;
	};
	const durationsOf = async (count: number) => {
		const ids: string[] = [];
		for (let i = 0; i < count; i++) ids.push(await submitModel());
		return ids.map((id) => runOf(id).durationMs);
	};

	describe('spread', () => {
		const MEAN = 60_000;
		beforeEach(() => sb.reset({ runDurationMs: MEAN, queueMs: 60_000, spread: 0.2, seed: 7 }));

		it('keeps every run within ±20 % of its mean, bell-shaped around it', async () => {
			const durations = await durationsOf(150);
			for (const d of durations) {
				expect(d).toBeGreaterThanOrEqual(MEAN * 0.8);
				expect(d).toBeLessThanOrEqual(MEAN * 1.2);
			}
			expect(new Set(durations).size).toBeGreaterThan(110);
			const average = durations.reduce((a, b) => a + b, 0) / durations.length;
			expect(Math.abs(average - MEAN) / MEAN).toBeLessThan(0.03);
			// A uniform law puts half the runs within ±10 %; the mean of three uniforms about 84 %.
			const central = durations.filter((d) => Math.abs(d - MEAN) <= MEAN * 0.1).length / durations.length;
			expect(central).toBeGreaterThan(0.7);
			expect(runOf(sb.state().runs[0].id).meanMs).toBe(MEAN);
		});

		it('draws the same run times again for the same seed, other ones for another seed', async () => {
			const first = await durationsOf(20);
			sb.reset({ runDurationMs: MEAN, queueMs: 60_000, spread: 0.2, seed: 7 });
			expect(await durationsOf(20)).toEqual(first);
			sb.reset({ runDurationMs: MEAN, queueMs: 60_000, spread: 0.2, seed: 8 });
			expect(await durationsOf(20)).not.toEqual(first);
			sb.configure({ seed: 7 });
			expect(await durationsOf(20)).toEqual(first);
		});

		it('with drawsPerTarget gives the n-th run of every model the same draw, however their submits interleave', async () => {
			const other = STABLE_MODELS.textToImage;
			const interleaved = async () => {
				const ids: Record<string, string[]> = { [CHEAP_MODEL]: [], [other]: [] };
				for (let i = 0; i < 6; i++) {
					ids[CHEAP_MODEL].push(await submitModel(CHEAP_MODEL));
					if (i % 2 === 0) ids[other].push(await submitModel(other));
				}
				for (let i = 0; i < 3; i++) ids[other].push(await submitModel(other));
				return [ids[CHEAP_MODEL].map((id) => runOf(id).durationMs), ids[other].map((id) => runOf(id).durationMs)];
			};
			const [shared, sharedOther] = await interleaved();
			expect(sharedOther).not.toEqual(shared);

			sb.reset({ runDurationMs: MEAN, queueMs: 60_000, spread: 0.2, seed: 7, drawsPerTarget: true });
			const [own, ownOther] = await interleaved();
			expect(ownOther).toEqual(own);
			expect(new Set(own).size).toBe(6);
			sb.reset({ runDurationMs: MEAN, queueMs: 60_000, spread: 0.2, seed: 7 });
			expect(own).toEqual(await durationsOf(6));
		});

		it('runs exactly the mean with spread 0 (the startSandbox default)', async () => {
			sb.reset();
			sb.configure({ runDurationMs: 60_000, queueMs: 60_000 });
			expect(await durationsOf(5)).toEqual([60_000, 60_000, 60_000, 60_000, 60_000]);
		});

		it('ends each run its drawn duration after it left the queue', async () => {
			sb.configure({ runDurationMs: 40, queueMs: 10 });
			const id = await submitModel();
			const done = await pollUntil(
				async () => runOf(id),
				(r) => r.status === 'completed',
			);
			expect(done.startedAt).toBe(done.createdAt + 10);
			expect((done.finishedAt as number) - (done.startedAt as number)).toBe(done.durationMs);
			expect(done.durationMs).toBeGreaterThanOrEqual(32);
			expect(done.durationMs).toBeLessThanOrEqual(48);
		});
	});

	describe('means', () => {
		it('uses modelDurations, else runDurationMs', async () => {
			sb.configure({ queueMs: 60_000, runDurationMs: 1234, modelDurations: { [STABLE_MODELS.videoToVideo]: 777 } });
			const image = await submitModel(STABLE_MODELS.textToImage);
			const overridden = await submitModel(STABLE_MODELS.videoToVideo, { video_url: 'https://e.com/a.mp4' });
			const deployment = await submitDeployment();
			expect(runOf(image)).toMatchObject({ meanMs: 1234, durationMs: 1234 });
			expect(runOf(overridden)).toMatchObject({ meanMs: 777, durationMs: 777 });
			expect(runOf(deployment)).toMatchObject({ meanMs: 1234, durationMs: 1234 });
		});
	});

	describe('queue share', () => {
		it('spends a share of each drawn run time in_queue with queue_position, per test and per model, spread included', async () => {
			sb.configure({ runDurationMs: 600, spread: 0.2, seed: 3, queueShare: 0.5, queueShares: { [STABLE_MODELS.textToImage]: 0.8 } });
			const ids = [await submitModel(), await submitModel(), await submitModel(STABLE_MODELS.textToImage), await submitDeployment()];
			const status = async (id: string) => (await client(sb).get(`${M()}/v1/requests/${id}/status`)).data;
			expect((await Promise.all(ids.slice(0, 3).map(status))).map((s) => [s.status, s.queue_position])).toEqual([
				['in_queue', 1],
				['in_queue', 2],
				['in_queue', 1],
			]);
			const done = await pollUntil(
				async () => ids.map(runOf),
				(runs) => runs.every((r) => r.status === 'completed'),
			);
			const shares = [0.5, 0.5, 0.8, 0.5];
			done.forEach((r, i) => {
				const queued = (r.startedAt as number) - r.createdAt;
				const total = (r.finishedAt as number) - r.createdAt;
				expect(total).toBeGreaterThanOrEqual(480);
				expect(total).toBeLessThanOrEqual(720);
				expect(queued).toBe(Math.round(total * shares[i]));
				expect(r.durationMs).toBe(total - queued);
			});
			expect((done[0].finishedAt as number) - done[0].createdAt).not.toBe((done[1].finishedAt as number) - done[1].createdAt);
		});
	});

	describe('capacity', () => {
		it('queues model runs beyond the capacity per model in FIFO order; other models are not held up', async () => {
			sb.configure({ queueMs: 0, runDurationMs: 60_000, capacity: 2 });
			const ids = [await submitModel(), await submitModel(), await submitModel(), await submitModel()];
			const status = async (id: string) => (await client(sb).get(`${M()}/v1/requests/${id}/status`)).data;
			const st = await Promise.all(ids.map(status));
			expect(st.map((s) => s.status)).toEqual(['in_progress', 'in_progress', 'in_queue', 'in_queue']);
			expect(st.map((s) => s.queue_position)).toEqual([undefined, undefined, 1, 2]);
			const other = await submitModel(STABLE_MODELS.textToImage);
			expect((await status(other)).status).toBe('in_progress');
			sb.configure({ capacities: { [CHEAP_MODEL]: 3 } });
			expect((await Promise.all(ids.map(status))).map((s) => s.queue_position)).toEqual([undefined, undefined, undefined, 1]);
		});

		it('counts queue_position down as the runs ahead start; each run starts when the one ahead ends', async () => {
			// 0.8 s per run: each position is seen even when a loaded machine stalls a poll
			sb.configure({ queueMs: 0, runDurationMs: 800, capacity: 1 });
			const ids: string[] = [];
			for (let i = 0; i < 4; i++) ids.push(await submitModel());
			const positions: Array<number | string> = [];
			await pollUntil(
				async () => (await client(sb).get(`${M()}/v1/requests/${ids[3]}/status`)).data,
				(s) => {
					positions.push(s.status === 'in_queue' ? s.queue_position : s.status);
					return s.status === 'completed';
				},
			);
			const seen = distinct(positions);
			expect(seen.slice(-2)).toEqual(['in_progress', 'completed']);
			const queued = seen.slice(0, -2) as number[];
			expect(queued.length).toBeGreaterThan(0);
			for (let i = 1; i < queued.length; i++) expect(queued[i]).toBeLessThan(queued[i - 1]);
			expect(queued[queued.length - 1]).toBe(1);
			const runs = ids.map(runOf);
			for (let i = 1; i < runs.length; i++) {
				expect(runs[i].startedAt).toBe(runs[i - 1].finishedAt);
				expect((runs[i].finishedAt as number) - (runs[i].startedAt as number)).toBe(runs[i].durationMs);
			}
		});

		it('queues deployment requests per deployment; a cancelled request lets the next one start', async () => {
			sb.configure({ queueMs: 0, runDurationMs: 60_000, capacity: 1 });
			const ids = [await submitDeployment(), await submitDeployment(), await submitDeployment()];
			const base = (id: string) => `${S()}/prod/v2/deployments/${DEPLOYMENT}/requests/${id}`;
			const status = async (id: string) => (await client(sb).get(`${base(id)}/status`)).data;
			expect((await Promise.all(ids.map(status))).map((s) => s.queue_position ?? s.status)).toEqual(['in_progress', 1, 2]);
			expect((await client(sb).post(`${base(ids[0])}/cancel`)).data.status).toBe('cancelled');
			expect((await Promise.all(ids.map(status))).map((s) => s.queue_position ?? s.status)).toEqual(['cancelled', 'in_progress', 1]);
			const [cancelled, second] = [runOf(ids[0]), runOf(ids[1])];
			expect(second.startedAt).toBe(cancelled.finishedAt);
			expect(runOf(ids[2]).startedAt).toBeNull();
		});
	});
});
