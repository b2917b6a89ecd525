/**
 * The credential's "Allowed Download Hosts", with n8n's own rule for host lists (its "Allowed Domains"):
 *
 * - `example.com` matches exactly that host (IP addresses too: `127.0.0.1`, `[::1]`);
 * - `*.example.com` matches the subdomains of example.com, not example.com itself;
 * - a lone `*` matches every host.
 *
 * On top of n8n's rule, one about addresses: a host reached only through a wildcard (`*` or `*.x`) must resolve
 * to public addresses; an internal address (loopback, private, link-local, ...) is reached only when an entry
 * names its host exactly. The rule is written down for users in docs/credentials.md.
 */

/**
 * The credential's list (comma, space, semicolon or newline separated), entries trimmed and lower-cased, empty
 * ones dropped. A list of strings is accepted as well.
 */
export function parseAllowedHosts(value: unknown): string[] {
	const list = Array.isArray(value) ? value : String(value ?? '').split(/[\s,;]+/);
	return list
		.map((h) =>
			String(h ?? '')
				.trim()
				.toLowerCase(),
		)
		.filter(Boolean);
}

/** A host as a URL names it: lower case, no trailing dot, IP addresses in the URL parser's canonical form. */
function canonicalHost(text: string): string {
	let h = text.trim().toLowerCase();
	if (!h) return '';
	if (!h.includes('://')) {
		// A bare IPv6 address gets its brackets; a port or path after the host is dropped by the parser.
		const bareIpv6 = !h.startsWith('[') && (h.match(/:/g) ?? []).length >= 2;
		h = `http://${bareIpv6 ? `[${h}]` : h}`;
	}
	try {
		return new URL(h).hostname.replace(/\.$/, '');
	} catch {
		return '';
	}
}

/**
 * How the list matches a host: an entry names it exactly, a `*.domain` entry names its domain, only the lone
 * `*` matches it, or nothing does.
 */
export type HostMatch = 'exact' | 'domain' | 'any' | undefined;

const STRENGTH = { any: 1, domain: 2, exact: 3 } as const;

/** The strongest match of `host` (a URL's hostname) in the list: exact beats domain beats `*`. */
export function matchAllowedHost(host: string, allowedHosts: readonly string[]): HostMatch {
	const wanted = canonicalHost(host);
	if (!wanted) return undefined;
	let match: HostMatch;
	const consider = (m: Exclude<HostMatch, undefined>) => {
		if (match === undefined || STRENGTH[m] > STRENGTH[match]) match = m;
	};
	for (const raw of allowedHosts ?? []) {
		if (typeof raw !== 'string') continue;
		const entry = raw.trim().toLowerCase();
		if (entry === '*') {
			consider('any');
		} else if (entry.startsWith('*.')) {
			const domain = canonicalHost(entry.slice(2));
			if (domain && wanted.endsWith(`.${domain}`)) consider('domain');
		} else if (entry && canonicalHost(entry) === wanted) {
			return 'exact';
		}
	}
	return match;
}

const httpUrl = (url: string | URL): URL | undefined => {
	try {
		const parsed = typeof url === 'string' ? new URL(url) : url;
		return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed : undefined;
	} catch {
		return undefined;
	}
};

/** Whether the list allows the URL's host (http(s) URLs only; addresses are checked when fetching). */
export function isHostAllowed(url: string | URL, allowedHosts: readonly string[]): boolean {
	const parsed = httpUrl(url);
	return parsed !== undefined && matchAllowedHost(parsed.hostname, allowedHosts) !== undefined;
}

/**
 * What a host policy allows for one hop:
 * - `refused`: do not contact the host;
 * - `public`: contact it when every address it resolves to is public (nothing in the list names it);
 * - `listed`: the same, but a wildcard entry names its domain (without a resolver, the name is trusted);
 * - `named`: an entry names the host exactly, so any address is fine, internal ones included.
 */
export type HostPermission = 'refused' | 'public' | 'listed' | 'named';

/** Decides, for each hop of a fetch (0 = the URL as given, then each redirect target), what is allowed. */
export type HostPolicy = (url: URL, hop: number) => HostPermission;

/** Output downloads: only hosts in the list; internal addresses only for hosts named exactly. */
export function listedHostsPolicy(allowedHosts: readonly string[]): HostPolicy {
	return (url) => {
		const match = matchAllowedHost(url.hostname, allowedHosts);
		return match === 'exact' ? 'named' : match === 'domain' ? 'listed' : match === 'any' ? 'public' : 'refused';
	};
}

/** Files a user points at (Upload From URL): any public host; internal addresses only for hosts named exactly. */
export function publicHostsPolicy(allowedHosts: readonly string[]): HostPolicy {
	return (url) => {
		const match = matchAllowedHost(url.hostname, allowedHosts);
		return match === 'exact' ? 'named' : match === 'domain' ? 'listed' : 'public';
	};
}
