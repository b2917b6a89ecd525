/* eslint-disable @n8n/community-nodes/no-restricted-imports */
import dns from 'dns';
import net from 'net';

import { startSandbox, STABLE_DEPLOYMENTS, type RequestLogEntry, type Sandbox } from '../../sandbox';
import { client, pollUntil } from './helpers';
import { startReceiver, type Receiver } from './webhook-receiver';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { refusalReason } = require('../../sandbox/webhook-delivery') as {
	refusalReason: (url: string) => string | null;
};

const DEPLOYMENT = STABLE_DEPLOYMENTS.textToImage;
const OVERRIDES = { overrides: { 6: { inputs: { text: 'a lighthouse' } } } };
const FAST_RETRIES = { baseDelayMs: 5, maxDelayMs: 50 };

describe('sandbox webhooks', () => {
	let sb: Sandbox;
	let receiver: Receiver;
	beforeAll(async () => {
		sb = await startSandbox({ runDurationMs: 30, queueMs: 10 });
		receiver = await startReceiver();
	});
	afterAll(async () => {
		await sb.close();
		await receiver.close();
	});
	beforeEach(() => {
		sb.reset({ webhooks: FAST_RETRIES });
		receiver.deliveries.length = 0;
		receiver.answerWith(() => 200);
	});

	const S = () => sb.urls.serverless;
	const base = (rid: string) => `${S()}/prod/v2/deployments/${DEPLOYMENT}/requests/${rid}`;
	const submit = async (webhook?: string, intermediate?: boolean, body: Record<string, unknown> = OVERRIDES) => {
		const params = { ...(webhook ? { webhook } : {}), ...(intermediate ? { webhook_intermediate_status: 'true' } : {}) };
		const res = await client(sb).post(`${S()}/prod/v2/deployments/${DEPLOYMENT}/inference`, body, { params });
		expect(res.status).toBe(200);
		return res.data.request_id as string;
	};
	const hookEntries = (rid?: string) => sb.log().filter((e) => e.api === 'webhook' && (!rid || e.requestId === rid));
	const waitForEntries = async (rid: string, done: (entries: RequestLogEntry[]) => boolean) =>
		await pollUntil(async () => hookEntries(rid), done);
	/** Waits until the final event of `rid` got a 2xx on a first delivery (not a chaos duplicate). */
	const waitForFinal = async (rid: string) =>
		await waitForEntries(rid, (es) =>
			es.some((e) => !e.duplicate && e.status === 200 && !['in_queue', 'in_progress'].includes(e.event as string)),
		);
	const deliveredTo = (rid: string) => receiver.deliveries.filter((d) => d.body.request_id === rid);

	it('posts in_queue, in_progress and the final event as JSON with webhook_intermediate_status=true, and logs each', async () => {
		const rid = await submit(receiver.url('/hook/1?itemIndex=0&signature=s3cret'), true);
		await waitForFinal(rid);
		const got = deliveredTo(rid);
		expect(got.map((d) => d.body.status)).toEqual(['in_queue', 'in_progress', 'succeeded']);
		for (const d of got) {
			expect(d).toMatchObject({ path: '/hook/1', query: { itemIndex: '0', signature: 's3cret' } });
			expect(d.headers['content-type']).toBe('application/json');
			expect(d.headers.authorization).toBeUndefined();
			expect(d.body).toMatchObject({ request_id: rid, deployment_id: DEPLOYMENT, created_at: expect.any(String) });
		}
		expect(got[0].body.queue_position).toBe(1);
		expect(got[1].body.instance_id).toEqual(expect.any(String));
		const result = (await client(sb).get(`${base(rid)}/result`)).data;
		expect(got[2].body).toEqual({ deployment_id: DEPLOYMENT, ...result });
		expect(got[2].body.outputs['9'].images).toHaveLength(1);

		const entries = hookEntries(rid);
		expect(entries.map((e) => [e.event, e.attempt, e.status, e.duplicate, e.outOfOrder])).toEqual([
			['in_queue', 1, 200, false, false],
			['in_progress', 1, 200, false, false],
			['succeeded', 1, 200, false, false],
		]);
		for (const e of entries) {
			expect(e).toMatchObject({
				method: 'POST',
				path: '/hook/1',
				query: { itemIndex: '0', signature: 'REDACTED' },
				deploymentId: DEPLOYMENT,
			});
			expect(e.url).toBe(receiver.url('/hook/1?itemIndex=0&signature=REDACTED'));
		}
		expect(JSON.stringify(entries)).not.toContain('s3cret');
		expect(sb.state().runs[0].webhook).toContain('signature=REDACTED');
	});

	it('sends only the final event without the flag, takes the legacy body fields, and reports failed and cancelled runs', async () => {
		const plain = await submit(receiver.url('/plain'));
		await waitForFinal(plain);
		expect(deliveredTo(plain).map((d) => d.body.status)).toEqual(['succeeded']);

		const legacy = await submit(undefined, false, { ...OVERRIDES, webhook: receiver.url('/legacy'), webhook_intermediate_status: true });
		await waitForFinal(legacy);
		expect(deliveredTo(legacy).map((d) => [d.path, d.body.status])).toEqual([
			['/legacy', 'in_queue'],
			['/legacy', 'in_progress'],
			['/legacy', 'succeeded'],
		]);

		sb.configure({ failingModels: { [DEPLOYMENT]: 'out of memory' } });
		const failing = await submit(receiver.url('/failing'));
		await waitForFinal(failing);
		const [failed] = deliveredTo(failing);
		expect(failed.body).toMatchObject({ status: 'failed', request_id: failing, finished_at: expect.any(String) });
		expect(failed.body.error[0]).toMatchObject({ errorCode: expect.any(Number), error: 'out of memory' });
		expect(failed.body.outputs).toBeUndefined();

		sb.configure({ queueMs: 60_000 });
		const queued = await submit(receiver.url('/cancelled'), true);
		await waitForEntries(queued, (es) => es.some((e) => e.event === 'in_queue' && e.status === 200));
		expect((await client(sb).post(`${base(queued)}/cancel`)).data.status).toBe('cancelled');
		await waitForFinal(queued);
		expect(deliveredTo(queued).map((d) => d.body.status)).toEqual(['in_queue', 'cancelled']);
	});

	it('retries a 500 with growing waits until a 2xx comes back', async () => {
		receiver.answerWith((_d, i) => (i < 2 ? 500 : 200));
		const rid = await submit(receiver.url('/flaky'));
		await waitForFinal(rid);
		const entries = hookEntries(rid);
		expect(entries.map((e) => [e.attempt, e.status, e.event])).toEqual([
			[1, 500, 'succeeded'],
			[2, 500, 'succeeded'],
			[3, 200, 'succeeded'],
		]);
		// waits of baseDelayMs, then twice that (timers never fire early by more than a millisecond)
		expect(entries[1].time - entries[0].time).toBeGreaterThanOrEqual(FAST_RETRIES.baseDelayMs - 1);
		expect(entries[2].time - entries[1].time).toBeGreaterThanOrEqual(2 * FAST_RETRIES.baseDelayMs - 1);
		const bodies = deliveredTo(rid).map((d) => JSON.stringify(d.body));
		expect(bodies).toHaveLength(3);
		expect(new Set(bodies).size).toBe(1);
	});

	it('treats an unanswered delivery as failed after timeoutMs and retries it', async () => {
		// 2 s: the first attempt hangs; the second is answered at once, well within it however loaded the machine
		sb.configure({ webhooks: { timeoutMs: 2000 } });
		receiver.answerWith((_d, i) => (i === 0 ? 'hang' : 200));
		const rid = await submit(receiver.url('/slow'));
		await waitForFinal(rid);
		expect(hookEntries(rid).map((e) => [e.attempt, e.status, e.error])).toEqual([
			[1, 0, 'timeout'],
			[2, 200, undefined],
		]);
	});

	it('gives up after maxAttempts and marks the last attempt', async () => {
		sb.configure({ webhooks: { maxAttempts: 3 } });
		receiver.answerWith(() => 503);
		const rid = await submit(receiver.url('/down'));
		await waitForEntries(rid, (es) => es.some((e) => e.gaveUp));
		// a later request to the same receiver goes through; the first one got no fourth attempt meanwhile
		receiver.answerWith(() => 204);
		const next = await submit(receiver.url('/down'));
		await waitForEntries(next, (es) => es.some((e) => e.status === 204));
		expect(hookEntries(rid).map((e) => [e.attempt, e.status, e.gaveUp ?? false])).toEqual([
			[1, 503, false],
			[2, 503, false],
			[3, 503, true],
		]);
	});

	it('sends every event twice with duplicateRate 1 and after the later ones with outOfOrderRate 1', async () => {
		sb.configure({ webhooks: { duplicateRate: 1 } });
		const dup = await submit(receiver.url('/dup'));
		await waitForEntries(dup, (es) => es.filter((e) => e.status === 200).length === 2);
		expect(hookEntries(dup).map((e) => [e.event, e.status, e.duplicate])).toEqual([
			['succeeded', 200, false],
			['succeeded', 200, true],
		]);
		expect(deliveredTo(dup).map((d) => d.body)).toEqual([deliveredTo(dup)[0].body, deliveredTo(dup)[0].body]);

		sb.configure({ webhooks: { duplicateRate: 0, outOfOrderRate: 1, holdMs: 10 } });
		const late = await submit(receiver.url('/late'), true);
		await waitForEntries(late, (es) => es.filter((e) => e.status === 200).length === 3);
		expect(deliveredTo(late).map((d) => d.body.status)).toEqual(['succeeded', 'in_queue', 'in_progress']);
		expect(hookEntries(late).every((e) => e.outOfOrder)).toBe(true);
	});

	it('rolls duplicates and out-of-order deliveries from the seed: same seed, same pattern', async () => {
		const chaos = { ...FAST_RETRIES, duplicateRate: 0.5, outOfOrderRate: 0.5, holdMs: 5 };
		const pattern = async () => {
			const flags: string[] = [];
			for (let i = 0; i < 10; i++) {
				const rid = await submit(receiver.url(`/chaos/${i}`));
				const entries = await waitForFinal(rid);
				flags.push(`${entries.some((e) => e.outOfOrder) ? 'late' : 'on-time'}/${entries.some((e) => e.duplicate) ? 'twice' : 'once'}`);
			}
			return flags;
		};
		sb.reset({ seed: 3, webhooks: chaos });
		const first = await pattern();
		expect(new Set(first).size).toBeGreaterThan(1);
		sb.reset({ seed: 3, webhooks: chaos });
		expect(await pattern()).toEqual(first);
	});

	it('refuses targets that are not loopback, before any connection or name lookup, and logs the refusal', async () => {
		const connects: string[] = [];
		const lookups: string[] = [];
		let privateTarget = '';
		let publicName = '';
		const realConnect = net.Socket.prototype.connect;
		const realLookup = dns.lookup;
		const loopback = (host: string) => host === 'localhost' || host === '::1' || host.startsWith('127.');
		// eslint-disable-next-line @typescript-eslint/no-explicit-any
		net.Socket.prototype.connect = function (this: net.Socket, ...args: any[]) {
			// net.connect and http pass one normalized [options, callback] array
			const first = Array.isArray(args[0]) ? args[0][0] : args[0];
			const host = String(typeof first === 'object' ? (first.host ?? 'localhost') : (args[1] ?? 'localhost'));
			connects.push(host);
			if (!loopback(host)) throw new Error(`test guard: connect to ${host} blocked`);
			return realConnect.apply(this, args as never);
		} as typeof realConnect;
		// eslint-disable-next-line @typescript-eslint/no-explicit-any
		(dns as any).lookup = (host: string, ...rest: any[]) => {
			lookups.push(host);
			const callback = rest[rest.length - 1];
			if (!loopback(host)) return callback(Object.assign(new Error('test guard: lookup blocked'), { code: 'ENOTFOUND' }));
			return (realLookup as (...a: unknown[]) => void)(host, ...rest);
		};
		try {
			// the guards see real connections: one to the receiver, made here
			const probe = await submit(receiver.url('/probe'));
			await waitForFinal(probe);
			// One after the other, so the log's order below does not depend on which of two runs ends first.
			privateTarget = await submit('http://10.0.0.1:9/hook?signature=abc', true);
			await waitForEntries(privateTarget, (es) => es.some((e) => e.event === 'succeeded'));
			publicName = await submit('https://hooks.example.com/runcomfy');
			await waitForEntries(publicName, (es) => es.some((e) => e.event === 'succeeded'));
		} finally {
			net.Socket.prototype.connect = realConnect;
			(dns as { lookup: typeof realLookup }).lookup = realLookup;
		}
		expect(connects).toContain('127.0.0.1');
		expect(connects.filter((h) => h.includes('10.0.0.1') || h.includes('example.com'))).toEqual([]);
		expect(lookups.filter((h) => h.includes('example.com'))).toEqual([]);
		const refused = hookEntries()
			.filter((e) => e.path !== '/probe')
			.map((e) => [e.path, e.event, e.attempt, e.status, e.error]);
		expect(refused).toEqual([
			['/hook', 'in_queue', 1, 0, undefined],
			['/hook', 'in_progress', 1, 0, undefined],
			['/hook', 'succeeded', 1, 0, undefined],
			['/runcomfy', 'succeeded', 1, 0, undefined],
		]);
		for (const e of hookEntries(privateTarget).concat(hookEntries(publicName))) expect(e.refused).toMatch(/is not a loopback host/);
		expect(hookEntries(privateTarget)[0].url).toBe('http://10.0.0.1:9/hook?signature=REDACTED');
	});

	it('decides refusals on the URL text: loopback literals and localhost pass', () => {
		for (const ok of [
			'http://127.0.0.1:1/a',
			'http://127.9.8.7/',
			'http://[::1]:5678/x',
			'http://localhost:5678/',
			'http://[::ffff:127.0.0.1]/',
		]) {
			expect(refusalReason(ok)).toBeNull();
		}
		for (const bad of [
			'http://10.0.0.1/',
			'http://192.168.1.2/',
			'http://[::ffff:10.0.0.1]/',
			'http://localhost.example.com/',
			'http://hooks.example.com/',
		]) {
			expect(refusalReason(bad)).toMatch(/is not a loopback host/);
		}
		expect(refusalReason('ftp://127.0.0.1/')).toMatch(/scheme/);
		expect(refusalReason('not a url')).toBe('invalid URL');
	});

	it('delivers to localhost', async () => {
		const rid = await submit(receiver.url('/by-name').replace('127.0.0.1', 'localhost'));
		await waitForFinal(rid);
		expect(deliveredTo(rid).map((d) => [d.path, d.body.status])).toEqual([['/by-name', 'succeeded']]);
	});
});
