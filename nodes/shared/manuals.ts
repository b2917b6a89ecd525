/** Each node's Docs link opens its manual in this package (docs/nodes/ on the repository of package.json's homepage). */
export const MANUALS_URL = 'https://github.com/runcomfy-com/n8n-nodes-runcomfy/blob/main/docs/nodes/';

export const manualUrl = (manual: 'model' | 'deployment' | 'dataset' | 'training' | 'trigger' | 'webhook-trigger'): string =>
	`${MANUALS_URL}${manual}.md`;
