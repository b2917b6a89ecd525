/**
 * One delivery to the RunComfy Webhook Trigger, from the request to the answer. Never throws: every path answers
 * RunComfy itself (a thrown webhook() makes n8n answer 500 and still start a failed execution). A final event is
 * confirmed with the API first (./confirm.ts); the answer comes after that, before any download.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, IWebhookFunctions, IWebhookResponseData } from 'n8n-workflow';

import type { FoundUrl } from '../shared/download';
import { DEFAULT_MAX_DOWNLOAD_MB } from '../shared/params';
import { DownloadHosts, fetchFiles, filesOnItems, outputUrlsOf, skippedDownloadsNote } from '../shared/outputs';
import type { DownloadChoice, FileLayout } from '../shared/params';
import { FINAL_RANK, OUTPUT_KEYS, deliveryItem, parseDelivery } from './delivery';
import type { Delivery } from './delivery';
import { judge, truthOf } from './confirm';
import { admit, copyToSave, peek, release } from './ledger';
import type { Verdict } from './ledger';
import { PATH_TOKEN_PATTERN } from './properties';

/** Where a webhook trigger node keeps its copy of the ledger in the workflow's global static data (by node id). */
export const ledgerKeyOf = (node: { id?: string; name: string }): string => `runComfyWebhookTrigger:${node.id || node.name}`;

