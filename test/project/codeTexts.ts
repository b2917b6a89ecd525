/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * The texts the nodes show and produce, for the project tests: every property and option of each node, the
 * texts they show, and the string literals (a template's placeholders as `…`, literals joined by `+` as one) of
 * every source file an operation's module imports, directly or not. Not a test file itself.
 */
import { existsSync, readFileSync } from 'fs';
import type { INodeProperties, INodePropertyOptions, INodeType } from 'n8n-workflow';
import { dirname, join, resolve } from 'path';

import { RunComfyDataset } from '../../nodes/RunComfyDataset/RunComfyDataset.node';
import { RunComfyDeployment } from '../../nodes/RunComfyDeployment/RunComfyDeployment.node';
import { RunComfyModel } from '../../nodes/RunComfyModel/RunComfyModel.node';
import { RunComfyTraining } from '../../nodes/RunComfyTraining/RunComfyTraining.node';
import { RunComfyTrigger } from '../../nodes/RunComfyTrigger/RunComfyTrigger.node';
import { RunComfyWebhookTrigger } from '../../nodes/RunComfyWebhookTrigger/RunComfyWebhookTrigger.node';

/** Every node, by its folder under nodes/. */
export const NODES_BY_FOLDER: Record<string, INodeType> = {
	RunComfyModel: new RunComfyModel(),
	RunComfyDeployment: new RunComfyDeployment(),
	RunComfyDataset: new RunComfyDataset(),
	RunComfyTraining: new RunComfyTraining(),
	RunComfyTrigger: new RunComfyTrigger(),
	RunComfyWebhookTrigger: new RunComfyWebhookTrigger(),
};
export const ALL_NODES: INodeType[] = Object.values(NODES_BY_FOLDER);

export type Entry = INodeProperties | INodePropertyOptions;

/** Every property and option at any depth. */
export const everyEntry = (entries: Entry[]): Entry[] =>
	entries.flatMap((e) => [
		e,
		...('options' in e && Array.isArray(e.options) ? everyEntry(e.options as Entry[]) : []),
		...('values' in e && Array.isArray(e.values) ? everyEntry(e.values as Entry[]) : []),
	]);

/** Every text a node shows: names, descriptions, hints, notices and tool descriptions (a string default). */
export const NODE_TEXTS = ALL_NODES.flatMap((node) =>
	everyEntry(node.description.properties).flatMap((e) =>
		[
			'displayName' in e ? e.displayName : undefined,
			e.description,
			'hint' in e ? e.hint : undefined,
			'default' in e ? e.default : undefined,
		]
			.filter((t): t is string => typeof t === 'string')
			.map((text) => ({ node: node.description.name, name: e.name, text })),
	),
);

/** The string literals of one source text, comments skipped. */
export function literalsOf(source: string): string[] {
	const out: string[] = [];
	let i = 0;
	let joinNext = false;
	const push = (text: string) => {
		if (joinNext && out.length) out[out.length - 1] += text;
		else out.push(text);
		joinNext = false;
	};
	/** A string from `i` (at its quote); template placeholders become `…`. Returns the index after it. */
	const readString = (start: number): [string, number] => {
		const quote = source[start];
		let text = '';
		let j = start + 1;
		while (j < source.length && source[j] !== quote) {
			if (source[j] === '\\') {
				text += source[j + 1];
				j += 2;
			} else if (quote === '`' && source[j] === '$' && source[j + 1] === '{') {
				j = skipExpression(j + 2);
				text += '…';
			} else text += source[j++];
		}
		return [text, j + 1];
	};
	/** Past the `}` closing a template placeholder whose expression starts at `start`. */
	const skipExpression = (start: number): number => {
		let depth = 1;
		let j = start;
		while (j < source.length && depth > 0) {
			const c = source[j];
			if (c === "'" || c === '"' || c === '`') j = readString(j)[1];
			else {
				if (c === '{') depth++;
				if (c === '}') depth--;
				j++;
			}
		}
		return j;
	};
	while (i < source.length) {
		const c = source[i];
		if (c === '/' && source[i + 1] === '/') i = source.indexOf('\n', i) === -1 ? source.length : source.indexOf('\n', i);
		else if (c === '/' && source[i + 1] === '*') i = source.indexOf('*/', i) + 2;
		else if (c === "'" || c === '"' || c === '`') {
			const [text, next] = readString(i);
			push(text);
			i = next;
			const after = /^\s*\+\s*(?=['"`])/.exec(source.slice(i, i + 200));
			if (after) {
				joinNext = true;
				i += after[0].length;
			}
		} else i++;
	}
	return out;
}

/** The file an import specifier names, if it is one of ours. */
function resolveImport(from: string, specifier: string): string | undefined {
	if (!specifier.startsWith('.')) return undefined;
	const base = resolve(dirname(from), specifier);
	return [`${base}.ts`, join(base, 'index.ts')].find((f) => existsSync(f));
}

/** Every source file `entry` reaches through its imports (itself included). */
export function closureOf(entry: string, seen = new Set<string>()): Set<string> {
	if (seen.has(entry)) return seen;
	seen.add(entry);
	const source = readFileSync(entry, 'utf8');
	for (const m of source.matchAll(/(?:import|export)\s[^;]*?from\s+'([^']+)'/g)) {
		const file = resolveImport(entry, m[1]);
		if (file) closureOf(file, seen);
	}
	return seen;
}

/** The string literals of every file `entry` reaches. */
export function textsReachedFrom(entry: string): string[] {
	return [...closureOf(entry)].flatMap((file) => literalsOf(readFileSync(file, 'utf8')));
}
