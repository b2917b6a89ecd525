/**
 * Why fetching a URL failed, as data: each caller (output downloads, Upload From URL) words its own message
 * from the kind and the details. The message set here is a plain fallback.
 */

export type UrlProblemKind =
	/** Not an absolute http(s) URL. */
	| 'invalid-url'
	/** The host policy refused the host (details.hop says whether it was a redirect target). */
	| 'host-not-allowed'
	/** The host is, or resolves to, an internal address (details.address, details.addressKind). */
	| 'internal-address'
	/** The host name could not be resolved (details.code), or this n8n cannot resolve names (details.noResolver). */
	| 'unresolvable'
	/** n8n's own SSRF protection refused the host (details.message says why). */
	| 'blocked-by-n8n'
	/** The file host answered with a status that is not a success or a redirect (details.status). */
	| 'http-status'
	/** A redirect without a usable Location, or too many redirects (details.tooMany). */
	| 'redirect'
	/** Over the size cap: declared (details.declaredBytes) or counted while streaming. */
	| 'too-large'
	/** No answer in time (details.timeout = 'connect'), or the whole transfer took too long ('total'). */
	| 'timeout'
	/** The connection failed or broke (details.code). */
	| 'network'
	/** The answer had no readable body. */
	| 'no-body'
	/** The execution was stopped. */
	| 'stopped';

export interface UrlProblemDetails {
	/** 0 for the URL as given, then 1, 2, ... for each redirect target. */
	hop: number;
	status?: number;
	location?: string;
	address?: string;
	addressKind?: string;
	/** The IPv4 address an IPv6 address maps to (NAT64, IPv4-mapped, 6to4), when it does. */
	mapsTo?: string;
	/** The address came from resolving the host name (not written in the URL). */
	resolved?: boolean;
	declaredBytes?: number;
	maxBytes?: number;
	timeout?: 'connect' | 'total';
	timeoutMs?: number;
	tooMany?: number;
	code?: string;
	noResolver?: boolean;
	message?: string;
}

export class UrlProblem extends Error {
	constructor(
		readonly kind: UrlProblemKind,
		/** The URL of the hop where it happened. */
		readonly url: string,
		readonly details: UrlProblemDetails,
		message?: string,
	) {
		super(message ?? `${kind} (${url})`);
		this.name = 'UrlProblem';
	}

	/** The host (with port) of the hop where it happened. */
	get host(): string {
		try {
			return new URL(this.url).host;
		} catch {
			return this.url;
		}
	}
}

export const isUrlProblem = (error: unknown): error is UrlProblem => error instanceof UrlProblem;
