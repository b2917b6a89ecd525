/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * Dataset → Upload From URL in the real n8n engine with the sandbox on loopback: public http(s) only, no token
 * to the file host, internal addresses refused (by form, and by resolving names through n8n's egress lookup,
 * faked here) before anything connects, redirects checked at every hop, Content-Disposition names, the 150 MB
 * cap that closes the connection, the body streamed to the dataset (never held in memory), and an upload that
 * fails on the way repeated with a fresh fetch.
 */
import { createRequire } from 'module';
import type { LookupFunction } from 'net';

import { runNode } from '../helpers/engine';
import { getService } from '../helpers/engine-runtime';
import { LoopbackHost, streamBytes } from '../helpers/loopbackHost';
import { startMeteringProxy } from '../helpers/meteringProxy';
import { guardConnections } from '../helpers/netGuard';
import type { NetGuard } from '../helpers/netGuard';
import { FAST, createDataset, credentialsFor, datasetNode, datasetParams, isDatasetUpload, trainerCalls, useSandbox } from './setup';

const sb = useSandbox();

const filesOf = (id: string) =>
	Object.fromEntries((sb.state().datasets.find((d) => d.id === id)?.files ?? []).map((f) => [f.filename, f.size_bytes]));

/** The fake DNS behind n8n's egress lookup in this file: hostile names and the addresses they stand for. */
const FAKE_DNS: Record<string, string[]> = {
	'169.254.169.254.nip.io': ['169.254.169.254'],
	redis: ['10.0.0.7'],
	'cgnat.example': ['100.64.0.9'],
};
const lookups: string[] = [];
const fakeLookup = ((
	hostname: string,
	_options: unknown,
	callback: (e: Error | null, a: Array<{ address: string; family: number }>) => void,
) => {
	lookups.push(hostname);
	const found = FAKE_DNS[hostname];
	if (!found) callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
	else
		callback(
			null,
			found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
		);
}) as unknown as LookupFunction;

// n8n's OutboundHttp (the service behind helpers.getSecureEgressFilter) answers with the fake lookup.
const requireFromCore = createRequire(require.resolve('n8n-core'));
const { OutboundHttp } = requireFromCore('@n8n/backend-network') as { OutboundHttp: new () => { egressFilter: (p?: string) => unknown } };

/**
 * The chunked file over the 150 MB cap: far more than the cap plus the socket buffers between host and node, so a
 * fetch that goes on after the cap cannot look stopped.
 */
const BIG_FILE_BYTES = 1_000_000_000;
const MiB = 1024 * 1024;

let guard: NetGuard;
let restoreEgress: () => void;
let host: LoopbackHost;

beforeAll(async () => {
	host = await new LoopbackHost({
		'/': (_req, res) => {
			res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Disposition': 'attachment; filename="100%.png"', 'Content-Length': 3 });
			res.end('png');
		},
		'/big/*': (_req, res, hit) => streamBytes(res, hit, BIG_FILE_BYTES),
		'/sized/*': (req, res, hit) => {
			const n = Number((req.url ?? '').split('/')[2]);
			streamBytes(res, hit, n, { 'Content-Length': n, 'Content-Type': 'image/png' });
		},
	}).start();
});

afterAll(async () => {
	await host.stop();
});

beforeEach(() => {
	sb.reset(FAST);
	host.reset();
	lookups.length = 0;
	const outbound = getService(OutboundHttp);
	const original = outbound.egressFilter.bind(outbound);
	outbound.egressFilter = (policy?: string) => ({ ...(original(policy) as object), createSecureLookup: () => fakeLookup });
	restoreEgress = () => {
		outbound.egressFilter = original;
	};
	guard = guardConnections();
});

afterEach(() => {
	guard.restore();
	restoreEgress();
});

