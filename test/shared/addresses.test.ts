/**
 * nodes/shared/addresses.ts: which hosts are internal (localhost names, loopback, private, link-local and
 * unspecified IP literals, in every way a URL can write them), and when the credential's Allowed Download Hosts
 * lets n8n fetch one anyway. Pure functions: nothing is resolved or requested.
 */
import { internalAddressKind, internalHostProblem } from '../../nodes/shared/addresses';

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
		'::2',
		'fbff::1', // just below fc00::/7
		'fe00::1', // between fc00::/7 and fe80::/10
		'fec0::1', // just above fe80::/10
		'::ffff:8.8.8.8',
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
		expect(problem('http://files.localhost/a.png', ['*.localhost'])).toBeUndefined();
		expect(problem('http://192.168.1.20/a.png', ['*.runcomfy.net', '192.168.1.20'])).toBeUndefined();
		expect(problem('http://[::1]:9000/a.png', ['[::1]'])).toBeUndefined();
		// another internal host is still refused
		expect(problem('http://192.168.1.21/a.png', ['192.168.1.20'])).toBe('192.168.1.21 is a private network address');
	});

	it('does not count a lone "*" as allowing an internal host', () => {
		expect(problem('http://127.0.0.1/a.png', ['*'])).toBe('127.0.0.1 is a loopback address (this machine)');
		expect(problem('http://127.0.0.1/a.png', [' * ', '*.runcomfy.com'])).toBe('127.0.0.1 is a loopback address (this machine)');
		expect(problem('https://example.com/a.png', ['*'])).toBeUndefined();
	});
});
