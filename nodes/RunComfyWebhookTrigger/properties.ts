import type { INodeProperties } from 'n8n-workflow';

import { downloadProperties } from '../shared/descriptions';
import { STATUS_WORDS, wordList } from '../shared/status';

export const DEPLOYMENT_REQUEST_EVENT = 'deploymentRequest';

/** The secret part of the webhook path: letters, digits, `-` and `_`, 16 to 128 of them. */
export const PATH_TOKEN_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;

const show = { event: [DEPLOYMENT_REQUEST_EVENT] };

export const webhookTriggerProperties: INodeProperties[] = [
	{
		displayName: 'Event',
		name: 'event',
		type: 'options',
		noDataExpression: true,
		default: DEPLOYMENT_REQUEST_EVENT,
		options: [
			{
				name: 'Deployment Request Finished (Webhook)',
				value: DEPLOYMENT_REQUEST_EVENT,
				description: `RunComfy delivers the result of a deployment request (${wordList(STATUS_WORDS.finished)}) to this trigger's URL; each delivery is confirmed with RunComfy's API before the workflow starts`,
			},
		],
	},
	{
		displayName:
			"In the RunComfy Deployment node's Inference → Run, set Options → Deliver Results To to this trigger's Production URL (above). RunComfy must reach n8n there (WEBHOOK_URL).",
		name: 'usageNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'Secret Path Token',
		name: 'pathToken',
		type: 'string',
		// Masked while typing; the URL above shows it (that URL is what RunComfy gets).
		typeOptions: { password: true },
		required: true,
		default: '',
		placeholder: 'e.g. 7Kq2xV9mT4pR8sLw3nYb6cHd',
		description:
			'Part of the webhook URL that only RunComfy and you know; RunComfy does not sign its deliveries, so this token is what tells them apart from anyone else\'s. Deliveries to a URL without it are refused (n8n answers 404). Use 16 to 128 letters, digits, "-" or "_", e.g. the output of "openssl rand -hex 16". Changing it changes the Production URL: requests submitted before then deliver to the old URL, which no longer answers.',
		displayOptions: { show },
	},
	{
		displayName: 'Include Queued and Running Events',
		name: 'includeIntermediate',
		type: 'boolean',
		default: false,
		description:
			'Whether to also start the workflow when a request is queued or starts running (RunComfy sends these only for requests submitted with webhook_intermediate_status=true). Each request fires at most once per stage and never for a stage it has already passed.',
		displayOptions: { show },
	},
	...downloadProperties(show, false).map((p) =>
		p.name === 'downloadOutputs'
			? {
					...p,
					description:
						"Whether to download the files of a succeeded request into binary data (data, data_1, ...). Only the credential's Allowed Download Hosts are fetched (the token is never sent to them). n8n answers RunComfy before downloading.",
				}
			: p,
	),
];
