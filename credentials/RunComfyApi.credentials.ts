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

export const DEFAULT_ALLOWED_DOWNLOAD_HOSTS = '*.runcomfy.net, *.runcomfy.com';

export class RunComfyApi implements ICredentialType {
	name = 'runComfyApi';

	displayName = 'RunComfy API';

	icon: Icon = { light: 'file:../icons/runcomfy.svg', dark: 'file:../icons/runcomfy.dark.svg' };

	documentationUrl = 'https://docs.runcomfy.com';

	properties: INodeProperties[] = [
		{
			displayName: 'Access Token',
			name: 'accessToken',
			type: 'string',
			typeOptions: { password: true },
			required: true,
			default: '',
			description:
				'The API token from your RunComfy profile page (Profile → API Token). Paste the token only, without "Bearer ".',
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
				'Comma-separated host names that generated files may be downloaded from. "*.example.com" matches example.com and its subdomains. Files on other hosts are listed but never fetched.',
		},
	];

	/**
	 * Function form rather than the generic header template, so that a token pasted as "Bearer xyz"
	 * is refused with a clear message instead of being sent as "Bearer Bearer xyz".
	 */
	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		requestOptions: IHttpRequestOptions,
	): Promise<IHttpRequestOptions> {
		const token = String(credentials.accessToken ?? '').trim();
		if (/^bearer\s/i.test(token)) {
			throw new Error(
				'The RunComfy access token starts with "Bearer ". Paste only the token itself into the credential.',
			);
		}
		return {
			...requestOptions,
			headers: { ...(requestOptions.headers ?? {}), Authorization: `Bearer ${token}` },
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
