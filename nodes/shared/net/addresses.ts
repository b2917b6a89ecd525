/**
 * Which addresses are internal: IPv4 and IPv6 literals (with the IPv4 an IPv6 address carries: mapped, NAT64,
 * 6to4), the name localhost, and how each kind is worded in messages. Pure rules on text, nothing is resolved
 * or fetched: downloads vet every hop with them (../download/addresses.ts), parking checks that the service can
 * reach n8n's resume URL (../jobs/park/plan.ts).
 */
export type InternalAddressKind = 'loopback' | 'private' | 'link-local' | 'unspecified' | 'shared' | 'benchmark' | 'multicast' | 'reserved';

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
export function ipLiteral(host: string): { v4?: number[]; v6?: number[] } | undefined {
	let h = String(host ?? '')
		.trim()
		.toLowerCase();
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

export const isLocalhostName = (h: string): boolean => h === 'localhost' || h.endsWith('.localhost');

/**
 * The kind of internal host `host` is, judged by its form alone (nothing is resolved): the name `localhost`
 * (and `*.localhost`), or an internal IP literal. `host` is a URL's hostname (IPv6 in brackets or not, a
 * trailing dot allowed); IPv4 written in other forms (`2130706433`, `0x7f.1`) is read as a URL reads it.
 */
export function internalAddressKind(host: string): InternalAddressKind | undefined {
	const h = String(host ?? '')
		.trim()
		.toLowerCase()
		.replace(/\.$/, '');
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

/** "169.254.169.254.nip.io resolves to 169.254.169.254, a link-local address", or "10.0.0.1 is a private ...". */
export function internalAddressText(host: string, address: string, kind: string, resolved: boolean): string {
	const label = INTERNAL_ADDRESS_LABELS[kind as InternalAddressKind] ?? 'an internal address';
	const mapped = mappedIpv4Of(address);
	const via = mapped ? ` (it leads to ${mapped})` : '';
	return resolved ? `${host} resolves to ${address}${via}, ${label}` : `${host} is ${label}${via}`;
}
