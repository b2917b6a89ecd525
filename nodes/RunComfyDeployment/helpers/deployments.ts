import type { IExecuteFunctions, ILoadOptionsFunctions, INode } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { getDeployment, httpStatusOf } from '../../shared/transport';
import type { Deployment } from '../../shared/types';

const ID_HINT = 'Pick the deployment from the list, or enter its ID exactly as RunComfy shows it (Deployment → List returns every ID).';

function checkId(node: INode, raw: unknown, what: string, hint: string, itemIndex?: number): string {
	const id = String(raw ?? '').trim();
	if (!id) {
		throw new NodeOperationError(node, `The ${what} is empty`, { itemIndex, description: hint });
	}
	if (id.includes('..') || /[\s/\\?#%]/.test(id)) {
		throw new NodeOperationError(node, `The ${what} "${id}" is not valid: it must not contain spaces, "/", "\\", "?", "#", "%" or ".."`, {
			itemIndex,
			description: hint,
		});
	}
	return id;
}

/** The deployment of the resource locator (list or ID mode), checked before any call. */
export function readDeploymentId(ctx: IExecuteFunctions, itemIndex: number): string {
	const raw = ctx.getNodeParameter('deploymentId', itemIndex, '', { extractValue: true });
	return checkId(ctx.getNode(), raw, 'Deployment ID', ID_HINT, itemIndex);
}

export function currentDeploymentId(ctx: ILoadOptionsFunctions): string | undefined {
	const raw = ctx.getCurrentNodeParameter('deploymentId', { extractValue: true });
	const id = String(raw ?? '').trim();
	if (!id || id.includes('..') || /[\s/\\?#%]/.test(id)) return undefined;
	return id;
}

export function readRequestId(ctx: IExecuteFunctions, itemIndex: number): string {
	const raw = ctx.getNodeParameter('requestId', itemIndex, '');
	return checkId(
		ctx.getNode(),
		raw,
		'Request ID',
		'Use the request_id from the output of Run (for example the expression {{ $json.request_id }}).',
		itemIndex,
	);
}

export function readInstanceId(ctx: IExecuteFunctions, itemIndex: number): string {
	const raw = ctx.getNodeParameter('instanceId', itemIndex, '');
	return checkId(
		ctx.getNode(),
		raw,
		'Instance ID',
		'Use the instance_id from Get Status while the request is in progress (for example {{ $json.instance_id }}). Instance IDs are only valid while the instance runs.',
		itemIndex,
	);
}

export const isNotFound = (error: unknown): boolean => httpStatusOf(error) === 404;

/** A 404 on a deployment, said plainly: which id, and what to do. Other errors pass through unchanged. */
export function deploymentNotFound(ctx: IExecuteFunctions, error: unknown, deploymentId: string, itemIndex: number): unknown {
	if (!isNotFound(error)) return error;
	const message = `No deployment with ID "${deploymentId}" exists on this RunComfy account`;
	const description = `${ID_HINT} It may have been deleted. Nothing was changed on the service.`;
	if (error instanceof NodeApiError) {
		error.message = message;
		error.description = description;
		if (error.context) error.context.itemIndex = itemIndex;
		return error;
	}
	return new NodeOperationError(ctx.getNode(), message, { itemIndex, description });
}

/**
 * One GET (with the saved workflow) per deployment and execution, shared by every item of a batch.
 * A failed lookup stays cached, so every item of that deployment reports the same error from one call.
 */
export class DeploymentCache {
	private readonly entries = new Map<string, Promise<Deployment>>();

	constructor(private readonly ctx: IExecuteFunctions) {}

	async get(deploymentId: string): Promise<Deployment> {
		let entry = this.entries.get(deploymentId);
		if (!entry) {
			entry = getDeployment(this.ctx, deploymentId, { includePayload: true });
			entry.catch(() => undefined);
			this.entries.set(deploymentId, entry);
		}
		return await entry;
	}
}

/** Runs a deployment call, turning a 404 into the plain "no such deployment" error. */
export async function onDeployment<T>(ctx: IExecuteFunctions, deploymentId: string, itemIndex: number, call: () => Promise<T>): Promise<T> {
	try {
		return await call();
	} catch (error) {
		throw deploymentNotFound(ctx, error, deploymentId, itemIndex);
	}
}

/** A short label for messages: "text-to-image (a1b2…)". */
export const deploymentLabel = (deployment: Deployment | undefined, id: string): string =>
	deployment?.name ? `"${deployment.name}" (${id})` : `"${id}"`;
