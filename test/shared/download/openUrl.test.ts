/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * `openUrl` in the real n8n engine against loopback file hosts: hostile URLs refused before any connection (a
 * fake resolver maps names to the addresses under test; a connection guard refuses and records anything that
 * is not loopback), redirects vetted at every hop, the connect and total timeouts, the size cap that closes the
 * connection, Content-Disposition names, n8n's own SSRF protection alongside, and the resolver n8n provides.
 */
import { createRequire } from 'module';

import type { IExecuteFunctions } from 'n8n-workflow';

import { UrlProblem, downloadAll, egressResolverOf, listedHostsPolicy, openUrl, publicHostsPolicy } from '../../../nodes/shared/download';
import type { HostResolver, OpenUrlOptions } from '../../../nodes/shared/download';
import { withExecuteContext } from '../../helpers/engine';
import { getService } from '../../helpers/engine-runtime';
import type { RunComfyCredentialData } from '../../helpers/engine';
import { LoopbackHost, streamBytes } from '../../helpers/loopbackHost';
import { guardConnections } from '../../helpers/netGuard';
import type { NetGuard } from '../../helpers/netGuard';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

/** The fake DNS of this file: names of hostile URLs and the addresses they stand for. Nothing else resolves. */
const FAKE_DNS: Record<string, string[]> = {
	'169.254.169.254.nip.io': ['169.254.169.254'],
	redis: ['10.0.0.7'],
	'internal.example': ['192.168.1.20'],
	'cgnat.example': ['100.64.0.9'],
	'bench.example': ['198.18.0.5'],
	'mapped.example': ['::ffff:172.16.5.4'],
};
const lookups: string[] = [];
const fakeResolver: HostResolver = async (name) => {
	lookups.push(name);
	const found = FAKE_DNS[name];
	if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
	return found;
};

let host: LoopbackHost;
let guard: NetGuard;

const credentials = (): RunComfyCredentialData => ({
	accessToken: 'rc-openurl-test-token',
	modelApiBaseUrl: `${host.base}/model-api`,
	serverlessApiBaseUrl: `${host.base}/serverless`,
	trainerApiBaseUrl: `${host.base}/trainer`,
	allowedDownloadHosts: '127.0.0.1',
});

const run = async <T>(fn: (ctx: IExecuteFunctions) => Promise<T>): Promise<T> =>
	await withExecuteContext({ credentials: credentials() }, fn);

/** openUrl under a policy, reading the whole body; resolves with what came back or the UrlProblem. */
async function fetchAll(url: string, options: Partial<OpenUrlOptions> & Pick<OpenUrlOptions, 'hostPolicy'>) {
	return await run(async (ctx) => {
		let opened;
		try {
			opened = await openUrl(ctx, url, { maxBytes: 1024 * 1024, resolveHost: fakeResolver, ...options });
			const chunks: Buffer[] = [];
			for await (const chunk of opened.stream) chunks.push(chunk as Buffer);
			return { body: Buffer.concat(chunks), opened, problem: undefined };
		} catch (error) {
			return { body: undefined, opened, problem: error instanceof UrlProblem ? error : undefined, other: error };
		} finally {
			opened?.close();
		}
	});
}

