import type {
	ICredentialDataDecryptedObject,
	ICredentialTestRequest,
	ICredentialType,
	IHttpRequestOptions,
	INodeProperties,
	Icon,
} from 'n8n-workflow';

/** Live service hosts; the sandbox and other stand-ins are reached by overriding them. */
export const DEFAULT_BASE_URLS = {
	modelApiBaseUrl: 'https://model-api.runcomfy.net',
	serverlessApiBaseUrl: 'https://api.runcomfy.net',
	trainerApiBaseUrl: 'https://trainer-api.runcomfy.net',
} as const;

export type ApiBaseUrlKey = keyof typeof DEFAULT_BASE_URLS;

export const DEFAULT_ALLOWED_DOWNLOAD_HOSTS = '*.runcomfy.net, *.runcomfy.com';

/** The version prefixes our paths already carry; a base URL pasted with one (as the CLI's env vars take them) is trimmed. */
const VERSION_PREFIXES: Record<ApiBaseUrlKey, RegExp> = {
	modelApiBaseUrl: /\/v1$/i,
	serverlessApiBaseUrl: /\/prod\/v[12]$/i,
	trainerApiBaseUrl: /\/prod\/v1(\/trainers)?$/i,
};

/** One base URL as the nodes use it: the default when blank, trailing slashes and a pasted version prefix removed. */
export function trimApiBaseUrl(value: unknown, key: ApiBaseUrlKey): string {
	let url = typeof value === 'string' ? value.trim() : '';
	if (url === '') url = DEFAULT_BASE_URLS[key];
	return url.replace(/\/+$/, '').replace(VERSION_PREFIXES[key], '').replace(/\/+$/, '');
}

/** Whether `target` lies under one of the credential's three API base URLs (same origin, path below the base's). */
export function isApiUrl(credentials: ICredentialDataDecryptedObject, target: URL): boolean {
	return (Object.keys(DEFAULT_BASE_URLS) as ApiBaseUrlKey[]).some((key) => {
		let base: URL;
		try {
			base = new URL(trimApiBaseUrl(credentials[key], key));
		} catch {
			return false;
		}
		const basePath = base.pathname.replace(/\/+$/, '');
		return target.origin === base.origin && (target.pathname === basePath || target.pathname.startsWith(`${basePath}/`));
	});
}

function requestTarget(options: IHttpRequestOptions & { uri?: unknown }): URL | undefined {
	const raw = options.url ?? options.uri;
	try {
		return new URL(String(raw ?? ''), options.baseURL || undefined);
	} catch {
		return undefined;
	}
}

export class RunComfyApi implements ICredentialType {
	name = 'runComfyApi';

	displayName = 'RunComfy API';

	icon: Icon = { light: 'file:../icons/runcomfy.svg', dark: 'file:../icons/runcomfy.dark.svg' };

	documentationUrl = 'https://docs.runcomfy.com';

	/**
	 * n8n 2.41 adds "Allowed HTTP Request Domains" to credentials with `authenticate`. This credential does not
	 * need it: `authenticate` below sends the token only to its three API base URLs, whoever asks (our nodes or
	 * the HTTP Request node), so the field could only repeat that. Hidden, so the one host list a user sees is
	 * Allowed Download Hosts (same wildcard rule as n8n's; see docs/credentials.md).
	 */
	hideDomainRestrictionFields = true;

	properties: INodeProperties[] = [
		{
			displayName: 'Access Token',
			name: 'accessToken',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
			description:
				'The API token from your RunComfy profile page (Profile → API Token). Paste the token only, without "Bearer ". It is sent only to the three base URLs below.',
		},
		{
			displayName: 'Model API Base URL',
			name: 'modelApiBaseUrl',
			type: 'string',
			default: DEFAULT_BASE_URLS.modelApiBaseUrl,
			description: 'Catalog and model runs. Change only to point at a sandbox or proxy.',
		},
		{
			displayName: 'Serverless API Base URL',
			name: 'serverlessApiBaseUrl',
			type: 'string',
			default: DEFAULT_BASE_URLS.serverlessApiBaseUrl,
			description: 'Deployments, their inference requests and the account balance',
		},
		{
			displayName: 'Trainer API Base URL',
			name: 'trainerApiBaseUrl',
			type: 'string',
			default: DEFAULT_BASE_URLS.trainerApiBaseUrl,
			description: 'Datasets and LoRA training jobs',
		},
		{
			displayName: 'Allowed Download Hosts',
			name: 'allowedDownloadHosts',
			type: 'string',
			default: DEFAULT_ALLOWED_DOWNLOAD_HOSTS,
			description:
				'Comma-separated hosts that generated files may be downloaded from (never with the token). As in n8n\'s own domain lists, "example.com" matches that host only and "*.example.com" its subdomains only; "*" matches any host. Internal addresses (this machine, private networks) are reached only from a host named exactly, also for Upload From URL.',
		},
	];

	/**
	 * Function form rather than the generic header template: a token pasted as "Bearer xyz" is refused with a
	 * clear message instead of being sent as "Bearer Bearer xyz", and the token goes only to the credential's
	 * API base URLs — never to another host, and not along a redirect to another origin.
	 */
	async authenticate(credentials: ICredentialDataDecryptedObject, requestOptions: IHttpRequestOptions): Promise<IHttpRequestOptions> {
		const token = String(credentials.accessToken ?? '').trim();
		if (/^bearer\s/i.test(token)) {
			throw new Error('The RunComfy access token starts with "Bearer ". Paste only the token itself into the credential.');
		}
		const target = requestTarget(requestOptions);
		if (!target || !isApiUrl(credentials, target)) {
			throw new Error(
				`The RunComfy API credential sends its token only to its API base URLs, not to ${target ? target.host : 'this address'}. Use a URL under the Model, Serverless or Trainer API Base URL, or send this request without the credential.`,
			);
		}
		return {
			...requestOptions,
			headers: { ...(requestOptions.headers ?? {}), Authorization: `Bearer ${token}` },
			sendCredentialsOnCrossOriginRedirect: false,
		};
	}

	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{ String($credentials.serverlessApiBaseUrl || "https://api.runcomfy.net").replace(/\\/+$/, "") }}',
			url: '/prod/v2/balance',
			method: 'GET',
		},
	};
}
