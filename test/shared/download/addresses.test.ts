/**
 * nodes/shared/download/addresses.ts: which addresses are internal (localhost names, loopback, private,
 * link-local, unspecified, CGNAT, benchmark, multicast and reserved ranges, and IPv6 forms that lead to them),
 * in every way a URL can write them; when Allowed Download Hosts lets n8n fetch one anyway; and the check of a
 * hop with a fake resolver. Nothing here opens a connection or asks a real DNS server.
 */
import { UrlProblem, internalHostProblem, pinnedTarget, vetHost } from '../../../nodes/shared/download';
import { addressKind, internalAddressKind, mappedIpv4Of } from '../../../nodes/shared/net';
import type { HostPermission, HostResolver } from '../../../nodes/shared/download';

/** The hostname exactly as a request would see it. */
const hostOf = (url: string) => new URL(url).hostname;

describe('internalAddressKind', () => {
	it.each([
		// names
		['localhost', 'loopback'],
		['LOCALHOST.', 'loopback'],
		['files.localhost', 'loopback'],
		['a.b.localhost', 'loopback'],
		// IPv4 loopback 127.0.0.0/8
		['127.0.0.1', 'loopback'],
		['127.255.255.254', 'loopback'],
		// private 10/8, 172.16/12, 192.168/16
		['10.0.0.1', 'private'],
		['10.255.255.255', 'private'],
		['172.16.0.1', 'private'],
		['172.31.255.255', 'private'],
		['192.168.0.1', 'private'],
		['192.168.255.255', 'private'],
		// link-local 169.254/16 (cloud metadata services)
		['169.254.169.254', 'link-local'],
		['169.254.0.1', 'link-local'],
		// unspecified (0.0.0.0/8, "this network")
		['0.0.0.0', 'unspecified'],
		['0.1.2.3', 'unspecified'],
		// IPv6, with or without brackets
		['::1', 'loopback'],
		['[::1]', 'loopback'],
		['0:0:0:0:0:0:0:1', 'loopback'],
		['::', 'unspecified'],
		['[::]', 'unspecified'],
		['fc00::1', 'private'],
		['fd12:3456:789a::1', 'private'],
		['[fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff]', 'private'],
		['fe80::1', 'link-local'],
		['febf:ffff::1', 'link-local'],
		// IPv4-mapped IPv6: the IPv4 address is what is reached
		['::ffff:127.0.0.1', 'loopback'],
		['::ffff:7f00:1', 'loopback'],
		['[::ffff:a9fe:a9fe]', 'link-local'],
		['::ffff:10.1.2.3', 'private'],
		['::ffff:0.0.0.0', 'unspecified'],
		['::ffff:0:a9fe:a9fe', 'link-local'], // IPv4-translated
		// IPv4-compatible (::a.b.c.d, deprecated): what it carries, and reserved when that is public
		['::127.0.0.1', 'loopback'],
		['::a9fe:a9fe', 'link-local'],
		['::2', 'unspecified'],
		['::8.8.8.8', 'reserved'],
		// NAT64 (64:ff9b::/96) reaches the IPv4 address it carries; the local-use prefix is private anyway
		['64:ff9b::a9fe:a9fe', 'link-local'],
		['[64:ff9b::169.254.169.254]', 'link-local'],
		['64:ff9b::a00:1', 'private'],
		['64:ff9b::7f00:1', 'loopback'],
		['64:ff9b:1::a00:1', 'private'],
		['64:ff9b:1::808:808', 'private'],
		// 6to4 (2002:aabb:ccdd::/48) carries an IPv4 address too
		['2002:a9fe:a9fe::1', 'link-local'],
		['2002:c0a8:101::1', 'private'],
		// CGNAT shared space 100.64/10
		['100.64.0.1', 'shared'],
		['100.127.255.255', 'shared'],
		['::ffff:100.100.100.200', 'shared'], // the Alibaba Cloud metadata address, IPv4-mapped
		// benchmarking 198.18/15
		['198.18.0.1', 'benchmark'],
		['198.19.255.255', 'benchmark'],
		// multicast, and reserved ranges (documentation, 240/4, broadcast, IETF assignments)
		['224.0.0.1', 'multicast'],
		['239.255.255.250', 'multicast'],
		['ff02::1', 'multicast'],
		['240.0.0.1', 'reserved'],
		['255.255.255.255', 'reserved'],
		['192.0.0.8', 'reserved'],
		['192.0.2.10', 'reserved'],
		['198.51.100.7', 'reserved'],
		['203.0.113.9', 'reserved'],
		['2001:db8::1', 'reserved'],
		['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'], // Teredo
		['100::1', 'reserved'],
		['fec0::1', 'private'], // the retired site-local range
	])('%s is %s', (host, kind) => {
		expect(internalAddressKind(host)).toBe(kind);
	});

	it.each([
		'example.com',
		'runcomfy.net',
		'files.runcomfy.com',
		'localhost.example.com', // only a name ending in .localhost is loopback
		'mylocalhost',
		'127.0.0.1.nip.io', // a name: not resolved here
		'8.8.8.8',
		'1.1.1.1',
		'126.255.255.255',
		'128.0.0.1',
		'9.255.255.255',
		'11.0.0.0',
		'172.15.255.255',
		'172.32.0.0',
		'192.167.255.255',
		'192.169.0.0',
		'169.253.255.255',
		'169.255.0.0',
		'1.0.0.0',
		'2001:4860:4860::8888',
		'[2606:4700::1111]',
		'fbff::1', // just below fc00::/7
		'fe00::1', // between fc00::/7 and fe80::/10
		'::ffff:8.8.8.8',
		'64:ff9b::808:808', // NAT64 to a public address
		'2002:808:808::1', // 6to4 of a public address
		'100.63.255.255', // just below 100.64/10
		'100.128.0.0', // just above it
		'198.17.255.255', // just below 198.18/15
		'198.20.0.0', // just above it
		'223.255.255.255', // just below multicast
		'192.0.1.1',
		'2001:db9::1',
		'',
		'not a host',
		'1:2:3:4:5:6:7:8:9',
		'1::2::3',
		'999.1.1.1',
	])('%s is not internal', (host) => {
		expect(internalAddressKind(host)).toBeUndefined();
	});

	it.each([
		['http://2130706433/', 'loopback'], // 127.0.0.1 as one number
		['http://0x7f.1/', 'loopback'], // hexadecimal, short form
		['http://0177.0.0.1/', 'loopback'], // octal
		['http://127.1/', 'loopback'],
		['http://0/', 'unspecified'],
		['http://012.1.2.3/', 'private'], // 10.1.2.3 in octal
		['http://0xa9.0xfe.0xa9.0xfe/', 'link-local'],
		['http://[::ffff:127.0.0.1]/', 'loopback'],
		['http://[0:0:0:0:0:ffff:c0a8:0101]/', 'private'],
		['http://LocalHost:8080/', 'loopback'],
		['http://localhost./', 'loopback'],
	])('reads %s as a request does (%s)', (url, kind) => {
		expect(internalAddressKind(hostOf(url))).toBe(kind);
	});

	it('also reads the other IPv4 forms when given the raw host', () => {
		expect(internalAddressKind('2130706433')).toBe('loopback');
		expect(internalAddressKind('0x7f.1')).toBe('loopback');
		expect(internalAddressKind('3232235777')).toBe('private'); // 192.168.1.1
		expect(internalAddressKind('134744072')).toBeUndefined(); // 8.8.8.8
	});
});