beforeAll(async () => {
	host = await new LoopbackHost({
		'/img.png': (_req, res) => {
			res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': PNG.length });
			res.end(PNG);
		},
		'/to/*': (req, res) => {
			res.writeHead(302, { Location: decodeURIComponent((req.url ?? '').slice('/to/'.length)), 'Content-Length': 0 });
			res.end();
		},
		'/silent': () => {
			// accepts the request and never answers
		},
		'/trickle': (_req, res, hit) => {
			// the first byte goes with the headers, so the client has it however slow the machine
			res.writeHead(200, { 'Content-Type': 'video/mp4' });
			res.write('x');
			hit.sent++;
			const stop = host.every(20, () => {
				if (res.destroyed) return stop();
				res.write('x');
				hit.sent++;
			});
		},
		// 1 GiB: far more than the socket buffers between host and client, so a transfer that goes on cannot look cut short
		'/big': (_req, res, hit) => streamBytes(res, hit, 1024 * 1024 * 1024),
		'/cd/percent': (_req, res) => {
			res.writeHead(200, { 'Content-Disposition': 'attachment; filename="100%.png"', 'Content-Length': 1 });
			res.end('x');
		},
		'/cd/extended': (_req, res) => {
			res.writeHead(200, {
				'Content-Disposition': `attachment; filename="fallback.png"; filename*=UTF-8''50%25%20off%20%E2%82%AC.png`,
				'Content-Length': 1,
			});
			res.end('x');
		},
		'/cd/broken': (_req, res) => {
			res.writeHead(200, {
				'Content-Disposition': `attachment; filename*=UTF-8''bad%zz%E0.png; filename="plain %ZZ name.png"`,
				'Content-Length': 1,
			});
			res.end('x');
		},
	}).start();
});

afterAll(async () => {
	await host.stop();
});

beforeEach(() => {
	host.reset();
	lookups.length = 0;
	guard = guardConnections();
});

afterEach(() => guard.restore());

describe('hostile URLs are refused before anything connects', () => {
	it.each([
		['http://169.254.169.254.nip.io/latest/meta-data/', '169.254.169.254', 'link-local'],
		['http://redis:6379/', '10.0.0.7', 'private'],
		['http://internal.example/a.png', '192.168.1.20', 'private'],
		['http://cgnat.example/a.png', '100.64.0.9', 'shared'],
		['http://bench.example/a.png', '198.18.0.5', 'benchmark'],
		['http://mapped.example/a.png', '::ffff:172.16.5.4', 'private'],
	])('%s (resolves to %s, %s)', async (url, address, kind) => {
		// Upload From URL's policy (any public host) and the download policy with a lone "*"
		for (const hostPolicy of [publicHostsPolicy(['127.0.0.1']), listedHostsPolicy(['*'])]) {
			const { problem } = await fetchAll(url, { hostPolicy });
			expect(problem?.kind).toBe('internal-address');
			expect(problem?.details).toMatchObject({ address, addressKind: kind, resolved: true });
		}
		expect(lookups).toEqual([new URL(url).hostname, new URL(url).hostname]);
		expect(guard.attempts).toEqual([]); // not even loopback: nothing connected anywhere
	});

	it.each([
		['http://[64:ff9b::a9fe:a9fe]/latest/meta-data/', 'link-local'],
		['http://[::ffff:a9fe:a9fe]/', 'link-local'],
		['http://100.100.100.200/latest/meta-data/', 'shared'],
		['http://198.18.0.1/', 'benchmark'],
		['http://10.0.0.1/', 'private'],
	])('the literal %s (%s)', async (url, kind) => {
		const { problem } = await fetchAll(url, { hostPolicy: listedHostsPolicy(['*']) });
		expect(problem?.kind).toBe('internal-address');
		expect(problem?.details.addressKind).toBe(kind);
		expect(lookups).toEqual([]);
		expect(guard.attempts).toEqual([]);
	});

	it('refuses a redirect from an allowed loopback host to an internal address, after one request to the first', async () => {
		for (const target of ['http://169.254.169.254.nip.io/latest/meta-data/', 'http://10.1.2.3/', 'http://[64:ff9b::a9fe:a9fe]/']) {
			host.reset();
			const start = host.url(`/to/${encodeURIComponent(target)}`);
			// the loopback host is named exactly (so it may be fetched); the redirect target only matches "*"
			const { problem } = await fetchAll(start, { hostPolicy: listedHostsPolicy(['127.0.0.1', '*']) });
			expect(problem?.kind).toBe('internal-address');
			expect(problem?.details.hop).toBe(1);
			expect(problem?.url).toBe(target);
			expect(host.hits.map((h) => h.url)).toEqual([new URL(start).pathname]);
		}
		expect(guard.offMachine()).toEqual([]);
		expect(guard.to(host.port)).toHaveLength(3); // the guard sees connections: one to the loopback host per target
		expect(guard.attempts).toHaveLength(3);
	});

	it('follows a redirect to a host the policy names exactly, even an internal one', async () => {
		const target = `http://localhost:${host.port}/img.png`;
		const { body, opened } = await fetchAll(host.url(`/to/${encodeURIComponent(target)}`), {
			hostPolicy: listedHostsPolicy(['127.0.0.1', 'localhost']),
		});
		expect(body).toEqual(PNG);
		expect(opened?.finalUrl).toBe(target);
		expect(lookups).toEqual([]); // named exactly: not even resolved
	});

	it('refuses a loopback host reached only through "*" (downloads), and lets the exact entry through', async () => {
		const refused = await fetchAll(host.url('/img.png'), { hostPolicy: listedHostsPolicy(['*']) });
		expect(refused.problem?.kind).toBe('internal-address');
		expect(host.connections).toBe(0);
		const allowed = await fetchAll(host.url('/img.png'), { hostPolicy: listedHostsPolicy(['*', '127.0.0.1']) });
		expect(allowed.body).toEqual(PNG);
	});
});

