/**
 * Ids that go into URL paths. A model id keeps its slashes (each segment is encoded); every other id is a
 * single segment. Anything that could change which endpoint a request reaches (`.`/`..`, empty segments,
 * `?`, `#`, `\`) is refused before a request is sent.
 */
import type { INode } from 'n8n-workflow';
import { NodeOperationError, UserError } from 'n8n-workflow';

const MODEL_ID_EXAMPLE = 'blackforestlabs/flux-2/flash/text-to-image';

function fail(node: INode | undefined, message: string, description: string, itemIndex?: number): never {
	if (node) throw new NodeOperationError(node, message, { description, itemIndex });
	throw new UserError(message, { description });
}

const show = (raw: unknown): string => {
	const text = typeof raw === 'string' ? raw : String(raw);
	return text.length > 80 ? `${text.slice(0, 80)}…` : text;
};

function checkSegment(segment: string, raw: string, what: string, node: INode | undefined, fix: string, itemIndex?: number): string {
	if (segment === '') fail(node, `The ${what} "${show(raw)}" has an empty segment`, fix, itemIndex);
	if (segment === '.' || segment === '..') fail(node, `The ${what} "${show(raw)}" contains "${segment}" as a segment`, fix, itemIndex);
	if (segment.trim() !== segment) {
		fail(node, `The ${what} "${show(raw)}" has spaces around a segment`, fix, itemIndex);
	}
	return encodeURIComponent(segment);
}

function checkCommon(raw: unknown, what: string, node: INode | undefined, fix: string, itemIndex?: number): string {
	if (raw === undefined || raw === null || (typeof raw !== 'string' && typeof raw !== 'number')) {
		fail(node, `The ${what} is missing`, fix, itemIndex);
	}
	const text = String(raw);
	if (text.trim() === '') fail(node, `The ${what} is empty`, fix, itemIndex);
	for (const bad of ['?', '#', '\\']) {
		if (text.includes(bad)) fail(node, `The ${what} "${show(text)}" contains "${bad}"`, fix, itemIndex);
	}
	if (/\p{Cc}/u.test(text)) fail(node, `The ${what} contains a line break or control character`, fix, itemIndex);
	return text;
}

/**
 * Model ids keep their slashes; each segment is URL-encoded; `.`/`..`, empty, `?`, `#`, `\` are refused.
 * Surrounding spaces and leading/trailing `/` are trimmed first (as the official MCP server does).
 * With `node`, a bad id throws NodeOperationError; without, a UserError (same message and description).
 */
export function encodeModelId(modelId: string, node?: INode, itemIndex?: number): string {
	const fix = `Use the model id exactly as listed by Get Many Models, for example "${MODEL_ID_EXAMPLE}": segments separated by single "/", no spaces, no "." or ".." segments, no "?", "#" or "\\".`;
	const text = checkCommon(modelId, 'model id', node, fix, itemIndex)
		.trim()
		.replace(/^\/+|\/+$/g, '');
	if (text === '') fail(node, 'The model id is empty', fix, itemIndex);
	return text
		.split('/')
		.map((segment) => checkSegment(segment, text, 'model id', node, fix, itemIndex))
		.join('/');
}

/** Any other id used in a path (request, deployment, dataset, job, instance): one segment. */
export function encodeId(id: string, what: string, node?: INode, itemIndex?: number): string {
	const fix = `Use the ${what} exactly as the service returned it (one value, no "/", "?", "#" or "\\", no surrounding spaces).`;
	const text = checkCommon(id, what, node, fix, itemIndex).trim();
	if (text.includes('/')) fail(node, `The ${what} "${show(text)}" contains "/"`, fix, itemIndex);
	return checkSegment(text, text, what, node, fix, itemIndex);
}

/**
 * A backend path for the instance proxy: leading `/` stripped, segments encoded, `.`/`..` and empty
 * segments refused so the request cannot leave the proxy route. A `?query` part is returned separately.
 */
export function encodeProxyPath(path: string, node?: INode, itemIndex?: number): { path: string; query?: string } {
	const fix =
		'Give the backend path without the host, for example "api/free" or "api/history?max_items=1" (no "." or ".." segments, no "#" or "\\").';
	if (typeof path !== 'string' || path.trim() === '') fail(node, 'The backend path is empty', fix, itemIndex);
	let text = path.trim().replace(/^\/+/, '');
	let query: string | undefined;
	const q = text.indexOf('?');
	if (q >= 0) {
		query = text.slice(q + 1);
		text = text.slice(0, q);
	}
	if (text.includes('#') || text.includes('\\')) fail(node, `The backend path "${show(path)}" contains "#" or "\\"`, fix, itemIndex);
	if (/\p{Cc}/u.test(path)) fail(node, 'The backend path contains a line break or control character', fix, itemIndex);
	if (text === '') fail(node, 'The backend path is empty', fix, itemIndex);
	const segments = text.split('/');
	const encoded = segments
		.map((segment, i) => {
			// A trailing slash is part of some backend routes: keep it.
			if (segment === '' && i === segments.length - 1 && i > 0) return '';
			let decoded = segment;
			try {
				decoded = decodeURIComponent(segment);
			} catch {
				decoded = segment;
			}
			if (decoded === '' || decoded === '.' || decoded === '..') {
				fail(node, `The backend path "${show(path)}" has an empty, "." or ".." segment`, fix, itemIndex);
			}
			return encodeURIComponent(decoded);
		})
		.join('/');
	return { path: encoded, query: query === undefined || query === '' ? undefined : query };
}