describe('internalHostProblem', () => {
	const problem = (url: string, allowed: string[]) => internalHostProblem(new URL(url), allowed);

	it('says why an internal host is refused', () => {
		expect(problem('http://127.0.0.1:8080/a.png', [])).toBe('127.0.0.1 is a loopback address (this machine)');
		expect(problem('http://10.0.0.5/a.png', ['*.runcomfy.net'])).toBe('10.0.0.5 is a private network address');
		expect(problem('http://169.254.169.254/latest/meta-data/', [])).toBe(
			'169.254.169.254 is a link-local address (e.g. a cloud metadata service)',
		);
		expect(problem('http://[::]/', [])).toBe('[::] is an unspecified address (this machine)');
		expect(problem('http://2130706433/', [])).toBe('127.0.0.1 is a loopback address (this machine)');
	});

	it('lets a public host through whatever the list says', () => {
		expect(problem('https://example.com/a.png', [])).toBeUndefined();
		expect(problem('https://files.runcomfy.net/a.png', ['*.runcomfy.net'])).toBeUndefined();
	});

	it('lets an internal host through when an entry of Allowed Download Hosts names it', () => {
		expect(problem('http://127.0.0.1:8080/a.png', ['127.0.0.1'])).toBeUndefined();
		expect(problem('http://2130706433/a.png', ['127.0.0.1'])).toBeUndefined(); // compared as the request sees it
		expect(problem('http://files.localhost/a.png', ['files.localhost'])).toBeUndefined();
		expect(problem('http://192.168.1.20/a.png', ['*.runcomfy.net', '192.168.1.20'])).toBeUndefined();
		expect(problem('http://[::1]:9000/a.png', ['[::1]'])).toBeUndefined();
		// another internal host is still refused
		expect(problem('http://192.168.1.21/a.png', ['192.168.1.20'])).toBe('192.168.1.21 is a private network address');
	});

	it('does not count a wildcard ("*" or "*.domain") as allowing an internal host: it has to be named exactly', () => {
		expect(problem('http://files.localhost/a.png', ['*.localhost'])).toBe('files.localhost is a loopback address (this machine)');
		expect(problem('http://127.0.0.1/a.png', ['*'])).toBe('127.0.0.1 is a loopback address (this machine)');
		expect(problem('http://127.0.0.1/a.png', [' * ', '*.runcomfy.com'])).toBe('127.0.0.1 is a loopback address (this machine)');
		expect(problem('https://example.com/a.png', ['*'])).toBeUndefined();
	});
});

