/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * DNS rebinding against `openUrl` in the real n8n engine: a name answers a public address to the check and an
 * internal one afterwards (to our resolver and to the connection's own lookup). The fetch must connect to the
 * address it checked, at every redirect hop, and refuse answers that are not IP addresses.
 *
 * Nothing leaves the machine: the resolver is a fake, and the connection guard sends each "public" address and
 * what the names answer at connection time to loopback servers (stand-ins), recording where each connection
 * was meant to go.
 */
import tls from 'tls';

import type { IExecuteFunctions } from 'n8n-workflow';

import { UrlProblem, listedHostsPolicy, openUrl, publicHostsPolicy } from '../../nodes/shared/download';
import type { HostPolicy, HostResolver } from '../../nodes/shared/download';
import { withExecuteContext } from '../helpers/engine';
import { LoopbackHost } from '../helpers/loopbackHost';
import { guardConnections } from '../helpers/netGuard';
import type { NetGuard } from '../helpers/netGuard';

const PUBLIC_A = '93.184.215.14';
const PUBLIC_B = '93.184.215.15';
const SECRET = 'internal: iam credentials';
const FILE = 'the public file';

/** Plays the public file host (reached as PUBLIC_A / PUBLIC_B). */
let publicHost: LoopbackHost;
/** Plays the internal service a rebound name points at (what 127.0.0.1 / 169.254.169.254 would be). */
let internal: LoopbackHost;
let guard: NetGuard;

/** A rebinding name server: each name answers its public address the first time, an internal one after. */
function rebindingResolver(firstAnswers: Record<string, string[]>, later: string[] = ['127.0.0.1']) {
	const asked: string[] = [];
	const resolve: HostResolver = async (name) => {
		const first = !asked.includes(name);
		asked.push(name);
		const answer = firstAnswers[name];
		if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
		return first ? answer : later;
	};
	return { asked, resolve };
}

async function fetchText(url: string, hostPolicy: HostPolicy, resolveHost: HostResolver) {
	const credentials = {
		accessToken: 'rc-rebinding-test-token',
		modelApiBaseUrl: `${publicHost.base}/model-api`,
		serverlessApiBaseUrl: `${publicHost.base}/serverless`,
		trainerApiBaseUrl: `${publicHost.base}/trainer`,
		allowedDownloadHosts: '',
	};
	return await withExecuteContext({ credentials }, async (ctx: IExecuteFunctions) => {
		let opened;
		try {
			opened = await openUrl(ctx, url, { hostPolicy, maxBytes: 1024 * 1024, resolveHost, connectTimeoutMs: 10_000 });
			const chunks: Buffer[] = [];
			for await (const chunk of opened.stream) chunks.push(chunk as Buffer);
			return { text: Buffer.concat(chunks).toString(), finalUrl: opened.finalUrl, problem: undefined };
		} catch (error) {
			return { text: undefined, finalUrl: undefined, problem: error instanceof UrlProblem ? error : undefined, other: error };
		} finally {
			opened?.close();
		}
	});
}

const routes = (body: string) => ({
	'/latest/meta-data/': (_req: unknown, res: import('http').ServerResponse) => {
		res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(body) });
		res.end(body);
	},
});

beforeAll(async () => {
	publicHost = await new LoopbackHost({
		...routes(FILE),
		'/hop': (_req, res) => {
			res.writeHead(302, { Location: 'http://second.test:8080/latest/meta-data/', 'Content-Length': 0 });
			res.end();
		},
	}).start();
	internal = await new LoopbackHost(routes(SECRET)).start();
});

afterAll(async () => {
	await publicHost.stop();
	await internal.stop();
});

beforeEach(() => {
	publicHost.reset();
	internal.reset();
	// The public addresses lead to the public host; the names, resolved again by a connection, to the internal one.
	guard = guardConnections({
		[PUBLIC_A]: publicHost.port,
		[PUBLIC_B]: publicHost.port,
		'rebind.test': internal.port,
		'second.test': internal.port,
	});
});

afterEach(() => guard.restore());

