/**
 * helpers/config/yamlSafeJson.ts: JSON text that JSON, YAML 1.2 and YAML 1.1 readers (the `yaml` library, and
 * PyYAML's resolvers, which ai-toolkit uses) all read as the same data, with floats as floats and ints as ints.
 */
import { toYamlSafeJson, yamlSafeNumber, yamlSafeString } from '../../../../nodes/RunComfyTraining/helpers/config/yamlSafeJson';
import { parseYamlSubset } from '../../../../nodes/RunComfyTraining/helpers/config/yamlSubset';
import { numbersIn, numbersOf, parse11, parse12, PYYAML_FLOAT, PYYAML_INT } from './yamlOracles';

const NASTY_STRINGS = [
	'',
	'plain',
	'with: colon',
	'# not a comment',
	'- not a list',
	'it\'s "quoted"',
	'back\\slash',
	'line1\nline2',
	'cr\r\nlf',
	'tab\there',
	'  leading and trailing  ',
	'yes',
	'no',
	'null',
	'~',
	'123',
	'1e-4',
	'@at',
	'`tick`',
	'{braces}',
	'[brackets]',
	'emoji 🎨 and ünïcødé',
	'line\u2028separator',
	'para\u2029separator',
	'nel\u0085char',
	'bom\ufeff',
	'bell\u0007',
	'del\u007f',
	'c1\u009b',
	'lone\ud800surrogate',
];

describe('strings', () => {
	it.each(NASTY_STRINGS)('writes %j so that JSON, YAML 1.2, YAML 1.1 and the subset reader read it back unchanged', (value) => {
		const data = { value, list: [value], [value]: 'as a key' };
		const text = toYamlSafeJson(data);
		expect(JSON.parse(text)).toEqual(data);
		expect(parse12(text)).toEqual(data);
		expect(parse11(text)).toEqual(data);
		expect(parseYamlSubset(text)).toEqual(data);
	});

	it('writes YAML line breaks and C1 controls as escapes, and keeps emoji as they are', () => {
		expect(yamlSafeString('a\u2028b\u0085c\u009fd')).toBe('"a\\u2028b\\u0085c\\u009fd"');
		expect(yamlSafeString('🎨')).toBe('"🎨"');
	});
});

describe('numbers', () => {
	const FLOATS = [0.0001, 1e-4, 5e-5, 1e-7, 2.5e-5, 1.5e-7, 3.5, 0.05, 0.99, -0.5, 123.456, 1e-300];
	const INTS = [0, 1, 4, 42, 1500, -3, 123456789, 2 ** 53, 1e21, 1e300];

	it('writes learning rates like 1e-4, 5e-5 and 1e-7 with a dot, so YAML 1.1 reads them as floats', () => {
		expect(yamlSafeNumber(1e-4)).toBe('0.0001');
		expect(yamlSafeNumber(5e-5)).toBe('0.00005');
		expect(yamlSafeNumber(1e-7)).toBe('1.0e-7');
		expect(yamlSafeNumber(1.5e-7)).toBe('1.5e-7');
		expect(yamlSafeNumber(-1e-7)).toBe('-1.0e-7');
		expect(yamlSafeNumber(1e21)).toBe('1000000000000000000000');
		expect(yamlSafeNumber(-0)).toBe('0');
	});

	it('keeps every float a float and every int an int for JSON, YAML 1.2, YAML 1.1 and PyYAML', () => {
		const data = { floats: FLOATS, ints: INTS, nested: { lr: 1e-7, steps: 2000, list: [{ lr: 5e-5 }] } };
		const text = toYamlSafeJson(data);
		expect(JSON.parse(text)).toEqual(data);
		expect(parse12(text)).toEqual(data);
		expect(parse11(text)).toEqual(data);
		expect(parseYamlSubset(text)).toEqual(data);
		const expected = numbersOf(data);
		const seen = numbersIn(text);
		expect(seen.map((s) => s.kind11)).toEqual(expected.map((e) => e.kind));
		expect(seen.map((s) => s.kindPyYaml)).toEqual(expected.map((e) => e.kind));
	});

	it('the PyYAML check itself tells floats, ints and number-looking strings apart', () => {
		// what a plain writer would produce: YAML 1.1 readers (PyYAML) take these as strings, the yaml library does not
		expect(numbersIn('a: 1e-7\nb: 1.0e7\n').map((s) => s.kindPyYaml)).toEqual(['string', 'string']);
		expect(numbersIn('a: 1.0e-7\nb: 0.0001\nc: 12\n').map((s) => s.kindPyYaml)).toEqual(['float', 'float', 'int']);
		expect(PYYAML_FLOAT.test(JSON.stringify(1e-7))).toBe(false);
		expect(PYYAML_INT.test(JSON.stringify(1e21))).toBe(false);
	});

	it('refuses numbers JSON cannot hold', () => {
		expect(() => yamlSafeNumber(NaN)).toThrow(/Cannot write NaN/);
		expect(() => toYamlSafeJson({ lr: Infinity })).toThrow(/Cannot write Infinity/);
	});
});

describe('layout', () => {
	it('is laid out exactly like JSON.stringify(value, null, 2) when no number needs rewriting', () => {
		const data = {
			a: { b: { c: [1, 2, { d: 'e', f: [true, false, null] }] } },
			'key with space': 'v',
			empty: [],
			none: {},
			nested: [[1, 2], ['x']],
			lr: 0.0001,
		};
		expect(toYamlSafeJson(data)).toBe(`${JSON.stringify(data, null, 2)}\n`);
	});

	it('leaves out undefined members and writes undefined list entries as null, as JSON.stringify does', () => {
		const data = { kept: 1, dropped: undefined, list: [undefined, 2] };
		expect(JSON.parse(toYamlSafeJson(data))).toEqual(JSON.parse(JSON.stringify(data)));
		expect(toYamlSafeJson({ only: undefined })).toBe('{}\n');
	});
});