describe('timeouts', () => {
	it('gives up on a host that accepts and never answers (connect timeout), closing the connection', async () => {
		const { problem } = await fetchAll(host.url('/silent'), { hostPolicy: listedHostsPolicy(['127.0.0.1']), connectTimeoutMs: 100 });
		expect(problem?.kind).toBe('timeout');
		expect(problem?.details.timeout).toBe('connect');
		await host.hits[0].hungUp;
	});

	it('the total timeout also covers waiting for the answer', async () => {
		const { problem } = await fetchAll(host.url('/silent'), { hostPolicy: listedHostsPolicy(['127.0.0.1']), totalTimeoutMs: 100 });
		expect(problem?.kind).toBe('timeout');
		expect(problem?.details.timeout).toBe('total');
		await host.hits[0].hungUp;
	});

	it('stops a trickling body at the total timeout and closes the connection', async () => {
		const outcome = await run(async (ctx) => {
			// 2 s: the headers and the first byte come at once; the body never ends
			const opened = await openUrl(ctx, host.url('/trickle'), {
				hostPolicy: listedHostsPolicy(['127.0.0.1']),
				maxBytes: 1024 * 1024,
				totalTimeoutMs: 2000,
			});
			try {
				for await (const chunk of opened.stream) void chunk;
				return { error: undefined, failure: opened.failure(), read: opened.bytesRead() };
			} catch (error) {
				return { error, failure: opened.failure(), read: opened.bytesRead() };
			} finally {
				opened.close();
			}
		});
		expect(outcome.error).toBeInstanceOf(UrlProblem);
		expect((outcome.error as UrlProblem).kind).toBe('timeout');
		expect(outcome.failure?.details.timeout).toBe('total');
		expect(outcome.read).toBeGreaterThan(0); // the headers came in time; the body did not finish
		await host.hits[0].hungUp;
	});
});

describe('the size cap', () => {
	it('aborts the request when the count passes the cap: the file host sees the connection closed', async () => {
		const { problem, opened } = await fetchAll(host.url('/big'), { hostPolicy: listedHostsPolicy(['127.0.0.1']), maxBytes: 100_000 });
		expect(problem?.kind).toBe('too-large');
		expect(opened?.failure()?.kind).toBe('too-large');
		await host.hits[0].hungUp;
		expect(host.hits[0].sent).toBeLessThan(1024 * 1024 * 1024);
	});
});

