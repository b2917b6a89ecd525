/**
 * Reading node parameters, for every node and the triggers. Every value can arrive from an expression as the
 * wrong type, NaN, empty or huge, so every number is checked here per item: a bad one is an error that names the
 * field, the item and the value, never a silent NaN (which once meant no sleep between polls, no workers, or no
 * size cap). An expression that gives nothing (undefined, null or "": a missing column, a misspelt field, an
 * empty cell) is refused too, rather than taken as the default; only a field left empty in the editor takes it.
 * Spending guards refuse an empty value either way: an unreadable cap never means "no cap".
 *
 * The options only a job has (wait mode, cost cap, minimum balance) are read in ./jobs/options.ts.
 */
import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';
import { NodeOperationError, jsonParse } from 'n8n-workflow';

import { isToolCall } from './items';

export interface NumberRule {
	/** The field as the UI names it, e.g. "Max Wait (Seconds)". */
	label: string;
	min?: number;
	/** The minimum itself is not allowed (intervals must be above 0). */
	above?: boolean;
	max?: number;
	integer?: boolean;
	/** How the value is meant, for the error's description: "seconds, e.g. 600". */
	example: string;
	/** What the refusal means for the service; default "Nothing was submitted." */
	outcome?: string;
	/**
	 * A spending guard: an empty value is refused even when typed in the editor (not only from an expression),
	 * with this text saying how to turn the guard off, e.g. 'Enter 0 to turn the cap off'.
	 */
	guard?: string;
}

/** A value as the user can recognise it: "10s" quoted, NaN and Infinity as such, objects as JSON. */
export const shown = (value: unknown): string => {
	let text: string;
	try {
		text =
			typeof value === 'number'
				? String(value)
				: typeof value === 'string'
					? JSON.stringify(value)
					: String(JSON.stringify(value) ?? value);
	} catch {
		text = String(value);
	}
	return text.length > 60 ? `${text.slice(0, 57)}…` : text;
};

/**
 * Parses JSON text; a JSON string that holds an object is parsed once more, because an AI tool's object sent as
 * JSON text arrives stringified again by a `JSON.stringify($fromAI(…, 'json'))` wiring. Throws on bad JSON.
 */
export function parseJsonText(text: string): unknown {
	const value: unknown = jsonParse(text);
	return typeof value === 'string' && value.trim().startsWith('{') ? jsonParse(value.trim()) : value;
}

/** undefined, null or "": what an expression over a missing column or an empty cell gives. */
export const isEmptyValue = (value: unknown): boolean => value === undefined || value === null || value === '';

/**
 * The expression of a parameter as the user wrote it (without its leading "="), read before n8n evaluates it, or
 * undefined when the value is typed in (or not set). `raw` is a value already read with `rawExpressions`.
 */
export function expressionIn(raw: unknown): string | undefined {
	return typeof raw === 'string' && raw.startsWith('=') ? raw.slice(1).trim() : undefined;
}

/** The expression of the parameter at `path` (dot paths reach into collections), or undefined. */
export function rawExpression(ctx: IExecuteFunctions, path: string, itemIndex: number): string | undefined {
	return expressionIn(ctx.getNodeParameter(path, itemIndex, null, { rawExpressions: true }) as unknown);
}

/**
 * The error for a field whose expression gave nothing: it names the field, the item, the expression and what it
 * gave, and says that the default was not taken. `wanted` is what the field takes: "a number (seconds, e.g. 600)".
 */
export function refuseEmptyExpression(
	ctx: { getNode(): INode },
	field: { label: string; itemIndex?: number; expression: string; value: unknown; wanted: string; fallback?: string; outcome?: string },
): NodeOperationError {
	const expression = field.expression.length > 60 ? `${field.expression.slice(0, 57)}…` : field.expression;
	const item = field.itemIndex === undefined ? '' : ` of item ${field.itemIndex}`;
	const value = field.value === undefined ? 'undefined' : shown(field.value);
	return new NodeOperationError(ctx.getNode(), `"${field.label}"${item} is empty: its expression ${expression} gave ${value}`, {
		itemIndex: field.itemIndex,
		description:
			`An expression that gives nothing (a missing column, a misspelt field name, an empty cell) is refused rather than taken as the default. ` +
			`Make it produce ${field.wanted}. To fall back to a value, write it into the expression, e.g. {{ $json.column ?? ${field.fallback ?? '10'} }}. ` +
			(field.outcome ?? 'Nothing was submitted.'),
	});
}

/** What a form input takes, for the refusal of an empty expression: its label, kind and an example fallback. */
export interface FormInputKind {
	label: string;
	kind: 'number' | 'boolean' | 'text';
	fallback: string;
}

