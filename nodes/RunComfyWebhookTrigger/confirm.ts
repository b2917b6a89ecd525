/**
 * Confirming a final event with RunComfy's API before it starts the workflow. Deliveries are not signed: anyone
 * holding the URL can post `failed` for a real request (and have the real `succeeded` that follows dropped as
 * "already delivered"), or `succeeded` with files of their choosing. So a final event fires only when the API,
 * asked with the credential, says the request (of this deployment) ended the same way, and the item is built from
 * the API's answer (its result record), never from the delivery's body.
 *
 * Parallel copies of one delivery share one API call: RunComfy repeats deliveries, and a burst must not cost a
 * call per copy.
 */
import type { IDataObject, IExecuteFunctions, IWebhookFunctions } from 'n8n-workflow';

import { getDeploymentRequestResult, getDeploymentRequestStatus, httpStatusOf } from '../shared/transport';
import { isTerminal, normaliseStatus, resultState } from '../shared/status';
import type { RunState } from '../shared/types';
import type { Delivery } from './delivery';
import { RETENTION_MS } from './ledger';

/** What the API says about a request. */
export type Truth =
	/** It answered: the request's state and its record (the result when it has ended, else the status). */
	| { kind: 'known'; state: RunState; record: IDataObject }
	/** 404: no such request on this deployment for this credential (made up, or someone else's). */
	| { kind: 'unknown' }
	/** Anything else (network, 5xx, a credential the API refuses): RunComfy is asked to deliver again. */
	| { kind: 'unreachable'; problem: string };

export type Confirmation =
	| { ok: true; body: IDataObject; word: string }
	| { ok: false; retry: false; reason: string }
	| { ok: false; retry: true; reason: string };

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** An answer the result endpoint gives a request that exists but has no result yet (the live service: 400). */
const notReadyYet = (code: number | undefined): boolean =>
	code !== undefined && code >= 400 && code < 500 && ![404, 408, 429].includes(code);

/**
 * The result first: one call for a real final event (each call also reads the credential from n8n's database, and
 * a webhook request holds an expression isolate while it runs, so a burst of slow deliveries is costly). The
 * status is asked only when the result is refused, to tell a request still running from a failure to ask.
 */
async function askApi(ctx: IWebhookFunctions, deploymentId: string, requestId: string): Promise<Truth> {
	// The transport needs getNode, getCredentials and helpers.httpRequestWithAuthentication: a webhook context has them.
	const api = ctx as unknown as IExecuteFunctions;
	try {
		const result = await getDeploymentRequestResult(api, deploymentId, requestId);
		return { kind: 'known', state: resultState(result), record: result };
	} catch (error) {
		const code = httpStatusOf(error);
		if (code === 404) return { kind: 'unknown' };
		if (!notReadyYet(code)) return { kind: 'unreachable', problem: messageOf(error) };
		try {
			const status = await getDeploymentRequestStatus(api, deploymentId, requestId);
			const state = normaliseStatus(status.status);
			if (!isTerminal(state)) return { kind: 'known', state, record: status };
		} catch (statusError) {
			if (httpStatusOf(statusError) === 404) return { kind: 'unknown' };
		}
		return { kind: 'unreachable', problem: messageOf(error) };
	}
}

/** Questions to the API in flight, per trigger node and request: parallel copies wait for the same answer. */
const inFlight = new Map<string, Promise<Truth>>();

/** What the API says about the delivery's request; one question at a time per trigger node and request. */
export async function truthOf(ctx: IWebhookFunctions, scope: string, delivery: Delivery): Promise<Truth> {
	const deploymentId = delivery.deploymentId;
	if (!deploymentId) return { kind: 'unknown' };
	const key = `${scope}\u0000${deploymentId}\u0000${delivery.requestId}`;
	let asked = inFlight.get(key);
	if (!asked) {
		asked = askApi(ctx, deploymentId, delivery.requestId).finally(() => inFlight.delete(key));
		inFlight.set(key, asked);
	}
	return await asked;
}

const timeOf = (value: unknown): number | undefined => {
	const t = typeof value === 'string' ? Date.parse(value) : NaN;
	return Number.isFinite(t) ? t : undefined;
};

/**
 * Whether the delivery may fire, judged against what the API said: same end, finished within RETENTION_MS (the
 * window the trigger remembers requests for, so a repeat older than that cannot start the workflow again).
 */
export function judge(delivery: Delivery, truth: Truth, now: number): Confirmation {
	if (truth.kind === 'unreachable') {
		return { ok: false, retry: true, reason: `RunComfy's API could not confirm the event: ${truth.problem}` };
	}
	if (truth.kind === 'unknown') {
		return {
			ok: false,
			retry: false,
			reason: delivery.deploymentId
				? "RunComfy's API does not know this request on this deployment (for this credential)"
				: 'the delivery names no deployment_id, so it cannot be confirmed',
		};
	}
	if (!isTerminal(truth.state)) {
		// The API may show the end a moment after RunComfy delivers it: a 503 makes RunComfy deliver again.
		return {
			ok: false,
			retry: true,
			reason: `RunComfy's API does not show the request as ended yet (it says "${String(truth.record.status ?? truth.state)}")`,
		};
	}
	if (truth.state !== delivery.state) {
		const said = typeof truth.record.status === 'string' ? truth.record.status : truth.state;
		return { ok: false, retry: false, reason: `RunComfy's API says the request is "${said}", not "${delivery.word}"` };
	}
	const finished = timeOf(truth.record.finished_at) ?? timeOf(truth.record.created_at);
	if (finished !== undefined && now - finished > RETENTION_MS) {
		return { ok: false, retry: false, reason: 'the request finished more than 48 hours ago (outside the window the trigger remembers)' };
	}
	const word = typeof truth.record.status === 'string' && truth.record.status.trim() !== '' ? truth.record.status.trim() : delivery.word;
	return { ok: true, body: { ...truth.record, request_id: delivery.requestId, deployment_id: delivery.deploymentId }, word };
}