describe('a name that answers differently after the check', () => {
	it.each([
		['Upload From URL (any public host)', publicHostsPolicy([])],
		['downloads with "*" in Allowed Download Hosts', listedHostsPolicy(['*'])],
		['downloads with "*.test" in Allowed Download Hosts', listedHostsPolicy(['*.test'])],
	])('%s: connects to the address it checked, with the name in the Host header', async (_label, policy) => {
		const dns = rebindingResolver({ 'rebind.test': [PUBLIC_A] });
		const result = await fetchText('http://rebind.test/latest/meta-data/', policy, dns.resolve);
		expect(result.other).toBeUndefined();
		expect(result.text).toBe(FILE);
		expect(result.finalUrl).toBe('http://rebind.test/latest/meta-data/');
		expect(guard.attempts).toEqual([{ host: PUBLIC_A, port: 80 }]);
		expect(internal.connections).toBe(0);
		expect(publicHost.hits.map((h) => h.headers.host)).toEqual(['rebind.test']);
		expect(dns.asked).toEqual(['rebind.test']); // resolved once, by the check
	});

	it('at a redirect hop too: the target is checked and then reached at the address checked', async () => {
		const dns = rebindingResolver({ 'rebind.test': [PUBLIC_A], 'second.test': [PUBLIC_B] }, ['169.254.169.254']);
		const result = await fetchText('http://rebind.test/hop', publicHostsPolicy([]), dns.resolve);
		expect(result.text).toBe(FILE);
		expect(result.finalUrl).toBe('http://second.test:8080/latest/meta-data/');
		expect(guard.attempts).toEqual([
			{ host: PUBLIC_A, port: 80 },
			{ host: PUBLIC_B, port: 8080 },
		]);
		expect(internal.connections).toBe(0);
		expect(publicHost.hits.map((h) => h.headers.host)).toEqual(['rebind.test', 'second.test:8080']);
	});

	it('prefers an IPv4 answer, and writes an IPv6 one in brackets', async () => {
		const ipv6 = '2606:2800:21f:cb07:6820:80da:af6b:8b2c';
		guard.restore();
		guard = guardConnections({ [ipv6]: publicHost.port, 'rebind.test': internal.port });
		const dns = rebindingResolver({ 'rebind.test': [ipv6] });
		const result = await fetchText('http://rebind.test/latest/meta-data/', publicHostsPolicy([]), dns.resolve);
		expect(result.text).toBe(FILE);
		expect(guard.attempts).toEqual([{ host: ipv6, port: 80 }]);
		const mixed = rebindingResolver({ 'rebind.test': [ipv6, PUBLIC_A] });
		guard.restore();
		guard = guardConnections({ [PUBLIC_A]: publicHost.port, [ipv6]: publicHost.port, 'rebind.test': internal.port });
		await fetchText('http://rebind.test/latest/meta-data/', publicHostsPolicy([]), mixed.resolve);
		expect(guard.attempts).toEqual([{ host: PUBLIC_A, port: 80 }]);
		expect(internal.connections).toBe(0);
	});

	it('https: the TLS server name is the host name, not the address', async () => {
		const serverNames: string[] = [];
		// No certificate: the handshake fails after the client said which name it wants.
		const tlsServer = tls.createServer({
			SNICallback: (name, done) => {
				serverNames.push(name);
				done(new Error('no certificate in this test'));
			},
		});
		tlsServer.on('tlsClientError', () => {});
		await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
		try {
			guard.restore();
			const port = (tlsServer.address() as import('net').AddressInfo).port;
			guard = guardConnections({ [PUBLIC_A]: port, 'files.rebind.test': internal.port });
			const dns = rebindingResolver({ 'files.rebind.test': [PUBLIC_A] });
			const result = await fetchText('https://files.rebind.test/a.png', publicHostsPolicy([]), dns.resolve);
			expect(result.problem?.kind).toBe('network');
			expect(guard.attempts).toEqual([{ host: PUBLIC_A, port: 443 }]);
			expect(serverNames).toEqual(['files.rebind.test']);
		} finally {
			await new Promise<void>((resolve) => tlsServer.close(() => resolve()));
		}
	});
});

describe('resolver answers that are not IP addresses are refused', () => {
	it.each([[''], ['2130706433'], ['0x7f.1'], ['localhost'], ['[::1]'], [` ${PUBLIC_A}`], ['not an address']])('%j', async (answer) => {
		for (const answers of [[answer], [PUBLIC_A, answer]]) {
			const dns = rebindingResolver({ 'rebind.test': answers });
			const result = await fetchText('http://rebind.test/latest/meta-data/', listedHostsPolicy(['*']), dns.resolve);
			expect(result.problem?.kind).toBe('unresolvable');
			expect(result.problem?.details).toMatchObject({ address: answer, code: `the answer ${JSON.stringify(answer)} is not an IP address` });
		}
		expect(guard.attempts).toEqual([]);
	});
});
