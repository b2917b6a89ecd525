/**
 * Rows of the bad-input table for numbers: EVERY numeric option of every node (found in the nodes' descriptions,
 * so a new one cannot be forgotten: an operation without base parameters here fails its file at load), each
 * given NaN, "10s", -1, a huge value and an object, and (but the trigger's) expressions that give nothing. Each must
 * give an error naming the field, the item and the value, before anything is written, paid or cancelled. Not a test file itself.
 */
import type { IDataObject, INodeParameters, INodeProperties } from 'n8n-workflow';

import type { Sandbox } from '../../../sandbox';
import type { InputItem } from '../../helpers/engine';
import { defaultTypeVersion } from '../../helpers/engine-runtime';
import type { FixtureName, Fixtures, NodeKey, Row } from './table';
import { NODES, SDXL, STABLE, byId, createDeployment, dataset, inference, job, modelOp, modelRun, noWrites, simpleSubmit } from './table';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

/**
 * What every numeric field is given, and how the error must show it. `raw` is the same value for the trigger,
 * whose poll the harness runs without n8n's expression sandbox.
 */
export const BAD_NUMBERS: Array<{ what: string; value: unknown; raw?: unknown; shown: string }> = [
	{ what: 'NaN', value: '={{ NaN }}', raw: NaN, shown: 'NaN' },
	{ what: 'text with a unit', value: '10s', shown: '"10s"' },
	{ what: 'negative', value: -1, shown: '-1' },
	{ what: 'huge', value: 1e12, shown: '1000000000000' },
	{ what: 'an object', value: '={{ { "a": 1 } }}', raw: { a: 1 }, shown: '{"a":1}' },
];

/**
 * Expressions that give nothing (a missing column, an empty cell, a null): refused with the expression and what it
 * gave, never taken as the default. Not for the trigger, whose threshold has no default (every empty value is
 * refused as not a number, and its poll runs without n8n's expression sandbox).
 */
export const EMPTY_EXPRESSIONS: Array<{ what: string; value: string; shown: string }> = [
	{ what: 'an expression over a missing column', value: '={{ $json.missingColumn }}', shown: 'undefined' },
	{ what: 'an expression giving "" (an empty cell)', value: '={{ "" }}', shown: '""' },
	{ what: 'an expression giving null', value: '={{ null }}', shown: 'null' },
];

interface Base {
	needs?: FixtureName[];
	parameters: (fx: Fixtures) => INodeParameters;
	inputItems?: (sb: Sandbox) => InputItem[];
}

/** Valid parameters of each operation that has a numeric option, with every option shown (waits and downloads on). */
const WAITED = { waitForCompletion: true, downloadOutputs: true };
const BASES: Record<string, Base> = {
	'model:model:run': { parameters: () => modelRun(STABLE.flash, { prompt: 'x' }, WAITED) },
	'model:model:getResult': {
		needs: ['mixedHostsRun'],
		parameters: (fx) => modelOp('getResult', fx.mixedHostsRun, { downloadOutputs: true }),
	},
	'model:catalog:getManyModels': { parameters: () => ({ resource: 'catalog', operation: 'getManyModels', returnAll: false }) },
	'model:catalog:getManyCategories': { parameters: () => ({ resource: 'catalog', operation: 'getManyCategories', returnAll: false }) },
	'deployment:deployment:getAll': { parameters: () => ({ resource: 'deployment', operation: 'getAll', returnAll: false }) },
	'deployment:deployment:create': { parameters: () => createDeployment({}) },
	'deployment:deployment:update': {
		parameters: () => ({ resource: 'deployment', operation: 'update', deploymentId: byId(SDXL), updateFields: {} }),
	},
	'deployment:inference:run': { parameters: () => inference(SDXL, { '6': { inputs: { text: 'x' } } }, WAITED) },
	'deployment:inference:getResult': {
		needs: ['deploymentRequest'],
		parameters: (fx) => ({
			resource: 'inference',
			operation: 'getResult',
			deploymentId: byId(SDXL),
			requestId: fx.deploymentRequest,
			downloadOutputs: true,
		}),
	},
	'deployment:inference:cancel': {
		needs: ['deploymentRequest'],
		parameters: (fx) => ({
			resource: 'inference',
			operation: 'cancel',
			deploymentId: byId(SDXL),
			requestId: fx.deploymentRequest,
			waitForCompletion: true,
		}),
	},
	'dataset:dataset:getAll': { parameters: () => ({ resource: 'dataset', operation: 'getAll', returnAll: false }) },
	'dataset:dataset:uploadFile': {
		needs: ['draftDataset'],
		parameters: (fx) => dataset('uploadFile', fx.draftDataset.id, { waitForCompletion: true }),
		inputItems: () => [{ json: {}, binary: { data: { data: PNG, mimeType: 'image/png', fileName: 'a.png' } } }],
	},
	'dataset:dataset:uploadFromUrl': {
		needs: ['draftDataset'],
		parameters: (fx) => dataset('uploadFromUrl', fx.draftDataset.id, { url: '={{ $json.url }}', waitForCompletion: true }),
		inputItems: (sb) => [{ json: { url: `${sb.urls.files}/files/a.png` } }],
	},
	'dataset:dataset:uploadCaption': {
		needs: ['draftDataset'],
		parameters: (fx) => dataset('uploadCaption', fx.draftDataset.id, { fileName: 'a.png', text: 'a photo', waitForCompletion: true }),
	},
	'dataset:dataset:waitUntilReady': { needs: ['readyDataset'], parameters: (fx) => dataset('waitUntilReady', fx.readyDataset.id) },
	'training:trainingJob:submit': { needs: ['readyDataset'], parameters: (fx) => simpleSubmit(fx, WAITED) },
	'training:trainingJob:resume': { needs: ['stoppedJob'], parameters: (fx) => job('resume', fx.stoppedJob.id, WAITED) },
	'training:trainingJob:getResult': {
		needs: ['stoppedJob'],
		parameters: (fx) => job('getResult', fx.stoppedJob.id, { downloadOutputs: true }),
	},
	'trigger::balanceBelow': { parameters: () => ({ event: 'balanceBelow' }) },
};

