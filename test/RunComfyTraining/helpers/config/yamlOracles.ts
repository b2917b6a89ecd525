/**
 * Independent readers for config text, to check what the node writes: the `yaml` library in YAML 1.2 and 1.1
 * modes, and PyYAML's implicit resolvers (ai-toolkit reads configs with PyYAML, which is stricter about floats
 * than the `yaml` library's 1.1 mode: PyYAML reads `1e-7` and `1.0e7` as strings).
 */
import YAML from 'yaml';

export const parse12 = (text: string): unknown => YAML.parse(text);
export const parse11 = (text: string): unknown => YAML.parse(text, { version: '1.1' });

// PyYAML 6 resolver.py, tag:yaml.org,2002:int and tag:yaml.org,2002:float, the decimal forms
export const PYYAML_INT = /^[-+]?(?:0|[1-9][0-9_]*)$/;
export const PYYAML_FLOAT = /^[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?$|^\.[0-9_]+(?:[eE][-+][0-9]+)?$/;

export interface NumberSeen {
	/** The number's text as written. */
	source: string;
	/** What the `yaml` library in 1.1 mode made of it: an int (bigint), a float (number). */
	kind11: 'int' | 'float';
	/** What PyYAML's resolvers make of the same text. */
	kindPyYaml: 'int' | 'float' | 'string';
}

/** Every plain number scalar of a YAML (or JSON) text, as the `yaml` library (1.1) and PyYAML resolve it. */
export function numbersIn(text: string): NumberSeen[] {
	const doc = YAML.parseDocument(text, { version: '1.1', intAsBigInt: true });
	if (doc.errors.length) throw doc.errors[0];
	const seen: NumberSeen[] = [];
	YAML.visit(doc, {
		Scalar(_key, node) {
			if (typeof node.value !== 'number' && typeof node.value !== 'bigint') return;
			const source = text.slice(node.range![0], node.range![1]);
			seen.push({
				source,
				kind11: typeof node.value === 'bigint' ? 'int' : 'float',
				kindPyYaml: PYYAML_INT.test(source) ? 'int' : PYYAML_FLOAT.test(source) ? 'float' : 'string',
			});
		},
	});
	return seen;
}

/** Every number in plain data, in document order, with its kind (whole numbers are ints). */
export function numbersOf(value: unknown): Array<{ value: number; kind: 'int' | 'float' }> {
	if (typeof value === 'number') return [{ value, kind: Number.isInteger(value) ? 'int' : 'float' }];
	if (Array.isArray(value)) return value.flatMap(numbersOf);
	if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(numbersOf);
	return [];
}
