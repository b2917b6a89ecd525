/**
 * JSON text that every YAML reader reads as the same data. JSON is valid YAML 1.2, but the service may read
 * configs with a YAML 1.1 reader (PyYAML, which ai-toolkit uses), which differs from JSON in two places:
 * - a float needs a dot and a signed exponent: `1e-7` is a string to YAML 1.1, `1.0e-7` a float (still valid JSON);
 * - U+0085, U+2028 and U+2029 are line breaks, and C1 controls may not appear raw: they are written as `\uXXXX`.
 * Nothing here does I/O.
 */

/** Plain data a config is made of (undefined members are left out, as JSON.stringify does). */
export type PlainValue = string | number | boolean | null | undefined | PlainValue[] | { [key: string]: PlainValue };

/** A string as a JSON string literal that YAML 1.1 and 1.2 also read back unchanged. */
export function yamlSafeString(value: string): string {
	// JSON.stringify escapes C0 controls, quotes, backslashes and lone surrogates; escape the rest by code unit,
	// keeping well-formed surrogate pairs (emoji etc.) as they are.
	return JSON.stringify(value).replace(/[\u007f-\u009f\u2028\u2029\ufeff]|[\ud800-\udbff][\udc00-\udfff]/g, (c) =>
		c.length === 2 ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
	);
}

/**
 * A number as JSON that YAML 1.1 and 1.2 both read as the same number and type: whole numbers as integers,
 * others as floats with a dot before any exponent (`0.0001`, `1.0e-7`, `2.5e-5`).
 */
export function yamlSafeNumber(value: number): string {
	if (!Number.isFinite(value)) throw new Error(`Cannot write ${value} into a training config`);
	// every digit, also past 1e21 where String() switches to an exponent (which would make it a float)
	if (Number.isInteger(value)) return BigInt(value).toString();
	// JavaScript writes exponents with a sign ("1e-7", "1e+21"), which YAML 1.1 requires; only the dot can be missing
	return String(value).replace(/^(-?\d+)e/, '$1.0e');
}

function write(value: PlainValue, indent: string): string {
	if (value === null || value === undefined) return 'null';
	if (typeof value === 'string') return yamlSafeString(value);
	if (typeof value === 'number') return yamlSafeNumber(value);
	if (typeof value === 'boolean') return value ? 'true' : 'false';
	const inner = `${indent}  `;
	if (Array.isArray(value)) {
		if (value.length === 0) return '[]';
		return `[\n${value.map((item) => inner + write(item, inner)).join(',\n')}\n${indent}]`;
	}
	const members = Object.entries(value).filter(([, child]) => child !== undefined);
	if (members.length === 0) return '{}';
	return `{\n${members.map(([key, child]) => `${inner}${yamlSafeString(key)}: ${write(child, inner)}`).join(',\n')}\n${indent}}`;
}

/**
 * Plain data as JSON laid out like `JSON.stringify(value, null, 2)`, with numbers and strings written so that
 * YAML 1.1 and 1.2 readers read the same data as a JSON reader.
 */
export function toYamlSafeJson(value: PlainValue): string {
	return `${write(value, '')}\n`;
}
