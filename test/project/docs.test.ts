/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals */
/**
 * The docs say what the code does: every option, field and operation name in README.md's and docs/' tables
 * and every option the prose names (*X* option, Options → X) exists in the node descriptions, and every
 * error text the error tables quote is one the named operation (or the manual's node) produces: one string in
 * the code that operation reaches, or a message the code composes from the parts listed in COMPOSED.
 */
import { existsSync, readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import type { ICredentialType, INodeProperties, INodePropertyOptions } from 'n8n-workflow';

import { RunComfyApi } from '../../credentials/RunComfyApi.credentials';
import { PAID_LOG_PREFIX } from '../../nodes/shared/jobs/paidRecord';
import { ALL_NODES, NODES_BY_FOLDER, closureOf, textsReachedFrom } from './codeTexts';

const ROOT = join(__dirname, '..', '..');
const NODES = ALL_NODES;
const CREDENTIAL: ICredentialType = new RunComfyApi();

type Entry = INodeProperties | INodePropertyOptions | { displayName?: string; name?: string; values?: Entry[]; options?: Entry[] };

/** Every property's display name and every option's name, at any depth. */
function namesIn(entries: Entry[], into: Set<string>, parameterNames: Set<string>): void {
	for (const e of entries) {
		if ('displayName' in e && typeof e.displayName === 'string') {
			into.add(e.displayName);
			if (typeof e.name === 'string') parameterNames.add(e.name);
		} else if (typeof e.name === 'string') into.add(e.name);
		if ('values' in e && Array.isArray(e.values)) namesIn(e.values, into, parameterNames);
		if ('options' in e && Array.isArray(e.options)) namesIn(e.options as Entry[], into, parameterNames);
	}
}
const UI_NAMES = new Set<string>();
const PARAMETER_NAMES = new Set<string>();
for (const node of NODES) namesIn(node.description.properties, UI_NAMES, PARAMETER_NAMES);
namesIn(CREDENTIAL.properties, UI_NAMES, PARAMETER_NAMES);
// Settings every n8n node has (the node's Settings tab), named by the docs.
for (const n8nSetting of ['Retry On Fail', 'On Error', 'Always Output Data', 'Execute Once']) UI_NAMES.add(n8nSetting);

/** Innermost `${…}` first, so a placeholder inside a nested template becomes `…` too. */
function placeholders(code: string): string {
	let out = code;
	for (let before = ''; before !== out; ) {
		before = out;
		out = out.replace(/\$\{[^{}]*\}/g, '…');
	}
	return out;
}

/**
 * Messages the code composes from parts in different places: the parts (as in the code, placeholders as `…`).
 * Each entry must still be quoted by the docs.
 */
const COMPOSED: Record<string, string[]> = {
	'Cannot upload from "…": … is a private network address': [
		'Cannot upload from "…": …',
		'`${host} is ${label}',
		"private: 'a private network address'",
	],
	'Item 0: prompt: is required but has no value.': [
		'`Item ${i}: ${problems}`',
		'`${p.input}: ${p.message}`',
		"'is required but has no value.'",
	],
	// The whole template: a quote once had a comma the message has only when an earlier batch is added in.
	'The estimated cost of N items is $… above the cap of $…': ['`The estimated cost of … item… is …… above the cap of …`'],
	'Run … did not finish within … (status: …)': ['did not finish within … (status: …)', "one: 'run'"],
	'Request … did not finish within …': ['did not finish within … (status: …)', "one: 'request'"],
	'The model run of "…" may have been accepted: …': ['The … may have been accepted: …', 'model run of "…"'],
	'Training job … stopped early at step … of …: …': ['Training job … stopped early…: …', "' at step'", '(step … of …)'],
	'RunComfy API error 404 (404001 ResourceNotFound): …': ["'404001': 'ResourceNotFound'", 'RunComfy API error……: …'],
	"Run … of … failed: <the service's reason>": ['`Run … of …`', "failed ? 'failed' : 'was cancelled'"],
	"Request … on deployment … failed: <the service's reason>": ['`Request … on deployment …`', "failed ? 'failed' : 'was cancelled'"],
};

interface Table {
	file: string;
	header: string[];
	rows: string[][];
}

const DOCS = [
	'README.md',
	...readdirSync(join(ROOT, 'docs'))
		.filter((f) => f.endsWith('.md'))
		.map((f) => `docs/${f}`),
]
	.concat(readdirSync(join(ROOT, 'docs', 'nodes')).map((f) => `docs/nodes/${f}`))
	.concat(
		existsSync(join(ROOT, 'docs', 'dev'))
			? readdirSync(join(ROOT, 'docs', 'dev'))
					.filter((f) => f.endsWith('.md'))
					.map((f) => `docs/dev/${f}`)
			: [],
	)
	.map((file) => ({ file, text: readFileSync(join(ROOT, file), 'utf8') }));

const cells = (line: string) =>
	line
		.trim()
		.replace(/^\||\|$/g, '')
		.split('|')
		.map((c) => c.trim());

function tables(): Table[] {
	const out: Table[] = [];
	for (const { file, text } of DOCS) {
		const lines = text.split('\n');
		for (let i = 0; i + 1 < lines.length; i++) {
			if (!lines[i].startsWith('|') || !/^\|\s*-/.test(lines[i + 1])) continue;
			const rows: string[][] = [];
			for (let j = i + 2; j < lines.length && lines[j].startsWith('|'); j++) rows.push(cells(lines[j]));
			out.push({ file, header: cells(lines[i]), rows });
		}
	}
	return out;
}
const TABLES = tables();
const strip = (name: string) => name.replace(/[*`]/g, '').trim();

/**
 * A name as the docs write it: exact, or with a lowercase remark in brackets ("Submit (default, paid)"), or two
 * names sharing their tail ("First / Max Poll Interval (Seconds)"), or "Option: Value".
 */
function isUiName(written: string): boolean {
	const name = written.replace(/\s*\([a-z][^)]*\)/g, '').trim();
	if (UI_NAMES.has(name)) return true;
	const shared = /^(\S+) \/ (\S+)( .+)$/.exec(name);
	if (shared && UI_NAMES.has(shared[1] + shared[3]) && UI_NAMES.has(shared[2] + shared[3])) return true;
	const both = name.split(' / ');
	if (both.length > 1) return both.every(isUiName);
	const valued = /^([^:]+): (.+)$/.exec(name);
	return valued !== null && UI_NAMES.has(valued[1]) && UI_NAMES.has(valued[2]);
}

/** A node manual's node class file, by the manual's name. */
const NODE_FILES: Record<string, string> = {
	'docs/nodes/model.md': 'RunComfyModel',
	'docs/nodes/deployment.md': 'RunComfyDeployment',
	'docs/nodes/dataset.md': 'RunComfyDataset',
	'docs/nodes/training.md': 'RunComfyTraining',
	'docs/nodes/trigger.md': 'RunComfyTrigger',
	'docs/nodes/webhook-trigger.md': 'RunComfyWebhookTrigger',
};

/**
 * Where an error row's text must come from: the operation it names in brackets ("(Edit)", an operation of the
 * manual's node), else the manual's node; rows outside a node manual may come from any node.
 */
function producerOf(file: string, cell: string): { entries: string[]; operation?: string } {
	const folder = NODE_FILES[file];
	if (!folder) return { entries: Object.values(NODE_FILES).map((f) => join(ROOT, 'nodes', f, `${f}.node.ts`)) };
	const node = NODES_BY_FOLDER[folder];
	const outside = cell.replace(/`[^`]*`/g, '');
	for (const [, name] of outside.matchAll(/\(([^)]+)\)/g)) {
		for (const p of node.description.properties.filter((x) => x.name === 'operation')) {
			const option = ((p.options ?? []) as INodePropertyOptions[]).find((o) => o.name === name);
			const resource = p.displayOptions?.show?.resource?.[0];
			if (option && typeof resource === 'string')
				return { entries: [join(ROOT, 'nodes', folder, 'actions', resource, `${String(option.value)}.operation.ts`)], operation: name };
		}
	}
	return { entries: [join(ROOT, 'nodes', folder, `${folder}.node.ts`)] };
}

describe('docs against the code', () => {
	it('every name in an Option, Field or Operation table is a name in the node descriptions', () => {
		const named = TABLES.filter((t) => ['Option', 'Field', 'Operation'].includes(t.header[0]));
		expect(named.length).toBeGreaterThan(4);
		const unknown = named.flatMap((t) =>
			t.rows.flatMap((row) =>
				row[0]
					.split(/,\s*(?![^()]*\))/)
					.map(strip)
					.filter((name) => name && !isUiName(name))
					.map((name) => `${t.file}: ${name}`),
			),
		);
		expect(unknown).toEqual([]);
	});

	it('every option the prose names ("the *X* option", "Options → X") exists', () => {
		const mentions = DOCS.flatMap(({ file, text }) => {
			const flat = text.replace(/\s*\n\s*/g, ' ');
			const found = [
				...[...flat.matchAll(/\bthe \*{1,2}([^*]+)\*{1,2} option/g)].map((m) => m[1]),
				...[...flat.matchAll(/\bOptions → \*{1,2}([^*]+)\*{1,2}/g)].map((m) => m[1]),
			];
			return found.map((name) => ({ file, name: strip(name) }));
		});
		expect(mentions.length).toBeGreaterThan(0);
		expect(mentions.filter(({ name }) => !isUiName(name)).map(({ file, name }) => `${file}: ${name}`)).toEqual([]);
	});

	it('every n8n parameter the AI-agent tables map a tool argument to exists', () => {
		const tools = TABLES.filter((t) => t.file === 'docs/ai-agents.md' && t.header[0] === 'Tool');
		expect(tools.length).toBeGreaterThan(0);
		const params = tools.flatMap((t) => t.rows.flatMap((row) => [...(row[2] ?? '').matchAll(/→ `([\w.]+)`/g)].map((m) => m[1])));
		expect(params.length).toBeGreaterThan(20);
		const unknown = params.filter((p) => !PARAMETER_NAMES.has(p.split('.').pop() as string));
		expect(unknown).toEqual([]);
	});

	it('every error text an error table quotes is one the named node or operation produces', () => {
		const errorTables = TABLES.filter((t) => t.header[0].startsWith('Error'));
		expect(errorTables.length).toBeGreaterThan(2);
		const quoted = errorTables.flatMap((t) =>
			t.rows.flatMap((row) => [...row[0].matchAll(/`([^`]+)`/g)].map((m) => ({ file: t.file, text: m[1], ...producerOf(t.file, row[0]) }))),
		);
		expect(quoted.length).toBeGreaterThan(10);
		expect(quoted.filter((q) => q.operation).length).toBeGreaterThan(0);
		// "…", "<…>", "$…", the counts N and M, and quotes or brackets around them stand for what is filled in.
		const literalParts = (text: string) =>
			text
				.split(/["($]*(?:…|<[^>]*>|\bN\b|\bM\b)[")]*/)
				.map((part) => part.trim().replace(/^[:;,.\s]+|[:;,.\s]+$/g, ''))
				.filter((part) => part.length > 2);
		/** The parts, in order, in one text. */
		const inOrder = (parts: string[], text: string) => {
			let at = 0;
			for (const part of parts) {
				const found = text.indexOf(part, at);
				if (found < 0) return false;
				at = found + part.length;
			}
			return true;
		};
		const produced = (q: (typeof quoted)[number]) => {
			if (COMPOSED[q.text]) {
				const files = new Set(q.entries.flatMap((e) => [...closureOf(e)]));
				const code = [...files]
					.map((f) => readFileSync(f, 'utf8'))
					.join('\n')
					.replace(/\\(["'`])/g, '$1');
				return COMPOSED[q.text].every((part) => code.includes(part) || placeholders(code).includes(part));
			}
			const parts = literalParts(q.text);
			return q.entries.some((entry) => textsReachedFrom(entry).some((literal) => inOrder(parts, literal)));
		};
		const missing = quoted.filter((q) => !produced(q));
		const stale = Object.keys(COMPOSED).filter((text) => !quoted.some((q) => q.text === text));
		expect(stale).toEqual([]);
		expect(missing.map(({ file, text, operation }) => `${file}${operation ? ` (${operation})` : ''}: ${text}`)).toEqual([]);
	});

	it('every paid-id log line the docs quote starts with the one prefix the code logs', () => {
		// The code spans of each doc (fenced blocks aside), a span's line breaks as spaces.
		const spans = (text: string) =>
			text
				.replace(/```[\s\S]*?```/g, '')
				.split('`')
				.filter((_, i) => i % 2 === 1)
				.map((span) => span.replace(/\s*\n\s*/g, ' '));
		const quotes = DOCS.flatMap(({ file, text }) => spans(text).map((quote) => ({ file, quote }))).filter(({ quote }) =>
			/^RunComfy\b.*\bpaid\b/.test(quote),
		);
		expect(quotes.filter(({ quote }) => quote.startsWith(PAID_LOG_PREFIX)).length).toBeGreaterThan(2);
		// What recordPaid writes: the prefix, the noun, and the node, item and id.
		const line = new RegExp(
			`^${PAID_LOG_PREFIX} (?:run|request|training job) submitted(?: \\(node "[^"]*", item \\S+, (?:request_id|job_id) \\S+\\))?$`,
		);
		expect(quotes.filter(({ quote }) => quote !== PAID_LOG_PREFIX && !line.test(quote))).toEqual([]);
	});

	it('the Wait Options table names every wait option of every node, and only those', () => {
		const table = TABLES.find((t) => t.header[0] === 'Option' && t.header[1] === 'Model / Deployment');
		expect(table).toBeDefined();
		const documented = new Set(table!.rows.map((r) => strip(r[0])));
		const inCode = new Set(
			NODES.flatMap((n) => n.description.properties)
				.filter((p) => p.name === 'waitOptions')
				.flatMap((p) => (p.options as INodeProperties[]).map((o) => o.displayName)),
		);
		expect([...documented].sort()).toEqual([...inCode].sort());
	});
});
