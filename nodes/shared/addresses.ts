/**
 * Which hosts are internal: the name `localhost` (and `*.localhost`), and IP literals in the loopback, private,
 * link-local and unspecified ranges. Pure: nothing is resolved, so a name that resolves to an internal address
 * is not recognised (n8n's own SSRF protection, which resolves names, covers that).
 */
import { isHostAllowed } from './download';

export type InternalAddressKind = 'loopback' | 'private' | 'link-local' | 'unspecified';

/** What each kind means, for error messages ("127.0.0.1 is a loopback address (this machine)"). */
export const INTERNAL_ADDRESS_LABELS: Record<InternalAddressKind, string> = {
	loopback: 'a loopback address (this machine)',
	private: 'a private network address',
	'link-local': 'a link-local address (e.g. a cloud metadata service)',
	unspecified: 'an unspecified address (this machine)',
};

/** The four numbers of a dotted IPv4 address, or undefined when `text` is not one. */
function ipv4Octets(text: string): number[] | undefined {
	const parts = text.split('.');
	if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p))) return undefined;
	const octets = parts.map(Number);
	return octets.every((o) => o <= 255) ? octets : undefined;
}

function ipv4Kind([a, b]: number[]): InternalAddressKind | undefined {
	if (a === 127) return 'loopback';
	if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'private';
	if (a === 169 && b === 254) return 'link-local';
	if (a === 0) return 'unspecified'; // 0.0.0.0/8, "this network"; 0.0.0.0 reaches this machine
	return undefined;
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part allowed), or undefined. */
function ipv6Groups(text: string): number[] | undefined {
	let body = text;
	const lastColon = body.lastIndexOf(':');
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

function ipv6Kind(groups: number[]): InternalAddressKind | undefined {
	const zerosBefore = (n: number) => groups.slice(0, n).every((g) => g === 0);
	if (zerosBefore(7) && groups[7] === 1) return 'loopback';
	if (zerosBefore(8)) return 'unspecified';
	// IPv4-mapped (::ffff:a.b.c.d): the IPv4 address is what is reached.
	if (zerosBefore(5) && groups[5] === 0xffff) {
		return ipv4Kind([groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff]);
	}
	if ((groups[0] & 0xfe00) === 0xfc00) return 'private'; // fc00::/7, unique local
	if ((groups[0] & 0xffc0) === 0xfe80) return 'link-local'; // fe80::/10
	return undefined;
}

/**
 * The kind of internal host `host` is, or undefined for any other host. `host` is a URL's hostname (IPv6 in
 * brackets or not, a trailing dot allowed); IPv4 written in other forms (`2130706433`, `0x7f.1`) is read as a
 * URL reads it.
 */
export function internalAddressKind(host: string): InternalAddressKind | undefined {
	let h = String(host ?? '').trim().toLowerCase();
	if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
	h = h.replace(/\.$/, '');
	if (!h) return undefined;
	if (h === 'localhost' || h.endsWith('.localhost')) return 'loopback';
	if (h.includes(':')) {
		const groups = ipv6Groups(h.replace(/%.*$/, ''));
		return groups ? ipv6Kind(groups) : undefined;
	}
	let octets = ipv4Octets(h);
	if (!octets) {
		// Let the URL parser read short, hexadecimal and octal IPv4 forms the way a request would.
		try {
			octets = ipv4Octets(new URL(`http://${h}/`).hostname);
		} catch {
			octets = undefined;
		}
	}
	return octets ? ipv4Kind(octets) : undefined;
}

/**
 * Why n8n should not fetch `url` for a user or an agent: its host is internal and no entry of the credential's
 * Allowed Download Hosts names it (a lone `*` does not count: an internal host has to be allowed on purpose).
 * Undefined when the host is not internal or is allowed.
 */
export function internalHostProblem(url: URL, allowedHosts: string[]): string | undefined {
	const kind = internalAddressKind(url.hostname);
	if (!kind) return undefined;
	if (isHostAllowed(url.href, (allowedHosts ?? []).filter((h) => String(h).trim() !== '*'))) return undefined;
	return `${url.hostname} is ${INTERNAL_ADDRESS_LABELS[kind]}`;
}
