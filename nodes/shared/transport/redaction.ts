/**
 * The one redaction path: every text that comes from the service (or a failed connection) and goes into an
 * error is scrubbed of the token first and cut second, so a token that straddles the cut leaves nothing behind.
 */
import type { IDataObject } from 'n8n-workflow';

export const MAX_TEXT = 600;

/**
 * The token of each context, recorded when the credential is read (getCredentials), so that an error built far
 * from the request (an endpoint that finds an answer of the wrong shape) can still scrub it. Held weakly: it
 * goes with the context.
 */
const secrets = new WeakMap<object, string>();

export function rememberSecret(ctx: object, secret: string): void {
	if (secret) secrets.set(ctx, secret);
}

export function secretOf(ctx: object): string | undefined {
	return secrets.get(ctx);
}

/** Replaces every occurrence of the secret in a text. */
export function redact(text: string, secret?: string): string {
	if (!secret || secret.length < 4) return text;
	return text.split(secret).join('***');
}

/** Cuts a text to `max` characters (with an ellipsis). Only after redaction: see `clip`. */
function truncate(text: string, max = MAX_TEXT): string {
	return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * The one way a text from the service (or a failed connection) enters an error: the secret is replaced first,
 * then the text is cut, so a token that straddles the cut cannot leave a prefix behind.
 */
export function clip(text: string, max: number = MAX_TEXT, secret?: string): string {
	return truncate(redact(text, secret), max);
}

/** Deep copy of a JSON-ish value with every string scrubbed of the secret and long strings cut. */
export function redactDeep(value: unknown, secret?: string, depth = 0): unknown {
	if (depth > 8) return '[…]';
	if (typeof value === 'string') return clip(value, 2000, secret);
	if (Array.isArray(value)) return value.slice(0, 100).map((v) => redactDeep(v, secret, depth + 1));
	if (value && typeof value === 'object') {
		const out: IDataObject = {};
		for (const [k, v] of Object.entries(value as IDataObject)) {
			if (/^authorization$/i.test(k)) continue;
			out[redact(k, secret)] = redactDeep(v, secret, depth + 1) as IDataObject[string];
		}
		return out;
	}
	return value;
}

/** A body as a short text for an error description: the text itself or its JSON, scrubbed, then cut. */
export function bodySample(body: unknown, secret: string | undefined, max = 200): string {
	let text: string;
	if (typeof body === 'string') text = body.trim();
	else if (body instanceof Uint8Array) text = Buffer.from(body).toString('utf8').trim();
	else {
		try {
			text = JSON.stringify(redactDeep(body, secret)) ?? String(body);
		} catch {
			text = String(body);
		}
	}
	return clip(text, max, secret);
}
