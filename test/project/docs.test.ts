/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals */
/**
 * The docs say what the code does: every option, field and operation name in README.md's and docs/' tables
 * and every option the prose names (*X* option, Options → X) exists in the node descriptions, and every
 * error text the error tables quote is one the code produces.
 */
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import type { ICredentialType, INodeProperties, INodePropertyOptions, INodeType } from 'n8n-workflow';

import { RunComfyApi } from '../../credentials/RunComfyApi.credentials';
import { RunComfyDataset } from '../../nodes/RunComfyDataset/RunComfyDataset.node';
import { RunComfyDeployment } from '../../nodes/RunComfyDeployment/RunComfyDeployment.node';
import { RunComfyModel } from '../../nodes/RunComfyModel/RunComfyModel.node';
import { RunComfyTraining } from '../../nodes/RunComfyTraining/RunComfyTraining.node';
import { RunComfyTrigger } from '../../nodes/RunComfyTrigger/RunComfyTrigger.node';
import { RunComfyWebhookTrigger } from '../../nodes/RunComfyWebhookTrigger/RunComfyWebhookTrigger.node';

const ROOT = join(__dirname, '..', '..');
const NODES: INodeType[] = [
	new RunComfyModel(),
	new RunComfyDeployment(),
	new RunComfyDataset(),
	new RunComfyTraining(),
	new RunComfyTrigger(),
	new RunComfyWebhookTrigger(),
];
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

/** The nodes' and credential's sources, with template placeholders as `…` and quotes unescaped. */
function sources(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
		d.isDirectory() ? sources(join(dir, d.name)) : d.name.endsWith('.ts') ? [readFileSync(join(dir, d.name), 'utf8')] : [],
	);
}
const CODE = [...sources(join(ROOT, 'nodes')), ...sources(join(ROOT, 'credentials'))].join('\n').replace(/\\(["'`])/g, '$1');
/** Innermost `${…}` first, so a placeholder inside a nested template becomes `…` too. */
function placeholders(code: string): string {
	let out = code;
	for (let before = ''; before !== out; ) {
		before = out;
		out = out.replace(/\$\{[^{}]*\}/g, '…');
	}
	return out;
}
const CODE_TEXT = placeholders(CODE);

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
	'The estimated cost of N items is $…, above the cap of $…': ['The estimated cost of … item… is …', 'above the cap of …'],
	'Run … did not finish within … (status: …)': ['did not finish within … (status: …)', "one: 'run'"],
	'Request … did not finish within …': ['did not finish within … (status: …)', "one: 'request'"],
	'The model run of "…" may have been accepted: …': ['The … may have been accepted: …', 'model run of "…"'],
	'Training job … stopped early at step … of …: …': ['Training job … stopped early…: …', "' at step'", '(step … of …)'],
	'RunComfy API error 404 (404001 ResourceNotFound): …': ["'404001': 'ResourceNotFound'", 'RunComfy API error……: …'],
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

	it('every error text an error table quotes is in the code', () => {
		const errorTables = TABLES.filter((t) => t.header[0].startsWith('Error'));
		expect(errorTables.length).toBeGreaterThan(2);
		const quoted = errorTables.flatMap((t) =>
			t.rows.flatMap((row) => [...row[0].matchAll(/`([^`]+)`/g)].map((m) => ({ file: t.file, text: m[1] }))),
		);
		expect(quoted.length).toBeGreaterThan(10);
		// "…", "<…>", "$…", the counts N and M, and quotes or brackets around them stand for what is filled in.
		const literalParts = (text: string) =>
			text
				.split(/["($]*(?:…|<[^>]*>|\bN\b|\bM\b)[")]*/)
				.map((part) => part.trim().replace(/^[:;,.\s]+|[:;,.\s]+$/g, ''))
				.filter((part) => part.length > 2);
		const inCode = ({ text }: { text: string }) =>
			COMPOSED[text]
				? COMPOSED[text].every((part) => CODE.includes(part) || CODE_TEXT.includes(part))
				: literalParts(text).every((part) => CODE_TEXT.includes(part));
		const missing = quoted.filter((q) => !inCode(q));
		const stale = Object.keys(COMPOSED).filter((text) => !quoted.some((q) => q.text === text));
		expect(stale).toEqual([]);
		expect(missing.map(({ file, text }) => `${file}: ${text}`)).toEqual([]);
	});
});
