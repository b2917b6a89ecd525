/**
 * Whether a batch parks (Wait Mode "Park Until RunComfy Calls Back", ./park.ts) and where the service calls back:
 * decided before anything is checked or paid, so a batch that cannot park is refused before any call.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { INTERNAL_ADDRESS_LABELS, internalAddressKind } from '../../net';
import { FAMILY_BASE_KEY, getCredentials } from '../../transport/credentials';
import type { ApiFamily } from '../../types';
import type { Batch, ParkPlan } from '../batch';
import type { JobItem } from '../kind';
import { readWaitMode } from '../options';
import { readBoolean } from '../../params';

/** Whether this batch parks and, if so, its resume URL, refused when the service cannot reach it. */
export async function planParking<P extends JobItem, O>(batch: Batch<P, O>): Promise<ParkPlan | undefined> {
	const { ctx, kind } = batch;
	if (!kind.park || batch.items.length === 0) return undefined;
	let parks = false;
	try {
		const enabled = readBoolean(ctx, 'waitForCompletion', 0, kind.wait.waitByDefault, 'Wait for Completion');
		parks = readWaitMode(ctx, 0, true, enabled) === 'park';
	} catch {
		return undefined;
	}
	if (!parks) return undefined;
	const resumeUrl = String(ctx.evaluateExpression('{{ $execution.resumeUrl }}', 0) ?? '');
	const credentials = await getCredentials(ctx);
	assertReachable(ctx, resumeUrl, credentials[FAMILY_BASE_KEY[kind.park.family]], kind.park.family);
	// Random rather than node + run index: unique whatever runs the node again (loops, sub-workflows, retries).
	const id = crypto.randomUUID().replace(/-/g, '').slice(0, 16);
	return {
		resumeUrl,
		id,
		callbackUrl: (itemIndex) => {
			const url = new URL(resumeUrl);
			url.searchParams.set('park', id);
			url.searchParams.set('item', String(itemIndex));
			return url.toString();
		},
	};
}

/**
 * The service can call back only to an address it can reach: a loopback, private or link-local resume URL is
 * refused unless the service is on one too.
 */
export function assertReachable(ctx: IExecuteFunctions, resumeUrl: string, serviceBaseUrl: string, family: ApiFamily): void {
	const fix =
		'Set the N8N_WEBHOOK_URL environment variable (WEBHOOK_URL in older n8n) of every n8n process, main and workers, to its public https address (e.g. https://n8n.example.com/) and restart n8n, or choose the Wait Mode "Wait in This Execution". Nothing was submitted.';
	let url: URL | undefined;
	try {
		url = new URL(resumeUrl);
	} catch {
		url = undefined;
	}
	if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
		throw new NodeOperationError(ctx.getNode(), 'This execution has no resume URL that RunComfy could call back', { description: fix });
	}
	const here = internalAddressKind(url.hostname);
	if (!here) return;
	let serviceHost = '';
	try {
		serviceHost = new URL(serviceBaseUrl).hostname;
	} catch {
		serviceHost = '';
	}
	if (internalAddressKind(serviceHost)) return;
	throw new NodeOperationError(
		ctx.getNode(),
		`RunComfy cannot call back this n8n: its resume URL is on ${url.hostname}, ${INTERNAL_ADDRESS_LABELS[here]}`,
		{
			description: `Parking needs an n8n that the RunComfy ${family} API (${serviceHost || serviceBaseUrl}) can reach. ${fix}`,
		},
	);
}
