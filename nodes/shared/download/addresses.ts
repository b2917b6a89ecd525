/**
 * Which addresses are internal, and the check every hop of a fetch goes through before anything connects.
 *
 * Host names are resolved with n8n's egress filter (`helpers.getSecureEgressFilter().createSecureLookup()`, n8n
 * 2.41+), since nodes may not import `dns`. Every address a name resolves to must be public unless the host
 * policy says the host is named exactly. Without that helper (older n8n) names cannot be resolved: a name is
 * then fetched only when a list entry names it (exactly or as `*.domain`), and refused otherwise.
 *
 * DNS rebinding: a name whose answer changes between the check and the connection (a short-TTL rebinding
 * service) must not reach an internal address. So the check hands back the address it vetted, and the fetch
 * connects to that address (see `pinnedTarget`) instead of resolving the name again. An answer that is not an
 * IP address is refused. See docs/credentials.md.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

import type { HostPermission } from './hosts';
import { matchAllowedHost } from './hosts';
import { UrlProblem } from './problems';

export type InternalAddressKind =
	| 'loopback'
	| 'private'
	| 'link-local'
	| 'unspecified'
	| 'shared'
	| 'benchmark'
	| 'multicast'
	| 'reserved';

/** What each kind means, for error messages ("127.0.0.1 is a loopback address (this machine)"). */
export const INTERNAL_ADDRESS_LABELS: Record<InternalAddressKind, string> = {
	loopback: 'a loopback address (this machine)',
	private: 'a private network address',
	'link-local': 'a link-local address (e.g. a cloud metadata service)',
	unspecified: 'an unspecified address (this machine)',
	shared: 'a carrier-grade NAT address (100.64.0.0/10, inside a provider network)',
	benchmark: 'a network benchmarking address (198.18.0.0/15)',
	multicast: 'a multicast address',
	reserved: 'a reserved address',
};

/** The four numbers of a dotted IPv4 address, or undefined when `text` is not one. */
function ipv4Octets(text: string): number[] | undefined {
	const parts = text.split('.');
	if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p))) return undefined;
	const octets = parts.map(Number);
	return octets.every((o) => o <= 255) ? octets : undefined;
}

