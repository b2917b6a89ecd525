/**
 * The check every hop of a fetch goes through before anything connects (which addresses are internal is
 * ../net/addresses.ts).
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

import { addressKind, internalAddressKind, internalAddressText, ipLiteral, isLocalhostName, mappedIpv4Of } from '../net';
import type { InternalAddressKind } from '../net';
import type { HostPermission } from './hosts';
import { matchAllowedHost } from './hosts';
import { UrlProblem } from './problems';

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
		return new UrlProblem(
			'blocked-by-n8n',
			url.href,
			{ hop, message: String(e?.message ?? '') },
			`n8n's SSRF protection blocked ${url.hostname}`,
		);
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
export async function vetHost(
	url: URL,
	permission: HostPermission,
	resolver: HostResolver | undefined,
	hop: number,
): Promise<string | undefined> {
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
		throw new UrlProblem(
			'unresolvable',
			url.href,
			{ hop, noResolver: true },
			`cannot check where ${url.hostname} points on this n8n version`,
		);
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
