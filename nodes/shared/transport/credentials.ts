import type { ICredentialDataDecryptedObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { DEFAULT_ALLOWED_DOWNLOAD_HOSTS, DEFAULT_BASE_URLS, trimApiBaseUrl } from '../../../credentials/RunComfyApi.credentials';
import { parseAllowedHosts } from '../download/hosts';
import type { ApiFamily, RunComfyContext, RunComfyCredentials } from './types';
import { CREDENTIAL_NAME } from './types';
import { rememberSecret } from './redaction';

export { parseAllowedHosts };

const LABELS: Record<keyof typeof DEFAULT_BASE_URLS, string> = {
	modelApiBaseUrl: 'Model API Base URL',
	serverlessApiBaseUrl: 'Serverless API Base URL',
	trainerApiBaseUrl: 'Trainer API Base URL',
};

export const FAMILY_BASE_KEY: Record<ApiFamily, keyof typeof DEFAULT_BASE_URLS> = {
	model: 'modelApiBaseUrl',
	serverless: 'serverlessApiBaseUrl',
	trainer: 'trainerApiBaseUrl',
};

/** Normalises one base URL: default when blank, trailing slashes and a pasted version prefix removed. */
export function normaliseBaseUrl(
	value: unknown,
	key: keyof typeof DEFAULT_BASE_URLS,
	onInvalid: (message: string, description: string) => never,
): string {
	const url = trimApiBaseUrl(value, key);
	let parsed: URL | undefined;
	try {
		parsed = new URL(url);
	} catch {
		parsed = undefined;
	}
	if (
		!parsed ||
		(parsed.protocol !== 'https:' && parsed.protocol !== 'http:') ||
		parsed.search ||
		parsed.hash ||
		parsed.username ||
		parsed.password
	) {
		onInvalid(
			`The ${LABELS[key]} in the RunComfy API credential is not a valid URL`,
			`Use a plain http(s) URL without query or credentials, e.g. "${DEFAULT_BASE_URLS[key]}", or clear the field to use the default.`,
		);
	}
	return url;
}

/**
 * One read per node run: a batch of 10,000 items sends 30,000 requests with one context, and n8n decrypts the
 * credential on every read. Only a node's execution is cached (it reads the credential for one run); a trigger's
 * or an editor's context reads it each time, so a changed credential is seen at once there. A read that failed is
 * not kept.
 */
const perRun = new WeakMap<object, Promise<RunComfyCredentials>>();

export async function getCredentials(ctx: RunComfyContext): Promise<RunComfyCredentials> {
	if (typeof (ctx as Partial<IExecuteFunctions>).getInputData !== 'function') return await readCredentials(ctx);
	let read = perRun.get(ctx);
	if (!read) {
		read = readCredentials(ctx);
		perRun.set(ctx, read);
		read.catch(() => perRun.delete(ctx));
	}
	return await read;
}

/**
 * Reads the `runComfyApi` credential: token checked (not empty, no leading "Bearer "), the three base URLs
 * trimmed of trailing slashes (defaults = live hosts), and the download allow-list parsed.
 */
async function readCredentials(ctx: RunComfyContext): Promise<RunComfyCredentials> {
	const raw = (await ctx.getCredentials<ICredentialDataDecryptedObject>(CREDENTIAL_NAME)) ?? {};
	const node = ctx.getNode();
	const invalid = (message: string, description: string): never => {
		throw new NodeOperationError(node, message, { description });
	};
	const token = typeof raw.accessToken === 'string' ? raw.accessToken.trim() : '';
	if (token === '') {
		invalid(
			'The RunComfy API credential has no access token',
			'Open the RunComfy API credential and paste the API token from your RunComfy profile page (Profile → API Token).',
		);
	}
	if (/^bearer(\s|$)/i.test(token)) {
		invalid(
			'The RunComfy access token starts with "Bearer "',
			'Open the RunComfy API credential and paste only the token itself, without the word "Bearer" in front; n8n adds it.',
		);
	}
	if (/[\s\p{Cc}]/u.test(token)) {
		invalid(
			'The RunComfy access token contains spaces or line breaks',
			'Open the RunComfy API credential and paste the token again as one piece, exactly as shown on your RunComfy profile page.',
		);
	}
	rememberSecret(ctx, token);
	return {
		accessToken: token,
		modelApiBaseUrl: normaliseBaseUrl(raw.modelApiBaseUrl, 'modelApiBaseUrl', invalid),
		serverlessApiBaseUrl: normaliseBaseUrl(raw.serverlessApiBaseUrl, 'serverlessApiBaseUrl', invalid),
		trainerApiBaseUrl: normaliseBaseUrl(raw.trainerApiBaseUrl, 'trainerApiBaseUrl', invalid),
		allowedDownloadHosts: parseAllowedHosts(raw.allowedDownloadHosts ?? DEFAULT_ALLOWED_DOWNLOAD_HOSTS),
	};
}

/** The base URL of one API family. */
export function baseUrlFor(credentials: RunComfyCredentials, family: ApiFamily): string {
	return credentials[FAMILY_BASE_KEY[family]];
}