describe('mapped addresses', () => {
	it('names the IPv4 address an IPv6 address leads to', () => {
		expect(mappedIpv4Of('64:ff9b::a9fe:a9fe')).toBe('169.254.169.254');
		expect(mappedIpv4Of('[::ffff:7f00:1]')).toBe('127.0.0.1');
		expect(mappedIpv4Of('2002:c0a8:101::1')).toBe('192.168.1.1');
		expect(mappedIpv4Of('2001:4860:4860::8888')).toBeUndefined();
		expect(mappedIpv4Of('10.0.0.1')).toBeUndefined();
		expect(addressKind('example.com')).toBeUndefined(); // a name is not an address
	});
});

describe('vetHost (each hop, before anything connects)', () => {
	/** A fake DNS: only these names resolve; every lookup is recorded. */
	const fakeDns = (table: Record<string, string[]>) => {
		const asked: string[] = [];
		const resolve: HostResolver = async (name) => {
			asked.push(name);
			const found = table[name];
			if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
			return found;
		};
		return { asked, resolve };
	};
	const dns = fakeDns({
		'169.254.169.254.nip.io': ['169.254.169.254'],
		redis: ['10.0.0.7'],
		'internal.example': ['192.168.1.20'],
		'cgnat.example': ['100.64.1.2'],
		'bench.example': ['198.18.0.5'],
		'mapped.example': ['::ffff:10.1.2.3'],
		'nat64.example': ['64:ff9b::a9fe:a9fe'],
		'split.example': ['93.184.216.34', '10.0.0.8'], // one public and one private answer
		'files.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
	});
	/** `resolver` null: no resolver at all (n8n before 2.41). */
	const vet = async (url: string, permission: HostPermission = 'public', resolver: HostResolver | null = dns.resolve) => {
		try {
			await vetHost(new URL(url), permission, resolver ?? undefined, 0);
			return undefined;
		} catch (error) {
			return error as UrlProblem;
		}
	};

	it.each([
		['http://169.254.169.254.nip.io/latest/meta-data/', '169.254.169.254', 'link-local'],
		['http://redis:6379/', '10.0.0.7', 'private'],
		['http://internal.example/a.png', '192.168.1.20', 'private'],
		['http://cgnat.example/a.png', '100.64.1.2', 'shared'],
		['http://bench.example/a.png', '198.18.0.5', 'benchmark'],
		['http://mapped.example/a.png', '::ffff:10.1.2.3', 'private'],
		['http://nat64.example/a.png', '64:ff9b::a9fe:a9fe', 'link-local'],
		['http://split.example/a.png', '10.0.0.8', 'private'],
	])('refuses %s: it resolves to %s (%s)', async (url, address, kind) => {
		const problem = await vet(url);
		expect(problem).toBeInstanceOf(UrlProblem);
		expect(problem?.kind).toBe('internal-address');
		expect(problem?.details).toMatchObject({ address, addressKind: kind, resolved: true, hop: 0 });
		expect(problem?.message).toContain(`${new URL(url).hostname} resolves to ${address}`);
	});

	it.each([
		['http://[64:ff9b::a9fe:a9fe]/', 'link-local', '169.254.169.254'],
		['http://[::ffff:a9fe:a9fe]/', 'link-local', '169.254.169.254'],
		['http://100.100.100.200/', 'shared', undefined],
		['http://198.18.0.1/', 'benchmark', undefined],
		['http://localhost:6379/', 'loopback', undefined],
	])('refuses the literal %s (%s) without asking the resolver', async (url, kind, mapsTo) => {
		const before = dns.asked.length;
		const problem = await vet(url);
		expect(problem?.kind).toBe('internal-address');
		expect(problem?.details).toMatchObject({ addressKind: kind, resolved: false });
		expect(problem?.details.mapsTo).toBe(mapsTo);
		expect(dns.asked.length).toBe(before);
	});

	it('lets a public name through, checking every address it has', async () => {
		expect(await vet('https://files.example.com/a.png')).toBeUndefined();
		expect(await vet('https://files.example.com/a.png', 'listed')).toBeUndefined();
		expect(await vet('http://93.184.216.34/a.png')).toBeUndefined();
	});

	it('lets any address through for a host named exactly, without resolving it', async () => {
		const before = dns.asked.length;
		expect(await vet('http://redis:6379/', 'named')).toBeUndefined();
		expect(await vet('http://10.0.0.1/', 'named')).toBeUndefined();
		expect(dns.asked.length).toBe(before);
	});

	it('refuses a host the policy refuses, and a name that does not resolve', async () => {
		expect((await vet('https://files.example.com/a.png', 'refused'))?.kind).toBe('host-not-allowed');
		const missing = await vet('https://no-such-host.example/a.png');
		expect(missing?.kind).toBe('unresolvable');
		expect(missing?.details.code).toBe('ENOTFOUND');
	});

	it("reports n8n's SSRF protection refusing a name in the lookup", async () => {
		const blocked: HostResolver = async () => {
			throw Object.assign(new Error('The request was blocked because it resolves to a restricted IP address'), {
				name: 'SsrfBlockedIpError',
			});
		};
		const problem = await vet('https://files.example.com/a.png', 'public', blocked);
		expect(problem?.kind).toBe('blocked-by-n8n');
		expect(problem?.details.message).toMatch(/restricted IP address/);
	});

	it('without a resolver (n8n before 2.41): trusts a name the list names, refuses any other name, still checks literals', async () => {
		expect(await vet('https://files.runcomfy.net/a.png', 'listed', null)).toBeUndefined();
		const unnamed = await vet('https://files.example.com/a.png', 'public', null);
		expect(unnamed?.kind).toBe('unresolvable');
		expect(unnamed?.details.noResolver).toBe(true);
		expect((await vet('http://169.254.169.254/', 'public', null))?.kind).toBe('internal-address');
		expect(await vet('http://93.184.216.34/a.png', 'public', null)).toBeUndefined();
	});
});

