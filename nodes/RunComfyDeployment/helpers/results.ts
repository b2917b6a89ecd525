/**
 * What a finished deployment request becomes: the result record plus `outputs_flat` (every file and text
 * output in one list) and the compact form an AI agent gets. Downloads, allowed hosts and error texts are
 * the shared ones (nodes/shared/outputs.ts).
 */
import type { IDataObject } from 'n8n-workflow';

import type { FoundUrl } from '../../shared/download';
import { errorTextOf, outputUrlsOf, outputsPart } from '../../shared/outputs';
import type { ResultRecord } from '../../shared/types';
import { isPlainObject } from './graph';

export interface FlatOutput extends IDataObject {
	node_id: string | null;
	channel: string;
}

const URL_RE = /^https?:\/\//i;

/** Where a deployment result keeps its outputs: `outputs` (ComfyUI deployments) or `output` (LoRA deployments). */
const OUTPUT_KEYS = ['outputs', 'output'] as const;

/** The outputs part of a result: `outputs` (ComfyUI deployments) or `output` (LoRA deployments). */
export function outputsOf(result: IDataObject): { key: string; value: unknown } | undefined {
	return outputsPart(result, OUTPUT_KEYS);
}

function flattenItems(nodeId: string | null, channel: string, value: unknown, out: FlatOutput[]): void {
	if (value === null || value === undefined) return;
	if (Array.isArray(value)) {
		for (const entry of value) flattenItems(nodeId, channel, entry, out);
		return;
	}
	if (typeof value === 'string') {
		if (URL_RE.test(value.trim())) out.push({ node_id: nodeId, channel, url: value.trim() });
		else out.push({ node_id: nodeId, channel, text: value });
		return;
	}
	if (isPlainObject(value)) {
		const url =
			typeof value.url === 'string' ? value.url : typeof value.path === 'string' && URL_RE.test(value.path) ? value.path : undefined;
		if (url) {
			const entry: FlatOutput = { node_id: nodeId, channel, url };
			for (const key of ['filename', 'subfolder', 'type']) {
				if (value[key] !== undefined) entry[key] = value[key];
			}
			out.push(entry);
			return;
		}
		// An object without a URL: its string leaves are still outputs of this channel.
		for (const [key, inner] of Object.entries(value)) flattenItems(nodeId, `${channel}.${key}`, inner, out);
		return;
	}
	if (typeof value === 'number' || typeof value === 'boolean') out.push({ node_id: nodeId, channel, text: String(value) });
}

/** A map node id → map channel → list (ComfyUI's shape), as opposed to channels at the top level. */
const isNodeMap = (value: IDataObject): boolean =>
	Object.values(value).length > 0 &&
	Object.values(value).every((group) => isPlainObject(group) && Object.values(group).every((items) => Array.isArray(items)));

/**
 * Every output as one flat list: files as {node_id, channel, url, filename, subfolder, type}, texts as
 * {node_id, channel, text}. `outputs` maps node id → channel → list; a LoRA deployment's `output` is either
 * the same map or channels at the top level (then node_id is null).
 */
export function flattenOutputs(result: IDataObject): FlatOutput[] {
	const found = outputsOf(result);
	const out: FlatOutput[] = [];
	if (!found) return out;
	const { value } = found;
	if (isPlainObject(value) && isNodeMap(value)) {
		for (const [nodeId, group] of Object.entries(value)) {
			for (const [channel, items] of Object.entries(group as IDataObject)) flattenItems(nodeId, channel, items, out);
		}
		return out;
	}
	if (isPlainObject(value)) {
		for (const [channel, items] of Object.entries(value)) flattenItems(null, channel, items, out);
		return out;
	}
	flattenItems(null, 'output', value, out);
	return out;
}

/** Every URL of the outputs part, with its JSON path (for downloads). */
export function deploymentOutputUrls(result: IDataObject): FoundUrl[] {
	return outputUrlsOf(result, OUTPUT_KEYS);
}

/** The service's error text of a failed request: `error` may be a string, an object or a list of {error}. */
export function deploymentErrorText(record: IDataObject): string | undefined {
	return errorTextOf(record, ['error', 'error_message']);
}

/** The output JSON of a request's result: ids first, then the record, then the flat list of outputs. */
export function resultJson(deploymentId: string, requestId: string, result: ResultRecord): IDataObject {
	return {
		deployment_id: deploymentId,
		...result,
		request_id: requestId,
		outputs_flat: flattenOutputs(result),
	};
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** What an AI agent gets: ids, status, output URLs and texts, and a one-line summary; never binary. */
export function toolJson(json: IDataObject): IDataObject {
	const flat = (Array.isArray(json.outputs_flat) ? json.outputs_flat : []) as IDataObject[];
	const urls = flat.filter((o) => typeof o.url === 'string').map((o) => String(o.url));
	const texts = flat.filter((o) => typeof o.text === 'string').map((o) => String(o.text));
	const status = String(json.status ?? 'unknown');
	const parts = [`Request ${String(json.request_id ?? '?')} on deployment ${String(json.deployment_id ?? '?')} is ${status}`];
	if (urls.length) parts.push(`${plural(urls.length, 'output file')}: ${urls.join(', ')}`);
	if (texts.length) parts.push(plural(texts.length, 'text output'));
	if (json.still_running) parts.push('still running; fetch it later with Get Result');
	if (json.error) parts.push(`error: ${String(json.error)}`);
	const compact: IDataObject = {};
	for (const key of [
		'deployment_id',
		'request_id',
		'status',
		'error',
		'still_running',
		'cancel_outcome',
		'instance_id',
		'queue_position',
	]) {
		if (json[key] !== undefined) compact[key] = json[key];
	}
	if (urls.length) compact.output_urls = urls;
	if (texts.length) compact.output_texts = texts.map((t) => (t.length > 2000 ? `${t.slice(0, 2000)}…` : t));
	compact.summary = `${parts.join('; ')}.`;
	return compact;
}