describe('Upload From URL', () => {
	it('fetches a public file without the token and uploads it under its URL name (or the File Name option)', async () => {
		const id = await createDataset(sb, 'from-url');
		const result = await runNode({
			node: datasetNode,
			credentials: credentialsFor(sb),
			parameters: datasetParams('uploadFromUrl', id, { url: '={{ $json.url }}', options: { fileName: '={{ $json.name }}' } }),
			inputItems: [
				{ json: { url: `${sb.urls.files}/files/photos/img_0042.png`, name: '' } },
				{ json: { url: `${sb.urls.files}/files/photos/raw.jpg?x=1`, name: 'renamed.jpg' } },
			],
		});
		expect(result.error).toBeUndefined();
		expect(result.items.map((i) => [i.json.file_name, i.json.upload_method, i.json.dataset_status])).toEqual([
			['img_0042.png', 'direct', 'READY'],
			['renamed.jpg', 'direct', 'READY'],
		]);
		const files = filesOf(id);
		expect(Object.keys(files).sort()).toEqual(['img_0042.png', 'renamed.jpg']);
		expect(files['img_0042.png']).toBe(result.items[0].json.size_bytes);
		const fetched = sb.log().filter((e) => e.api === 'files' && e.method === 'GET');
		expect(fetched).toHaveLength(2);
		expect(fetched.every((e) => e.authorization === undefined)).toBe(true);
		// client-side fetch: the service got multipart uploads, never a source_url
		expect(
			sb
				.log()
				.filter(isDatasetUpload)
				.map((e) => Object.keys(e.body as object)),
		).toEqual([['file'], ['file']]);
	});

	it('names the file from a Content-Disposition with a stray "%" (no URIError)', async () => {
		const id = await createDataset(sb, 'disposition');
		const result = await runNode({
			node: datasetNode,
			credentials: credentialsFor(sb),
			parameters: datasetParams('uploadFromUrl', id, { url: host.url('/?id=1') }),
		});
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toMatchObject({ file_name: '100%.png', size_bytes: 3 });
		expect(filesOf(id)).toEqual({ '100%.png': 3 });
	});

	describe('internal addresses', () => {
		// Literal loopback hosts: even a regression would only reach the sandbox, whose log then shows the request.
		const port = () => new URL(sb.urls.files).port;
		it.each([
			[
				"localhost (the sandbox's foreign host)",
				() => `${sb.urls.foreignFiles}/files/a.png`,
				'localhost is a loopback address (this machine)',
			],
			['a *.localhost name', () => `http://files.localhost:${port()}/files/a.png`, 'files.localhost is a loopback address (this machine)'],
			['IPv6 loopback', () => `http://[::1]:${port()}/files/a.png`, '[::1] is a loopback address (this machine)'],
			['127.0.0.1', () => `${sb.urls.files}/files/a.png`, '127.0.0.1 is a loopback address (this machine)'],
			['127.0.0.1 written as a number', () => `http://2130706433:${port()}/files/a.png`, '127.0.0.1 is a loopback address (this machine)'],
			[
				'IPv4-mapped IPv6 loopback',
				() => `http://[::ffff:127.0.0.1]:${port()}/files/a.png`,
				'[::ffff:7f00:1] is a loopback address (this machine) (it leads to 127.0.0.1)',
			],
			['0.0.0.0', () => `http://0.0.0.0:${port()}/files/a.png`, '0.0.0.0 is an unspecified address (this machine)'],
		])('refuses %s before any call, naming the fix', async (_what, url, problem) => {
			const id = await createDataset(sb, 'internal');
			sb.clearLog();
			// the credential's default Allowed Download Hosts (the sandbox's usual list allows 127.0.0.1)
			const credentials = credentialsFor(sb, { allowedDownloadHosts: '*.runcomfy.net, *.runcomfy.com' });
			const result = await runNode({ node: datasetNode, credentials, parameters: datasetParams('uploadFromUrl', id, { url: url() }) });
			expect(result.status).toBe('error');
			expect(result.error?.message).toBe(`Cannot upload from "${url()}": ${problem}`);
			expect(result.error?.description).toMatch(/^n8n downloads the file itself, so addresses inside your network are refused/);
			expect(result.error?.description).toContain('to "Allowed Download Hosts" in the RunComfy credential');
			expect(sb.log()).toHaveLength(0);
		});

		it.each([
			[
				'http://169.254.169.254.nip.io/latest/meta-data/iam/security-credentials/',
				'169.254.169.254',
				'a link-local address (e.g. a cloud metadata service)',
			],
			['http://redis:6379/', '10.0.0.7', 'a private network address'],
			['http://cgnat.example/a.png', '100.64.0.9', 'a carrier-grade NAT address (100.64.0.0/10, inside a provider network)'],
		])('resolves %s through n8n (→ %s) and refuses it before connecting', async (url, address, label) => {
			const id = await createDataset(sb, 'resolved');
			sb.clearLog();
			const result = await runNode({
				node: datasetNode,
				credentials: credentialsFor(sb, { allowedDownloadHosts: '*' }),
				parameters: datasetParams('uploadFromUrl', id, { url }),
			});
			const name = new URL(url).hostname;
			expect(result.error?.message).toBe(`Cannot upload from "${url}": ${name} resolves to ${address}, ${label}`);
			expect(result.error?.description).toContain(`add its host (${name}) to "Allowed Download Hosts"`);
			expect(lookups).toEqual([name]);
			expect(guard.offMachine()).toEqual([]);
			expect(trainerCalls(sb).filter(isDatasetUpload)).toHaveLength(0);
		});

		it('refuses an internal host that only a wildcard allows ("*" or "*.name"), before any call', async () => {
			const id = await createDataset(sb, 'star');
			for (const allowed of ['*', '*.localhost']) {
				sb.clearLog();
				const url = `${sb.urls.foreignFiles}/files/a.png`;
				const result = await runNode({
					node: datasetNode,
					credentials: credentialsFor(sb, { allowedDownloadHosts: allowed }),
					parameters: datasetParams('uploadFromUrl', id, { url }),
				});
				expect(result.error?.message).toBe(`Cannot upload from "${url}": localhost is a loopback address (this machine)`);
				expect(result.error?.description).toContain('add its host (localhost) to "Allowed Download Hosts"');
				expect(sb.log()).toHaveLength(0);
			}
		});

		it('fetches an internal host that Allowed Download Hosts names exactly', async () => {
			const id = await createDataset(sb, 'allowed-internal');
			sb.clearLog();
			const result = await runNode({
				node: datasetNode,
				credentials: credentialsFor(sb, { allowedDownloadHosts: '127.0.0.1, localhost' }),
				parameters: datasetParams('uploadFromUrl', id, { url: `${sb.urls.foreignFiles}/files/internal/server.png` }),
			});
			expect(result.error).toBeUndefined();
			expect(result.items[0].json).toMatchObject({ file_name: 'server.png', upload_method: 'direct' });
			expect(
				sb
					.log()
					.filter((e) => e.api === 'foreign' && e.method === 'GET')
					.map((e) => e.path),
			).toEqual(['/files/internal/server.png']);
			expect(Object.keys(filesOf(id))).toEqual(['server.png']);
		});

		it('follows a redirect only to a host it would fetch itself', async () => {
			// A file host on the allowed 127.0.0.1 that redirects to localhost (internal, and not named), then to a
			// name that resolves to the metadata address.
			const redirector = await new LoopbackHost({
				'/photo.png': (_req, res) => {
					res.writeHead(302, { Location: `${sb.urls.foreignFiles}/files/moved/photo.png` });
					res.end();
				},
				'/meta.png': (_req, res) => {
					res.writeHead(302, { Location: 'http://169.254.169.254.nip.io/latest/meta-data/' });
					res.end();
				},
			}).start();
			try {
				const id = await createDataset(sb, 'redirected');
				sb.clearLog();
				const start = redirector.url('/photo.png');
				const refused = await runNode({
					node: datasetNode,
					credentials: credentialsFor(sb),
					parameters: datasetParams('uploadFromUrl', id, { url: start }),
				});
				expect(refused.error?.message).toBe(
					`Cannot upload from "${start}": it redirects to ${sb.urls.foreignFiles}/files/moved/photo.png, and localhost is a loopback address (this machine); the redirect was not followed`,
				);
				expect(refused.error?.description).toContain('add its host (localhost) to "Allowed Download Hosts"');
				expect(sb.log()).toHaveLength(0);

				const meta = redirector.url('/meta.png');
				const refusedMeta = await runNode({
					node: datasetNode,
					credentials: credentialsFor(sb),
					parameters: datasetParams('uploadFromUrl', id, { url: meta }),
				});
				expect(refusedMeta.error?.message).toBe(
					`Cannot upload from "${meta}": it redirects to http://169.254.169.254.nip.io/latest/meta-data/, and 169.254.169.254.nip.io resolves to 169.254.169.254, a link-local address (e.g. a cloud metadata service); the redirect was not followed`,
				);
				expect(guard.offMachine()).toEqual([]);

				const followed = await runNode({
					node: datasetNode,
					credentials: credentialsFor(sb, { allowedDownloadHosts: '127.0.0.1, localhost' }),
					parameters: datasetParams('uploadFromUrl', id, { url: start }),
				});
				expect(followed.error).toBeUndefined();
				expect(followed.items[0].json).toMatchObject({ file_name: 'photo.png', source_url: start });
				expect(
					sb
						.log()
						.filter((e) => e.api === 'foreign')
						.map((e) => e.path),
				).toEqual(['/files/moved/photo.png']);
				expect(Object.keys(filesOf(id))).toEqual(['photo.png']);
			} finally {
				await redirector.stop();
			}
		});
	});

	it('says what the file host answered when it is not the file (HTTP 404), uploading nothing', async () => {
		const id = await createDataset(sb, 'gone');
		const url = `${sb.urls.files}/files/outputs/no-such-request/0.png`;
		const result = await runNode({
			node: datasetNode,
			credentials: credentialsFor(sb),
			parameters: datasetParams('uploadFromUrl', id, { url }),
		});
		expect(result.error?.message).toBe(`Cannot upload from "${url}": the file host answered HTTP 404`);
		expect(result.error?.description).toMatch(/opens the file in a browser/);
		expect(
			sb
				.log()
				.filter((e) => e.api === 'files')
				.map((e) => e.status),
		).toEqual([404]);
		expect(trainerCalls(sb).filter(isDatasetUpload)).toHaveLength(0);
	});

	it('refuses a file whose Content-Length is over 150 MB, reading and uploading nothing', async () => {
		const id = await createDataset(sb, 'too-big');
		const result = await runNode({
			node: datasetNode,
			credentials: credentialsFor(sb),
			parameters: datasetParams('uploadFromUrl', id, { url: `${sb.urls.files}/files/gen/150000001/huge.mp4` }),
		});
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe(
			`The file at ${sb.urls.files}/files/gen/150000001/huge.mp4 is larger than 150 MB (150000001 bytes declared)`,
		);
		expect(result.error?.description).toMatch(/use Upload File/);
		expect(trainerCalls(sb).filter(isDatasetUpload)).toHaveLength(0);
	});

	it('streams a file without Content-Length into the upload and stops at 150 MB: connection closed, nothing kept, bytes passed on as they came', async () => {
		const id = await createDataset(sb, 'chunked-over');
		const url = host.url('/big/clip.mp4');
		// The trainer API behind a metering proxy: where the file host stood when the upload had its first MiB.
		let sentAtFirstMiB: number | undefined;
		const trainer = await startMeteringProxy(sb.urls.trainer, {
			onBody: (r) => {
				if (r.url.endsWith('/upload') && r.received >= MiB && sentAtFirstMiB === undefined) sentAtFirstMiB = host.hits[0].sent;
			},
		});
		let result;
		try {
			result = await runNode({
				node: datasetNode,
				credentials: credentialsFor(sb, { trainerApiBaseUrl: trainer.url }),
				parameters: datasetParams('uploadFromUrl', id, { url }),
			});
		} finally {
			await trainer.close();
		}
		expect(result.error?.message).toBe(`The file at ${url} is larger than 150 MB (more than 150000000 bytes received)`);
		await host.hits[0].hungUp; // the request was aborted: the file host saw the connection close
		expect(host.hits[0].sent).toBeLessThan(BIG_FILE_BYTES);
		expect(filesOf(id)).toEqual({});
		// The bytes went through, not into memory: the upload had its first MiB (more than any multipart envelope)
		// while the fetch was still far from the cap, ahead by no more than the buffers in between. A node that holds
		// the file first never starts this upload (the file is over the cap). Memory: `npm run bench` (Memory).
		expect(sentAtFirstMiB).toBeDefined();
		expect(sentAtFirstMiB!).toBeLessThan(150_000_000);
	}, 120_000);

	it('streams a file with Content-Length into the upload with the exact size', async () => {
		const id = await createDataset(sb, 'sized');
		const result = await runNode({
			node: datasetNode,
			credentials: credentialsFor(sb),
			parameters: datasetParams('uploadFromUrl', id, { url: host.url('/sized/5000000/frame.png') }),
		});
		expect(result.error).toBeUndefined();
		expect(result.items[0].json).toMatchObject({ file_name: 'frame.png', size_bytes: 5_000_000 });
		expect(filesOf(id)).toEqual({ 'frame.png': 5_000_000 });
		const upload = sb.log().filter(isDatasetUpload)[0];
		expect(upload.body).toMatchObject({ file: { filename: 'frame.png', size: 5_000_000, contentType: 'image/png' } });
	});

	it('repeats an upload that failed with a 5xx, fetching the file again (a stream is sent once)', async () => {
		const id = await createDataset(sb, 'retried');
		// seed 8: the first upload answers 500, the second goes through
		sb.configure({ faults: { rate5xx: 0.5, seed: 8, pathPrefixes: [`/prod/v1/trainers/datasets/${id}/upload`] } });
		const result = await runNode({
			node: datasetNode,
			credentials: credentialsFor(sb),
			parameters: datasetParams('uploadFromUrl', id, { url: host.url('/sized/1000/retry.png') }),
		});
		expect(result.error).toBeUndefined();
		expect(
			sb
				.log()
				.filter(isDatasetUpload)
				.map((e) => e.status),
		).toEqual([500, 200]);
		expect(host.hits.map((h) => h.url)).toEqual(['/sized/1000/retry.png', '/sized/1000/retry.png']);
		expect(filesOf(id)).toEqual({ 'retry.png': 1000 });
	});
});
