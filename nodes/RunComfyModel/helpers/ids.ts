import type { IExecuteFunctions, ILoadOptionsFunctions, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

/**
 * The model id of the picker, trimmed of spaces and surrounding slashes (as the MCP server does), checked
 * before any call: slash-separated, no empty, `.` or `..` segments, no characters that would change the URL.
 */
export function normaliseModelId(node: INode, raw: unknown, itemIndex?: number): string {
	const id = String(raw ?? '')
		.trim()
		.replace(/^\/+|\/+$/g, '');
	const fail = (why: string) =>
		new NodeOperationError(node, `The model ID "${id}" is not valid: ${why}`, {
			itemIndex,
			description:
				'Pick a model from the list, or enter its ID exactly as the catalog lists it, e.g. blackforestlabs/flux-2/flash/text-to-image.',
		});
	if (!id) {
		throw new NodeOperationError(node, 'No model is selected', {
			itemIndex,
			description: 'Pick a model in the "Model" field (From List or By ID).',
		});
	}
	if (!id.includes('/')) throw fail('a model ID has at least two parts separated by "/"');
	const segments = id.split('/');
	if (segments.some((s) => s === '' || s === '.' || s === '..')) {
		throw fail('it contains an empty, "." or ".." part');
	}
	if (/[\s?#\\%]/.test(id)) throw fail('it contains spaces or one of ? # \\ %');
	return id;
}

export function readModelId(ctx: IExecuteFunctions, itemIndex: number): string {
	const raw = ctx.getNodeParameter('model', itemIndex, '', { extractValue: true });
	return normaliseModelId(ctx.getNode(), raw, itemIndex);
}

export function currentModelId(ctx: ILoadOptionsFunctions): string | undefined {
	const raw = ctx.getCurrentNodeParameter('model', { extractValue: true });
	const id = String(raw ?? '').trim();
	if (!id) return undefined;
	try {
		return normaliseModelId(ctx.getNode(), id);
	} catch {
		return undefined;
	}
}

/** A request id is checked before any call: not empty, no whitespace, no path characters, no `..`. */
export function readRequestId(ctx: IExecuteFunctions, itemIndex: number): string {
	const raw = ctx.getNodeParameter('requestId', itemIndex, '') as unknown;
	const id = String(raw ?? '').trim();
	const description = 'Use the request_id from the output of a Run (for example with the expression {{ $json.request_id }}).';
	if (!id) {
		throw new NodeOperationError(ctx.getNode(), 'The Request ID is empty', { itemIndex, description });
	}
	if (id.includes('..') || /[\s/\\?#%]/.test(id)) {
		throw new NodeOperationError(
			ctx.getNode(),
			`The Request ID "${id}" is not valid: it must not contain spaces, "/", "\\", "?", "#", "%" or ".."`,
			{ itemIndex, description },
		);
	}
	return id;
}