/**
 * Form inputs (a resource mapper's `inputs.value`, read by the caller before n8n's type check, which turns "" into 0
 * for a number and false for a switch) whose expression gave nothing are refused: a number or switch when it gave
 * undefined, null or "", any input when it gave undefined (a missing column, a misspelt field). An empty text (""
 * or null, an empty cell) is left out like a field left empty.
 */
export function refuseEmptyFormInputs(
	ctx: IExecuteFunctions,
	itemIndex: number,
	values: IDataObject,
	describe: (key: string) => FormInputKind,
): void {
	const empty = Object.keys(values).filter((key) => isEmptyValue(values[key]));
	if (!empty.length) return;
	const raw = ctx.getNodeParameter('inputs.value', itemIndex, {}, { rawExpressions: true }) as IDataObject | null;
	for (const key of empty) {
		const expression = expressionIn(raw?.[key]);
		if (expression === undefined) continue;
		const input = describe(key);
		if (input.kind === 'text' && values[key] !== undefined) continue;
		const wanted = input.kind === 'boolean' ? 'true or false' : input.kind === 'number' ? 'a number' : 'a value';
		throw refuseEmptyExpression(ctx, { label: input.label, itemIndex, expression, value: values[key], wanted, fallback: input.fallback });
	}
}

/**
 * A number from a parameter value: numbers, and strings that hold only a number ("10"), are accepted; anything
 * else ("10s", "auto", NaN, Infinity, objects) and values out of range are refused. Without `itemIndex` (a
 * trigger's parameter) the error names no item.
 */
export function checkNumber(ctx: { getNode(): INode }, value: unknown, rule: NumberRule, itemIndex?: number): number {
	const refuse = (why: string) =>
		new NodeOperationError(ctx.getNode(), `"${rule.label}"${itemIndex === undefined ? '' : ` of item ${itemIndex}`} ${why}`, {
			itemIndex,
			description: `Enter a plain number (${rule.example}); an expression must produce one. ${rule.outcome ?? 'Nothing was submitted.'}`,
		});
	let n: number | undefined;
	if (typeof value === 'number') n = value;
	else if (typeof value === 'string' && value.trim() !== '' && /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(value.trim())) {
		n = Number(value.trim());
	}
	if (n === undefined || !Number.isFinite(n)) throw refuse(`must be a number, but is ${shown(value)}`);
	if (rule.integer && !Number.isInteger(n)) throw refuse(`must be a whole number, but is ${shown(value)}`);
	if (rule.min !== undefined && (rule.above ? n <= rule.min : n < rule.min)) {
		throw refuse(`must be ${rule.above ? 'above' : 'at least'} ${rule.min}, but is ${shown(value)}`);
	}
	if (rule.max !== undefined && n > rule.max) throw refuse(`must be at most ${rule.max}, but is ${shown(value)}`);
	return n;
}

/** Reads and checks a number parameter (dot paths reach into collections: "waitOptions.maxWaitSeconds"). */
export function readNumber(ctx: IExecuteFunctions, path: string, itemIndex: number, fallback: number, rule: NumberRule): number {
	const value = ctx.getNodeParameter(path, itemIndex, fallback) as unknown;
	if (isEmptyValue(value)) return emptyNumber(ctx, rawExpression(ctx, path, itemIndex), value, rule, itemIndex) ?? fallback;
	return checkNumber(ctx, value, rule, itemIndex);
}

/**
 * An empty number: refused when an expression gave it or the field is a spending guard; otherwise (left empty in
 * the editor) undefined, for the caller's default.
 */
export function emptyNumber(
	ctx: { getNode(): INode },
	expression: string | undefined,
	value: unknown,
	rule: NumberRule,
	itemIndex: number,
): undefined {
	const wanted = `a number (${rule.example})`;
	if (expression !== undefined)
		throw refuseEmptyExpression(ctx, { label: rule.label, itemIndex, expression, value, wanted, outcome: rule.outcome });
	if (rule.guard) {
		throw new NodeOperationError(ctx.getNode(), `"${rule.label}" of item ${itemIndex} is empty`, {
			itemIndex,
			description: `A spending guard that cannot be read is not taken as off. ${rule.guard}, or enter ${wanted}. ${rule.outcome ?? 'Nothing was submitted.'}`,
		});
	}
	return undefined;
}