describe('the address a hop connects to (DNS rebinding)', () => {
	const answers: HostResolver = async (name) =>
		({ 'v6.example': ['2606:2800:220:1:248:1893:25c8:1946', '93.184.216.34'], 'only6.example': ['2606:2800:220:1::1'] })[name] ?? [];

	it('is the vetted address of a resolved name (IPv4 first), and none for literals and named hosts', async () => {
		expect(await vetHost(new URL('https://v6.example/a.png'), 'public', answers, 0)).toBe('93.184.216.34');
		expect(await vetHost(new URL('https://only6.example/a.png'), 'listed', answers, 0)).toBe('2606:2800:220:1::1');
		expect(await vetHost(new URL('http://93.184.216.34/a.png'), 'public', answers, 0)).toBeUndefined();
		expect(await vetHost(new URL('http://redis:6379/'), 'named', answers, 0)).toBeUndefined();
		expect(await vetHost(new URL('https://files.runcomfy.net/a.png'), 'listed', undefined, 0)).toBeUndefined();
	});

	it('puts the address in the URL and keeps the name for the Host header and the TLS server name', () => {
		expect(pinnedTarget(new URL('https://files.example.com:8443/a.png?x=1'), '2606:2800:220:1::1')).toEqual({
			url: 'https://[2606:2800:220:1::1]:8443/a.png?x=1',
			hostHeader: 'files.example.com:8443',
			servername: 'files.example.com',
		});
		expect(pinnedTarget(new URL('http://files.example.com/a.png'), '93.184.216.34')).toEqual({
			url: 'http://93.184.216.34/a.png',
			hostHeader: 'files.example.com',
			servername: undefined,
		});
		expect(pinnedTarget(new URL('https://files.example.com/a.png'), undefined)).toEqual({ url: 'https://files.example.com/a.png' });
	});
});
