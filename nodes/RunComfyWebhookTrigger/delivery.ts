/**
 * What RunComfy POSTs to a request's `webhook` URL (serverless deployments; docs `serverless/webhooks`):
 * `application/json` with `request_id`, `deployment_id`, `status` and/or `outcome`, `created_at`,
 * `finished_at`, `outputs` on success (`output` for LoRA deployments), `error` on failure. Final events say
 * `succeeded` / `failed` / `cancelled` (`canceled` too); intermediate ones `in_queue` / `in_progress`, only when
 * the request was submitted with `webhook_intermediate_status=true`. Deliveries are not signed, may repeat and
 * may arrive out of order.
 */
import type { IDataObject } from 'n8n-workflow';

import { outputUrlsOf } from '../shared/outputs';
import { hasError, normaliseStatus, withPublicStatus } from '../shared/status';
import type { RunState } from '../shared/types';

/** Where a deployment request's outputs are in a delivery, in this order. */
export const OUTPUT_KEYS = ['outputs', 'output'] as const;

/**
 * How far along a request is: a delivery fires only if it is further than every earlier one of the same request,
 * so a repeated event is a duplicate and an `in_progress` after `succeeded` is stale.
 */
const RANKS: Partial<Record<RunState, number>> = { queued: 1, running: 2, succeeded: 3, failed: 3, cancelled: 3 };

export const FINAL_RANK = 3;

export interface Delivery {
	requestId: string;
	deploymentId?: string;
	/** The service's word for the event (`outcome` when it names an end, else `status`). */
	word: string;
	state: RunState;
	/** 1 queued, 2 running, 3 finished (succeeded, failed or cancelled). */
	rank: number;
	body: IDataObject;
}

export type ParsedDelivery =
	| { ok: true; delivery: Delivery }
	| { ok: false; status: 400; problem: string }
	| { ok: false; status: 200; ignored: string };

const isObject = (v: unknown): v is IDataObject => typeof v === 'object' && v !== null && !Array.isArray(v);

const text = (v: unknown): string | undefined =>
	typeof v === 'string' && v.trim() !== '' ? v.trim() : typeof v === 'number' ? String(v) : undefined;

export function parseDelivery(body: unknown): ParsedDelivery {
	if (!isObject(body)) {
		return { ok: false, status: 400, problem: 'The delivery is not a JSON object (send Content-Type: application/json)' };
	}
	const requestId = text(body.request_id) ?? text(body.requestId);
	if (!requestId) return { ok: false, status: 400, problem: 'The delivery has no request_id' };
	const outcome = text(body.outcome);
	const status = text(body.status);
	const outcomeState = normaliseStatus(outcome);
	const useOutcome = outcome !== undefined && (RANKS[outcomeState] ?? 0) === FINAL_RANK;
	const word = (useOutcome ? outcome : (status ?? outcome)) ?? '';
	let state = normaliseStatus(word);
	// "completed" (the status endpoint's word) with an error and no outputs is a failure.
	if (state === 'succeeded' && word.toLowerCase() === 'completed' && hasError(body.error) && !outputUrlsOf(body, OUTPUT_KEYS).length) {
		state = 'failed';
	}
	const rank = RANKS[state];
	if (rank === undefined) {
		// e.g. `cancellation_requested`: not an event of its own; the final event follows.
		return { ok: false, status: 200, ignored: `status "${word || '(none)'}" is not an event this trigger reports` };
	}
	return {
		ok: true,
		delivery: { requestId, deploymentId: text(body.deployment_id) ?? text(body.deploymentId), word, state, rank, body },
	};
}

/** The output item of a delivery (before any download): the delivery as sent, plus the fields the Trigger's polled request events have. */
export function deliveryItem(delivery: Delivery): IDataObject {
	return withPublicStatus(
		{
			...delivery.body,
			status: delivery.word,
			event: `request.${delivery.state}`,
			source: 'webhook',
			request_type: 'deployment',
			request_id: delivery.requestId,
			...(delivery.deploymentId ? { deployment_id: delivery.deploymentId } : {}),
			output_urls: outputUrlsOf(delivery.body, OUTPUT_KEYS).map((u) => ({ path: u.path, url: u.url })),
		},
		delivery.state,
	);
}
