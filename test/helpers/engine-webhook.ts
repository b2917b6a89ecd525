/**
 * Calls the webhook of a node whose execution parked (runNode's result with status 'waiting') the way n8n's
 * waiting-webhook route does: n8n-core's real WebhookContext on the saved run data (the execution stack entry
 * the node parked with is its input), with a request (query, JSON body) and a response object that records
 * what the node answered.
 */
import { WebhookContext } from 'n8n-core';
import type { IDataObject, INodeType, IWebhookData, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import type { RunNodeResult } from './engine-types';

export interface WebhookCall {
	/** The HTTP status the node answered through the response object (undefined: it did not answer there). */
	status?: number;
	/** The JSON it answered. */
	body?: unknown;
	/** What webhook() returned (workflowData resumes the execution; without it the execution stays parked). */
	response: IWebhookResponseData;
}

/** A minimal express-like response: `status(code).json(body)`, `headersSent`. */
function recordingResponse() {
	const res = {
		headersSent: false,
		statusCode: 200,
		answered: undefined as undefined | { status: number; body: unknown },
		status(code: number) {
			res.statusCode = code;
			return res;
		},
		json(body: unknown) {
			if (res.headersSent) throw new Error('Harness: the webhook answered twice');
			res.headersSent = true;
			res.answered = { status: res.statusCode, body };
			return res;
		},
	};
	return res;
}

export async function callParkedWebhook(
	parked: RunNodeResult,
	request: { query: IDataObject; body: unknown },
	nodeType: INodeType,
): Promise<WebhookCall> {
	if (parked.status !== 'waiting') throw new Error(`Harness: the execution is ${parked.status}, not waiting`);
	const node = parked.nodeDefinition;
	const res = recordingResponse();
	const additionalData = {
		...parked.additionalData,
		httpRequest: { query: request.query, body: request.body, headers: { 'content-type': 'application/json' }, params: {} },
		httpResponse: res,
	} as unknown as RunNodeResult['additionalData'];
	const description = nodeType.description.webhooks?.[0];
	if (!description) throw new Error('Harness: the node declares no webhook');
	const webhookData: IWebhookData = {
		httpMethod: 'POST',
		node: node.name,
		path: '',
		webhookDescription: description,
		workflowId: parked.workflow.id,
		workflowExecuteAdditionalData: additionalData,
	};
	// n8n hands the webhook a copy of the saved execution, as it reads it from its database for every call.
	const runExecutionData = structuredClone(parked.run.data);
	const ctx = new WebhookContext(parked.workflow, node, additionalData, 'webhook', webhookData, [], runExecutionData);
	const webhook = nodeType.webhook as (this: IWebhookFunctions) => Promise<IWebhookResponseData>;
	// As n8n's waiting-webhook route does: expressions run in the workflow's isolate, acquired around the call.
	const expression = parked.workflow.expression as unknown as { acquireIsolate(): Promise<void>; releaseIsolate(): Promise<void> };
	await expression.acquireIsolate();
	let response: IWebhookResponseData;
	try {
		response = await webhook.call(ctx as unknown as IWebhookFunctions);
	} finally {
		await expression.releaseIsolate();
	}
	return { status: res.answered?.status, body: res.answered?.body, response };
}