describe('Content-Disposition names', () => {
	it.each([
		['/cd/percent', '100%.png'],
		['/cd/extended', '50% off €.png'],
		['/cd/broken', 'plain %ZZ name.png'],
	])('%s gives %j (a stray "%" never throws)', async (path, name) => {
		const { opened, problem } = await fetchAll(host.url(path), { hostPolicy: listedHostsPolicy(['127.0.0.1']) });
		expect(problem).toBeUndefined();
		expect(opened?.dispositionName).toBe(name);
	});
});

describe("n8n's resolver and n8n's own SSRF protection", () => {
	const requireFromCore = createRequire(require.resolve('n8n-core'));
	const { SsrfProtectionConfig } = requireFromCore('@n8n/config') as { SsrfProtectionConfig: new () => { enabled: boolean } };

	it('resolves names with the egress filter n8n gives nodes (a plain lookup while SSRF protection is off)', async () => {
		const addresses = await run(async (ctx) => await egressResolverOf(ctx)!('localhost'));
		expect(addresses.length).toBeGreaterThan(0);
		expect(addresses.every((a) => a === '127.0.0.1' || a === '::1')).toBe(true);
		expect(egressResolverOf({ helpers: {} } as unknown as IExecuteFunctions)).toBeUndefined(); // older n8n
	});

	it('with N8N_SSRF_PROTECTION_ENABLED, n8n still blocks what our list allows, and our own refusals come first', async () => {
		const config = getService(SsrfProtectionConfig);
		config.enabled = true;
		try {
			// our list names 127.0.0.1 exactly; n8n's default policy blocks loopback anyway, before connecting
			const blocked = await fetchAll(host.url('/img.png'), { hostPolicy: listedHostsPolicy(['127.0.0.1']) });
			expect(blocked.problem?.kind).toBe('blocked-by-n8n');
			expect(host.connections).toBe(0);
			// n8n's lookup refuses a name that resolves to loopback
			const viaLookup = await run(
				async (ctx) =>
					await egressResolverOf(ctx)!('localhost').then(
						() => 'resolved',
						(e: Error) => e.name,
					),
			);
			expect(viaLookup).toBe('SsrfBlockedIpError');
			// a hostile name is refused by our check (fake resolver), as without n8n's protection
			const ours = await fetchAll('http://redis:6379/', { hostPolicy: publicHostsPolicy([]) });
			expect(ours.problem?.kind).toBe('internal-address');
		} finally {
			config.enabled = false;
		}
		expect(guard.offMachine()).toEqual([]);
	});
});

describe('downloadAll with hostile outputs', () => {
	it('skips internal and unresolvable outputs with "*" allowed, and still downloads the named host', async () => {
		const urls = [
			{ path: 'output[0]', url: 'http://169.254.169.254.nip.io/latest/meta-data/iam' },
			{ path: 'output[1]', url: 'http://redis:6379/' },
			{ path: 'output[2]', url: 'http://[64:ff9b::a9fe:a9fe]/x.png' },
			{ path: 'output[3]', url: host.url('/img.png') },
		];
		const result = await run(
			async (ctx) => await downloadAll(ctx, urls, { maxBytes: 1024 * 1024, allowedHosts: ['*', '127.0.0.1'], resolveHost: fakeResolver }),
		);
		expect(result.downloaded.map((d) => d.path)).toEqual(['output[3]']);
		expect(result.skipped.map((s) => s.reason)).toEqual([
			'169.254.169.254.nip.io resolves to 169.254.169.254, a link-local address (e.g. a cloud metadata service); internal addresses are downloaded only from a host named exactly in "Allowed Download Hosts" (a wildcard is not enough)',
			'redis resolves to 10.0.0.7, a private network address; internal addresses are downloaded only from a host named exactly in "Allowed Download Hosts" (a wildcard is not enough)',
			'[64:ff9b::a9fe:a9fe] is a link-local address (e.g. a cloud metadata service) (it leads to 169.254.169.254); internal addresses are downloaded only from a host named exactly in "Allowed Download Hosts" (a wildcard is not enough)',
		]);
		expect(guard.offMachine()).toEqual([]);
	});
});