/** Reads a boolean parameter; "true"/"false" strings from expressions are accepted, anything else refused. */
export function readBoolean(ctx: IExecuteFunctions, path: string, itemIndex: number, fallback: boolean, label: string): boolean {
	const value = ctx.getNodeParameter(path, itemIndex, fallback) as unknown;
	if (isEmptyValue(value)) {
		const expression = rawExpression(ctx, path, itemIndex);
		if (expression !== undefined)
			throw refuseEmptyExpression(ctx, { label, itemIndex, expression, value, wanted: 'true or false', fallback: String(fallback) });
		return fallback;
	}
	if (typeof value === 'boolean') return value;
	if (value === 'true' || value === 'false') return value === 'true';
	throw new NodeOperationError(ctx.getNode(), `"${label}" of item ${itemIndex} must be true or false, but is ${shown(value)}`, {
		itemIndex,
		description: 'Switch it on or off, or make the expression produce true or false. Nothing was submitted.',
	});
}

/** Largest file kept by a download, and the default of "Max Download Size (MB)". */
export const DEFAULT_MAX_DOWNLOAD_MB = 2048;

/** How downloaded files are laid out on output items ("Output Files"). */
export type FileLayout = 'allOnOneItem' | 'oneItemPerFile';

export const FILE_LAYOUTS: readonly FileLayout[] = ['allOnOneItem', 'oneItemPerFile'];

/** The binary field (or prefix) files go to when nothing else is set. */
export const DEFAULT_BINARY_FIELD = 'data';

/** A binary field name other nodes can address (`$binary.data`, "Input Binary Field"): no spaces or punctuation. */
const BINARY_FIELD_RE = /^[A-Za-z0-9_-]{1,100}$/;

/** The collection that holds the download details where a node keeps them out of sight (Model → Run from 1.1). */
export const DOWNLOAD_OPTIONS = 'downloadOptions';

export interface DownloadChoice {
	enabled: boolean;
	maxBytes: number;
	/** All files on the result's item, or one item per file. */
	layout: FileLayout;
	/** The binary field of the first file (the next ones on the same item get `_1`, `_2`, ...). */
	binaryField: string;
}

/**
 * "Download Outputs", "Max Download Size (MB)", "Output Files" and "Output Binary Field" of one item (never for
 * an AI agent), each checked: a kind reads them before anything is paid.
 */
export function readDownloadOptions(ctx: IExecuteFunctions, itemIndex: number, defaultOn = true): DownloadChoice {
	const toolCall = isToolCall(ctx);
	const enabled = readBoolean(ctx, 'downloadOutputs', itemIndex, defaultOn && !toolCall, 'Download Outputs');
	const off: DownloadChoice = { enabled: false, maxBytes: 0, layout: 'allOnOneItem', binaryField: DEFAULT_BINARY_FIELD };
	if (!enabled || toolCall) return off;
	// Where the details are: in the "Download Options" collection when the node has one (Model → Run from 1.1).
	const at = (name: string) => (DOWNLOAD_OPTIONS in (ctx.getNode().parameters ?? {}) ? `${DOWNLOAD_OPTIONS}.${name}` : name);
	const mb = readNumber(ctx, at('maxDownloadSizeMb'), itemIndex, DEFAULT_MAX_DOWNLOAD_MB, {
		label: 'Max Download Size (MB)',
		min: 0,
		above: true,
		max: DEFAULT_MAX_DOWNLOAD_MB,
		example: `megabytes up to ${DEFAULT_MAX_DOWNLOAD_MB}, e.g. 500`,
	});
	const layout = ctx.getNodeParameter(at('outputFiles'), itemIndex, 'allOnOneItem') as unknown;
	if (!FILE_LAYOUTS.includes(layout as FileLayout)) {
		throw new NodeOperationError(
			ctx.getNode(),
			`"Output Files" of item ${itemIndex} must be one of ${FILE_LAYOUTS.join(', ')}, but is ${shown(layout)}`,
			{
				itemIndex,
				description: 'Pick "All Files on One Item" or "One Item per File" from the list. Nothing was submitted.',
			},
		);
	}
	const rawField = ctx.getNodeParameter(at('outputBinaryField'), itemIndex, DEFAULT_BINARY_FIELD) as unknown;
	const binaryField = typeof rawField === 'string' ? rawField.trim() : rawField;
	if (typeof binaryField !== 'string' || !BINARY_FIELD_RE.test(binaryField)) {
		throw new NodeOperationError(
			ctx.getNode(),
			`"Output Binary Field" of item ${itemIndex} is not a usable field name: ${shown(rawField)}`,
			{
				itemIndex,
				description: 'Use letters, digits, "_" or "-" only (up to 100), e.g. data or image. Nothing was submitted.',
			},
		);
	}
	return { enabled: true, maxBytes: Math.floor(mb * 1024 * 1024), layout: layout as FileLayout, binaryField };
}

/** Largest "Limit" of a list operation (Return All has none). */
export const MAX_LIST_LIMIT = 10_000;
