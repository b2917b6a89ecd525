import type {
	IHookFunctions,
	INodeParameters,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { handleDelivery } from './handle';
import { PATH_TOKEN_PATTERN, webhookTriggerProperties } from './properties';
import { manualUrl } from '../shared/manuals';

/** The webhook's path: the Secret Path Token. */
const PATH_TEMPLATE = '={{ $parameter["pathToken"] }}';

/**
 * Starts a workflow for every deployment request whose result RunComfy delivers to this node's URL.
 *
 * A node of its own rather than an event of the polling RunComfy Trigger: in n8n 2.41 one node type cannot be
 * both cleanly. `polling: true` makes n8n add "Poll Times" to every event and schedule poll() on every
 * activation, and the editor picks the trigger panel from the type (webhooks listed → "Listen for test event"
 * and the URL panel, for the polling events too).
 */
export class RunComfyWebhookTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'RunComfy Webhook Trigger',
		name: 'runComfyWebhookTrigger',
		icon: { light: 'file:../../icons/runcomfy.svg', dark: 'file:../../icons/runcomfy.dark.svg' },
		group: ['trigger'],
		// Not 1: n8n 2.41's webhook server evaluates an expression (in an isolate built per delivery when none is free)
		// for every request to a start node of version 1.
		version: 2,
		subtitle: '={{ "Deployment Request Finished (Webhook)" }}',
		description: "Starts the workflow when RunComfy delivers the result of a deployment request to this node's URL",
		documentationUrl: manualUrl('webhook-trigger'),
		defaults: { name: 'RunComfy Webhook Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		// Every final event is confirmed with the API (./confirm.ts); downloads use its Allowed Download Hosts.
		credentials: [{ name: 'runComfyApi', required: true }],
		webhooks: [
			{
				name: 'default',
				httpMethod: 'POST',
				responseMode: 'onReceived',
				responseData: '',
				// The URL is <n8n webhook base>/<webhook id>/<token>: n8n refuses (404) any other path.
				path: PATH_TEMPLATE,
				// n8n 2.41 reads the path with this resolver (n8n-workflow's webhookDescriptionFields) instead of its
				// expression engine, which builds an isolate per delivery when none is free; older n8n ignores the key.
				[Symbol.for('n8n.webhookDescriptionResolvers')]: {
					path: { template: PATH_TEMPLATE, resolve: (parameters: INodeParameters) => parameters.pathToken },
				},
			},
		],
		properties: webhookTriggerProperties,
	};

	/**
	 * RunComfy has no webhook registration API: the URL travels with each request (`webhook` query parameter).
	 * There is nothing to create or delete there; activation only checks the token.
	 */
	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				checkToken(this);
				return true;
			},
			async create(this: IHookFunctions): Promise<boolean> {
				checkToken(this);
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await handleDelivery(this);
	}
}

function checkToken(ctx: IHookFunctions): void {
	const token = String(ctx.getNodeParameter('pathToken', '') ?? '').trim();
	if (!PATH_TOKEN_PATTERN.test(token)) {
		throw new NodeOperationError(ctx.getNode(), 'The Secret Path Token is missing or too weak', {
			description:
				'Enter 16 to 128 letters, digits, "-" or "_" in "Secret Path Token" (e.g. the output of "openssl rand -hex 16"). It is part of the URL RunComfy delivers to, and the only thing that keeps others from posting results to this workflow.',
		});
	}
}