/** Numeric options that are not of type number in the UI (a list of numbers) but numbers all the same. */
const NUMERIC_CHOICES = ['gpuCount'];

export interface NumericField {
	node: NodeKey;
	/** "resource:operation" (the trigger: ":event"). */
	operation: string;
	/** Where the value goes, e.g. "waitOptions.maxWaitSeconds". */
	path: string;
	label: string;
}

const list = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

/** Whether a field's `@version` condition (a version, or `{ _cnd: { gte: 1.1 } }`) shows it at `version`. */
function shownAtVersion(show: IDataObject | undefined, version: number): boolean {
	const allowed = show?.['@version'];
	if (!Array.isArray(allowed)) return true;
	return allowed.some((c) => {
		if (typeof c === 'number') return c === version;
		const cnd = (c as { _cnd?: Record<string, number> })._cnd ?? {};
		return Object.entries(cnd).every(([op, v]) =>
			op === 'gte' ? version >= v : op === 'lte' ? version <= v : op === 'gt' ? version > v : op === 'lt' ? version < v : version === v,
		);
	});
}

/** Every numeric option a new node of `node` shows (its latest version), per operation, from its description. */
export function numericFields(node: NodeKey): NumericField[] {
	const out: NumericField[] = [];
	const version = defaultTypeVersion(NODES[node]);
	const walk = (props: INodeProperties[], prefix: string, outerShow?: IDataObject) => {
		for (const p of props) {
			if (!shownAtVersion(p.displayOptions?.show as IDataObject | undefined, version)) continue;
			const show = (p.displayOptions?.show as IDataObject | undefined) ?? outerShow ?? {};
			if (p.type === 'number' || NUMERIC_CHOICES.includes(p.name)) {
				const operations =
					node === 'trigger'
						? list(show.event).map((e) => `:${e}`)
						: list(show.resource).flatMap((r) => list(show.operation).map((o) => `${r}:${o}`));
				for (const operation of operations) out.push({ node, operation, path: `${prefix}${p.name}`, label: p.displayName });
			}
			if (p.type === 'collection' && p.options) walk(p.options as INodeProperties[], `${prefix}${p.name}.`, show);
		}
	};
	walk(NODES[node].description.properties, '');
	return out;
}

function withValue(parameters: INodeParameters, path: string, value: unknown): INodeParameters {
	const out = structuredClone(parameters) as IDataObject;
	const keys = path.split('.');
	let at = out;
	for (const key of keys.slice(0, -1)) at = (at[key] = { ...((at[key] as IDataObject | undefined) ?? {}) }) as IDataObject;
	at[keys[keys.length - 1]] = value as IDataObject[string];
	return out as INodeParameters;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function baseOf(field: NumericField): Base {
	const base = BASES[`${field.node}:${field.operation}`];
	if (!base)
		throw new Error(`bad-input numbers: no base parameters for ${field.node} ${field.operation} (a new numeric option "${field.label}"?)`);
	return base;
}

/** The rows for every numeric option of `node` × every bad value. */
export function numericRows(node: NodeKey): Row[] {
	return numericFields(node).flatMap((field) => {
		const base = baseOf(field);
		const item = node === 'trigger' ? '' : ' of item 0';
		const bad = BAD_NUMBERS.map(
			(bad): Row => ({
				name: `${field.operation} "${field.label}" (${field.path}) ${bad.what}`,
				node,
				parameters: (fx) => withValue(base.parameters(fx), field.path, node === 'trigger' && 'raw' in bad ? bad.raw : bad.value),
				inputItems: base.inputItems,
				error: new RegExp(`^"${escape(field.label)}"${item} must be .+, but is ${escape(bad.shown)}$`),
				fix: /^Enter a plain number \(.+\); an expression must produce one\./,
				check: noWrites,
			}),
		);
		const empty = EMPTY_EXPRESSIONS.map(
			(empty): Row => ({
				name: `${field.operation} "${field.label}" (${field.path}) ${empty.what}`,
				node,
				parameters: (fx) => withValue(base.parameters(fx), field.path, empty.value),
				inputItems: base.inputItems,
				error: new RegExp(
					`^"${escape(field.label)}" of item 0 is empty: its expression ${escape(empty.value.slice(1))} gave ${escape(empty.shown)}$`,
				),
				fix: /^An expression that gives nothing \(a missing column, a misspelt field name, an empty cell\) is refused rather than taken as the default\. Make it produce a number \(.+\)/,
				check: noWrites,
			}),
		);
		return node === 'trigger' ? bad : [...bad, ...empty];
	});
}

/** The fixtures the numeric rows of `node` need. */
export const numericFixtures = (node: NodeKey): FixtureName[] => [...new Set(numericFields(node).flatMap((f) => baseOf(f).needs ?? []))];