function ipv4Kind([a, b, c]: number[]): InternalAddressKind | undefined {
	if (a === 0) return 'unspecified'; // 0.0.0.0/8, "this network"; 0.0.0.0 reaches this machine
	if (a === 127) return 'loopback';
	if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'private';
	if (a === 169 && b === 254) return 'link-local';
	if (a === 100 && b >= 64 && b <= 127) return 'shared';
	if (a === 198 && (b === 18 || b === 19)) return 'benchmark';
	if (a >= 224 && a <= 239) return 'multicast';
	if (a >= 240) return 'reserved'; // 240/4 and the broadcast address
	// IETF protocol assignments, documentation ranges and the retired 6to4 relay prefix
	if ((a === 192 && b === 0 && (c === 0 || c === 2)) || (a === 192 && b === 88 && c === 99)) return 'reserved';
	if ((a === 198 && b === 51 && c === 100) || (a === 203 && b === 0 && c === 113)) return 'reserved';
	return undefined;
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part allowed), or undefined. */
function ipv6Groups(text: string): number[] | undefined {
	let body = text.toLowerCase();
	const lastColon = body.lastIndexOf(':');
	if (lastColon < 0) return undefined;
	if (body.slice(lastColon + 1).includes('.')) {
		const octets = ipv4Octets(body.slice(lastColon + 1));
		if (!octets) return undefined;
		const hex = (hi: number, lo: number) => ((hi << 8) | lo).toString(16);
		body = `${body.slice(0, lastColon + 1)}${hex(octets[0], octets[1])}:${hex(octets[2], octets[3])}`;
	}
	const halves = body.split('::');
	if (halves.length > 2) return undefined;
	const parse = (part: string): number[] | undefined => {
		if (part === '') return [];
		const groups = part.split(':');
		if (!groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return undefined;
		return groups.map((g) => parseInt(g, 16));
	};
	const head = parse(halves[0]);
	const rest = halves.length === 2 ? parse(halves[1]) : [];
	if (!head || !rest) return undefined;
	if (halves.length === 1) return head.length === 8 ? head : undefined;
	const fill = 8 - head.length - rest.length;
	return fill >= 1 ? [...head, ...new Array<number>(fill).fill(0), ...rest] : undefined;
}

const v4From = (hi: number, lo: number): number[] => [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];

/**
 * The IPv4 address an IPv6 address carries and reaches: IPv4-mapped (::ffff:a.b.c.d), IPv4-translated
 * (::ffff:0:a.b.c.d), IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::/96 and the local-use 64:ff9b:1::/48) and
 * 6to4 (2002:aabb:ccdd::/48).
 */
function embeddedIpv4(g: number[]): { octets: number[]; via: 'mapped' | 'compatible' | 'nat64' | 'nat64-local' | '6to4' } | undefined {
	const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
	if (zeros(0, 5) && g[5] === 0xffff) return { octets: v4From(g[6], g[7]), via: 'mapped' };
	if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return { octets: v4From(g[6], g[7]), via: 'mapped' };
	if (zeros(0, 6)) return { octets: v4From(g[6], g[7]), via: 'compatible' };
	if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return { octets: v4From(g[6], g[7]), via: 'nat64' };
	if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return { octets: v4From(g[6], g[7]), via: 'nat64-local' };
	if (g[0] === 0x2002) return { octets: v4From(g[1], g[2]), via: '6to4' };
	return undefined;
}

function ipv6Kind(g: number[]): InternalAddressKind | undefined {
	if (g.every((x) => x === 0)) return 'unspecified';
	if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return 'loopback';
	const embedded = embeddedIpv4(g);
	if (embedded) {
		const kind = ipv4Kind(embedded.octets);
		if (kind) return kind;
		// Deprecated or local-only forms reach nothing public even with a public IPv4 inside.
		if (embedded.via === 'compatible') return 'reserved';
		if (embedded.via === 'nat64-local') return 'private';
		return undefined;
	}
	if (g[0] === 0x100 && g[1] === 0 && g[2] === 0 && g[3] === 0) return 'reserved'; // 100::/64 discard-only
	if (g[0] === 0x2001 && (g[1] === 0 || g[1] === 0xdb8)) return 'reserved'; // Teredo, documentation
	if ((g[0] & 0xfe00) === 0xfc00) return 'private'; // fc00::/7, unique local
	if ((g[0] & 0xffc0) === 0xfe80) return 'link-local'; // fe80::/10
	if ((g[0] & 0xffc0) === 0xfec0) return 'private'; // fec0::/10, the retired site-local range
	if ((g[0] & 0xff00) === 0xff00) return 'multicast';
	return undefined;
}

/** An IP address without brackets or zone (`[fe80::1%eth0]` → `fe80::1`), or undefined for a host name. */
function ipLiteral(host: string): { v4?: number[]; v6?: number[] } | undefined {
	let h = String(host ?? '').trim().toLowerCase();
	if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
	h = h.replace(/%.*$/, '');
	if (h.includes(':')) {
		const v6 = ipv6Groups(h);
		return v6 ? { v6 } : undefined;
	}
	const v4 = ipv4Octets(h);
	return v4 ? { v4 } : undefined;
}

/** The kind of internal address `address` (an IPv4 or IPv6 literal) is, or undefined for a public one. */
export function addressKind(address: string): InternalAddressKind | undefined {
	const ip = ipLiteral(address);
	if (ip?.v4) return ipv4Kind(ip.v4);
	if (ip?.v6) return ipv6Kind(ip.v6);
	return undefined;
}

/** The IPv4 address an IPv6 address maps to (NAT64, IPv4-mapped, 6to4, ...), as text, when it maps to one. */
export function mappedIpv4Of(address: string): string | undefined {
	const g = ipLiteral(address)?.v6;
	if (!g || g.slice(0, 7).every((x) => x === 0)) return undefined; // ::, ::1 are themselves, not IPv4 carriers
	const embedded = embeddedIpv4(g);
	return embedded ? embedded.octets.join('.') : undefined;
}

const isLocalhostName = (h: string): boolean => h === 'localhost' || h.endsWith('.localhost');

/**
 * The kind of internal host `host` is, judged by its form alone (nothing is resolved): the name `localhost`
 * (and `*.localhost`), or an internal IP literal. `host` is a URL's hostname (IPv6 in brackets or not, a
 * trailing dot allowed); IPv4 written in other forms (`2130706433`, `0x7f.1`) is read as a URL reads it.
 */
export function internalAddressKind(host: string): InternalAddressKind | undefined {
	const h = String(host ?? '').trim().toLowerCase().replace(/\.$/, '');
	if (!h) return undefined;
	if (isLocalhostName(h)) return 'loopback';
	if (ipLiteral(h)) return addressKind(h);
	try {
		// Let the URL parser read short, hexadecimal and octal IPv4 forms the way a request would.
		const parsed = new URL(`http://${h}/`).hostname;
		return ipLiteral(parsed) ? addressKind(parsed) : undefined;
	} catch {
		return undefined;
	}
}

/**
 * Why n8n should not fetch `url` for a user or an agent, judged from the URL alone: its host is internal by its
 * form (see internalAddressKind) and no entry of Allowed Download Hosts names it exactly (a wildcard does not
 * count: an internal host has to be allowed on purpose). Undefined when the host is not internal by its form or
 * is named.
 */
export function internalHostProblem(url: URL, allowedHosts: readonly string[]): string | undefined {
	const kind = internalAddressKind(url.hostname);
	if (!kind || matchAllowedHost(url.hostname, allowedHosts) === 'exact') return undefined;
	return internalAddressText(url.hostname, url.hostname, kind, false);
}

// ---------------------------------------------------------------------------------------------------------
// Resolving names and vetting a hop
// ---------------------------------------------------------------------------------------------------------

/** Resolves a host name to every address it has (IPv4 and IPv6 as text). */
export type HostResolver = (hostname: string) => Promise<string[]>;

type LookupAll = (
	hostname: string,
	options: { all: true },
	callback: (error: Error | null, addresses: Array<{ address: string }> | string) => void,
) => void;

interface EgressHelpers {
	getSecureEgressFilter?: (policy?: 'safe' | 'enforced' | 'unsafe') => { createSecureLookup(): unknown };
}

/**
 * The resolver n8n offers nodes (2.41+): its egress filter's lookup, under the instance policy ('safe'). With
 * n8n's SSRF protection off it is a plain resolver; with it on, it also refuses what n8n blocks. Undefined on
 * an n8n without the helper.
 */
export function egressResolverOf(ctx: IExecuteFunctions): HostResolver | undefined {
	const helpers = ctx.helpers as unknown as EgressHelpers;
	if (typeof helpers.getSecureEgressFilter !== 'function') return undefined;
	return async (hostname) => {
		const lookup = helpers.getSecureEgressFilter!('safe').createSecureLookup() as LookupAll;
		return await new Promise<string[]>((resolve, reject) => {
			lookup(hostname, { all: true }, (error, addresses) => {
				if (error) reject(error);
				else resolve(Array.isArray(addresses) ? addresses.map((a) => a.address) : [String(addresses)]);
			});
		});
	};
}

/** Whether an error is n8n's SSRF protection refusing a host or an address. */
export const isN8nSsrfError = (error: unknown): boolean => {
	const e = error as { name?: unknown; cause?: { name?: unknown } } | undefined;
	return [e?.name, e?.cause?.name].some((n) => n === 'SsrfBlockedIpError' || n === 'SsrfBlockedHostnameError');
};

/** "169.254.169.254.nip.io resolves to 169.254.169.254, a link-local address", or "10.0.0.1 is a private ...". */
export function internalAddressText(host: string, address: string, kind: string, resolved: boolean): string {
	const label = INTERNAL_ADDRESS_LABELS[kind as InternalAddressKind] ?? 'an internal address';
	const mapped = mappedIpv4Of(address);
	const via = mapped ? ` (it leads to ${mapped})` : '';
	return resolved ? `${host} resolves to ${address}${via}, ${label}` : `${host} is ${label}${via}`;
}

const internalProblem = (url: URL, hop: number, address: string, kind: InternalAddressKind, resolved: boolean): UrlProblem =>
	new UrlProblem(
		'internal-address',
		url.href,
		{ hop, address, addressKind: kind, mapsTo: mappedIpv4Of(address), resolved },
		internalAddressText(url.hostname, address, kind, resolved),
	);

/** Why a name could not be resolved: n8n's SSRF protection refused it, or the lookup failed. */
function resolutionProblem(url: URL, hop: number, error: unknown): UrlProblem {
	const e = error as { code?: unknown; message?: unknown } | undefined;
	if (isN8nSsrfError(error)) {
		return new UrlProblem('blocked-by-n8n', url.href, { hop, message: String(e?.message ?? '') }, `n8n's SSRF protection blocked ${url.hostname}`);
	}
	const code = typeof e?.code === 'string' ? e.code : undefined;
	return new UrlProblem('unresolvable', url.href, { hop, code }, `${url.hostname} could not be resolved${code ? ` (${code})` : ''}`);
}

/** An answer of the resolver that is not an IP address: refused, never read as public. */
const notAnAddressProblem = (url: URL, hop: number, answer: string): UrlProblem =>
	new UrlProblem(
		'unresolvable',
		url.href,
		{ hop, address: answer, code: `the answer ${JSON.stringify(answer)} is not an IP address` },
		`${url.hostname} resolved to ${JSON.stringify(answer)}, which is not an IP address`,
	);

/**
 * Checks one hop before anything connects to it, throwing a UrlProblem when it must not be fetched:
 * - `named`: fine whatever the address;
 * - an IP literal or a localhost name: refused when internal;
 * - any other name: resolved, and refused when any of its answers is internal or not an IP address.
 *   Without a resolver, a `listed` name is trusted and any other refused.
 *
 * Returns the address the hop must connect to when a name was resolved (the first IPv4 one, else the first),
 * so the connection goes where the check looked; undefined when the URL's host is used as written.
 */
export async function vetHost(url: URL, permission: HostPermission, resolver: HostResolver | undefined, hop: number): Promise<string | undefined> {
	if (permission === 'refused') {
		throw new UrlProblem('host-not-allowed', url.href, { hop }, `${url.host} is not an allowed host`);
	}
	if (permission === 'named') return undefined;
	const host = url.hostname.toLowerCase().replace(/\.$/, '');
	if (ipLiteral(host) || isLocalhostName(host)) {
		const kind = internalAddressKind(host);
		if (kind) throw internalProblem(url, hop, host, kind, false);
		return undefined;
	}
	if (!resolver) {
		if (permission === 'listed') return undefined;
		throw new UrlProblem('unresolvable', url.href, { hop, noResolver: true }, `cannot check where ${url.hostname} points on this n8n version`);
	}
	let answers: unknown[];
	try {
		answers = await resolver(host);
	} catch (error) {
		throw resolutionProblem(url, hop, error);
	}
	if (!Array.isArray(answers) || answers.length === 0) {
		throw new UrlProblem('unresolvable', url.href, { hop }, `${url.hostname} could not be resolved`);
	}
	const addresses: string[] = [];
	for (const answer of answers) {
		const text = String(answer ?? '');
		const ip = ipLiteral(text);
		// Only a plain address counts: no brackets, no other IPv4 forms ("2130706433" is 127.0.0.1 to a URL).
		if (!ip || text.trim() !== text || text.startsWith('[')) throw notAnAddressProblem(url, hop, text);
		const kind = addressKind(text);
		if (kind) throw internalProblem(url, hop, text, kind, true);
		addresses.push(text.replace(/%.*$/, ''));
	}
	return addresses.find((a) => !a.includes(':')) ?? addresses[0];
}

/**
 * What a request must use to reach `url` at the vetted `address`: the address in the URL, so nothing resolves
 * the name again, and the name where the host still needs it (the Host header; for https the TLS server name,
 * which also checks the certificate against the name). Without an address, the URL as written.
 */
export function pinnedTarget(url: URL, address: string | undefined): { url: string; hostHeader?: string; servername?: string } {
	if (!address) return { url: url.href };
	const direct = new URL(url.href);
	direct.hostname = address.includes(':') ? `[${address}]` : address;
	return {
		url: direct.href,
		hostHeader: url.host,
		servername: url.protocol === 'https:' ? url.hostname.replace(/\.$/, '') : undefined,
	};
}