/** The last segment of the request's path, which carries the token (`/webhook/<webhook id>/<token>`). */
function lastPathSegment(url: unknown): string {
	const path = String(url ?? '').split(/[?#]/)[0];
	const segment = path.split('/').filter(Boolean).pop() ?? '';
	try {
		return decodeURIComponent(segment);
	} catch {
		return segment;
	}
}

/** Compares in time independent of where the texts differ. */
function sameSecret(a: string, b: string): boolean {
	let diff = a.length ^ b.length;
	for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a.charCodeAt(i) || 0) ^ (b.charCodeAt(i) || 0);
	return diff === 0;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

export async function handleDelivery(ctx: IWebhookFunctions): Promise<IWebhookResponseData> {
	const res = ctx.getResponseObject();
	const answer = (status: number, body: IDataObject): IWebhookResponseData => {
		res.status(status).json(body);
		return { noWebhookResponse: true };
	};
	const ignore = (reason: string, requestId?: string): IWebhookResponseData => {
		ctx.logger.debug(`RunComfy Webhook Trigger: delivery acknowledged without starting the workflow (${reason})`, { requestId });
		return { webhookResponse: { received: true, started: false, ...(requestId ? { request_id: requestId } : {}), reason } };
	};

	// n8n routes only URLs that end in the token to this node; checked again here so no other path is ever taken.
	const token = String(ctx.getNodeParameter('pathToken', '') ?? '').trim();
	const req = ctx.getRequestObject();
	if (!PATH_TOKEN_PATTERN.test(token) || !sameSecret(lastPathSegment(req.originalUrl ?? req.url), token)) {
		return answer(403, { received: false, error: "This URL does not carry the trigger's secret path token" });
	}

	const parsed = parseDelivery(ctx.getBodyData());
	if (!parsed.ok) return parsed.status === 400 ? answer(400, { received: false, error: parsed.problem }) : ignore(parsed.ignored);
	const { delivery } = parsed;
	if (delivery.rank < FINAL_RANK && ctx.getNodeParameter('includeIntermediate', false) !== true) {
		return ignore('queued and running events are off ("Include Queued and Running Events")', delivery.requestId);
	}

	const node = ctx.getNode();
	const scope = `${ctx.getWorkflow().id ?? ''}:${node.id || node.name}`;
	// "Listen for test event" shows every delivery (a test may send the same one twice); production ones fire once.
	if (ctx.getMode() === 'manual') {
		const confirmed = await confirmWithApi(ctx, scope, delivery);
		return 'ignored' in confirmed ? confirmed.ignored : await fireOrAnswer(ctx, confirmed.delivery, () => undefined);
	}
	const global = ctx.getWorkflowStaticData('global');
	const key = ledgerKeyOf(node);
	const loaded = global[key];
	const alreadyKnown = (verdict: Verdict) =>
		ignore(verdict === 'duplicate' ? 'already delivered' : 'the request is already further along (late delivery)', delivery.requestId);
	try {
		let fired = delivery;
		if (delivery.rank === FINAL_RANK) {
			// Known ones are answered without asking the API; the others are recorded only once the API confirmed them.
			const early = peek(scope, loaded, delivery.requestId, delivery.rank, Date.now());
			if (early !== 'new') return alreadyKnown(early);
			const confirmation = await confirmWithApi(ctx, scope, delivery);
			if ('ignored' in confirmation) return confirmation.ignored;
			fired = confirmation.delivery;
		}
		// Synchronous from here to the record (see ledger.ts): of parallel copies exactly one is admitted.
		const verdict = admit(scope, loaded, delivery.requestId, delivery.rank, Date.now());
		if (verdict !== 'new') return alreadyKnown(verdict);
		return await fireOrAnswer(ctx, fired, () => release(scope, delivery.requestId, delivery.rank));
	} finally {
		// Decided after the delivery (a failed one is given back first), duplicates included: a copy that an older
		// write overwrote is healed by whichever delivery comes next.
		const due = copyToSave(scope, loaded, Date.now());
		if (due) {
			global[key] = due.copy;
			// n8n saves static data before it answers, unless this node answered itself (downloads, errors): then
			// only the copy's stamp or SAVE_RETRY_MS tells that the save is done.
			if (!res.headersSent && typeof res.once === 'function') res.once('finish', due.settle);
		}
	}
}

/**
 * A final event as the API confirms it (the delivery rebuilt from the API's answer), or the answer to give when
 * it does not: 200 and ignored when the API shows another end, 503 (RunComfy delivers again) when it could not be
 * asked or does not show the end yet. Queued and running events are taken as delivered.
 */
async function confirmWithApi(
	ctx: IWebhookFunctions,
	scope: string,
	delivery: Delivery,
): Promise<{ delivery: Delivery } | { ignored: IWebhookResponseData }> {
	if (delivery.rank !== FINAL_RANK) return { delivery };
	const verdict = judge(delivery, await truthOf(ctx, scope, delivery), Date.now());
	if (verdict.ok) return { delivery: { ...delivery, word: verdict.word, body: verdict.body } };
	const { requestId } = delivery;
	if (verdict.retry) {
		ctx.logger.warn(`RunComfy Webhook Trigger: ${verdict.reason}; asking RunComfy to deliver again`, { requestId });
		ctx.getResponseObject().status(503).json({ received: false, retry: true, request_id: requestId, error: verdict.reason });
		return { ignored: { noWebhookResponse: true } };
	}
	ctx.logger.warn(`RunComfy Webhook Trigger: ignored a "${delivery.word}" event the API does not confirm (${verdict.reason})`, {
		requestId,
	});
	return { ignored: { webhookResponse: { received: true, started: false, request_id: requestId, reason: verdict.reason } } };
}

/** Starts the workflow; on an unexpected failure gives the delivery back (`giveBack`) and answers 500. */
async function fireOrAnswer(ctx: IWebhookFunctions, delivery: Delivery, giveBack: () => void): Promise<IWebhookResponseData> {
	const res = ctx.getResponseObject();
	try {
		return await fire(ctx, delivery);
	} catch (error) {
		// Not expected (downloads report their own failures): let RunComfy's retry fire it instead.
		giveBack();
		ctx.logger.error('RunComfy Webhook Trigger could not start the workflow for a delivery', {
			requestId: delivery.requestId,
			error: messageOf(error),
		});
		if (res.headersSent) return { noWebhookResponse: true };
		res.status(500).json({ received: false, request_id: delivery.requestId, error: messageOf(error) });
		return { noWebhookResponse: true };
	}
}

async function fire(ctx: IWebhookFunctions, delivery: Delivery): Promise<IWebhookResponseData> {
	const json = deliveryItem(delivery);
	const started = { received: true, started: true, request_id: delivery.requestId, event: json.event };
	const urls = outputUrlsOf(delivery.body, OUTPUT_KEYS);
	const wantsDownload = ctx.getNodeParameter('downloadOutputs', false) === true;
	if (!wantsDownload || delivery.state !== 'succeeded' || urls.length === 0) {
		return { webhookResponse: started, workflowData: [[{ json }]] };
	}
	// Answered first: files can take longer than the 10 s RunComfy waits.
	ctx.getResponseObject().status(200).json(started);
	return { noWebhookResponse: true, workflowData: [await withDownloads(ctx, json, urls)] };
}

/**
 * The item with the allowed files in binary data, laid out as "Output Files" says (one item, or one item per
 * file); what could not be fetched is listed, never thrown.
 */
async function withDownloads(ctx: IWebhookFunctions, json: IDataObject, urls: FoundUrl[]): Promise<INodeExecutionData[]> {
	const mb = Number(ctx.getNodeParameter('maxDownloadSizeMb', DEFAULT_MAX_DOWNLOAD_MB));
	const layout = ctx.getNodeParameter('outputFiles', 'allOnOneItem') as FileLayout;
	const binaryField = String(ctx.getNodeParameter('outputBinaryField', 'data') ?? '').trim();
	const problem =
		!Number.isFinite(mb) || mb < 1 || mb > DEFAULT_MAX_DOWNLOAD_MB
			? `"Max Download Size (MB)" must be a number from 1 to ${DEFAULT_MAX_DOWNLOAD_MB} (it is ${JSON.stringify(ctx.getNodeParameter('maxDownloadSizeMb', null))})`
			: !['allOnOneItem', 'oneItemPerFile'].includes(layout)
				? `"Output Files" must be "All Files on One Item" or "One Item per File" (it is ${JSON.stringify(layout)})`
				: !/^[A-Za-z0-9_-]{1,100}$/.test(binaryField)
					? `"Output Binary Field" must be letters, digits, "_" or "-" (it is ${JSON.stringify(binaryField)})`
					: undefined;
	if (problem) return [{ json: { ...json, download_error: `Nothing was downloaded: ${problem}` } }];
	try {
		// The download path uses getNode, getCredentials, helpers.httpRequest and helpers.prepareBinaryData (and the
		// cancel signal when the context has one): a webhook context has them all.
		const asExecute = ctx as unknown as IExecuteFunctions;
		const choice: DownloadChoice = { enabled: true, maxBytes: Math.floor(mb * 1024 * 1024), layout, binaryField };
		const fetched = await fetchFiles(asExecute, urls, choice, new DownloadHosts(asExecute));
		return filesOnItems({ json }, fetched, choice, skippedDownloadsNote);
	} catch (error) {
		return [{ json: { ...json, download_error: `Nothing was downloaded: ${messageOf(error)}` } }];
	}
}
