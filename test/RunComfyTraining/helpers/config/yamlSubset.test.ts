/**
 * helpers/config/yamlSubset: the YAML-subset reader, checked against the `yaml` library (YAML 1.1 mode) as an
 * oracle on realistic ai-toolkit configs and on 1000 generated documents, and its honest refusals.
 */
import YAML from 'yaml';

import { parseYamlSubset } from '../../../../nodes/RunComfyTraining/helpers/config/yamlSubset';
import { CORPUS } from './yamlCorpus';

describe('YAML subset reader', () => {
	it.each(Object.keys(CORPUS))('reads %s exactly like a YAML 1.1 parser', (key) => {
		const text = CORPUS[key];
		const expected = YAML.parseAllDocuments(text, { version: '1.1' })[0].toJS();
		expect(parseYamlSubset(text)).toEqual(expected);
	});

	it('agrees with a YAML 1.1 parser on 1000 generated documents in the styles YAML tools write', () => {
		let seed = 7;
		const rand = () => {
			seed = (seed * 1103515245 + 12345) % 2147483648;
			return seed / 2147483648;
		};
		const pick = <T>(list: T[]): T => list[Math.floor(rand() * list.length)];
		const words = [
			'a',
			'tab\there',
			'a: b: c',
			'- x',
			'long text with spaces that goes on and on and on for a while to wrap maybe',
			'trailing \n\n',
			'\n\nlead',
			'x #y',
			'"q"',
			'@x',
			'%y',
			'!t',
			'&a',
			'*b',
			'|',
			'>',
			'? q',
			'name',
			'/app/ai-toolkit/output',
			"it's",
			'x: y',
			'#hash',
			'yes',
			'12',
			'1.5',
			'ü',
			'multi\nline',
			' pad ',
			'',
			'a - b',
			'[x]',
			'null',
		];
		const value = (depth: number): unknown => {
			const r = rand();
			if (depth > 3 || r < 0.45) return pick<unknown>([pick(words), Math.floor(rand() * 1000), rand() > 0.5, null, 0.25]);
			if (r < 0.7) return Array.from({ length: Math.floor(rand() * 4) }, () => value(depth + 1));
			const obj: Record<string, unknown> = {};
			for (let k = 0; k < 1 + Math.floor(rand() * 4); k++) {
				obj[pick(['config', 'name', 'process', 'datasets', 'folder_path', 'key two', 'k'])] = value(depth + 1);
			}
			return obj;
		};
		let compared = 0;
		for (let n = 0; n < 1000; n++) {
			const text = YAML.stringify(
				{ config: value(0) },
				{
					version: '1.1',
					indent: pick([2, 4]),
					indentSeq: rand() > 0.5,
					collectionStyle: pick(['any', 'block', 'block', 'flow'] as const),
					defaultStringType: pick(['PLAIN', 'PLAIN', 'QUOTE_DOUBLE', 'QUOTE_SINGLE'] as const),
					lineWidth: pick([0, 20, 80]),
				},
			);
			let expected: unknown;
			try {
				expected = YAML.parse(text, { version: '1.1' });
			} catch {
				continue; // the generator itself wrote something invalid (a known yaml stringify corner); not our input
			}
			compared++;
			expect({ n, text, read: parseYamlSubset(text) }).toEqual({ n, text, read: expected });
		}
		expect(compared).toBeGreaterThan(950);
	});

	it('folds multi-line plain scalars as YAML does (blank lines become line breaks)', () => {
		const text = 'config:\n  name: first\n    second\n\n    third\n  other: x\n';
		expect(parseYamlSubset(text)).toEqual(YAML.parse(text, { version: '1.1' }));
		expect(parseYamlSubset(text)).toEqual({ config: { name: 'first second\nthird', other: 'x' } });
	});

	it("resolves plain scalars as PyYAML (ai-toolkit's reader) does: 1e-4 without a dot stays a string", () => {
		expect(parseYamlSubset('lr: 1e-4\nb: 1.0e-4\nc: yes\nd: ~\n')).toEqual({ lr: '1e-4', b: 0.0001, c: true, d: null });
	});

	it.each([
		['aliases', 'config:\n  a: &x 1\n  b: *x\n'],
		['merge keys', 'base: &b {x: 1}\nconfig:\n  <<: *b\n'],
		['custom tags', 'config: !python/object foo\n'],
		['tab indentation', 'config:\n\tname: x\n'],
		['a broken quote', 'config:\n  name: "open\n'],
		['bad indentation', 'config:\n  name: a\n    extra: b\n'],
	])('refuses %s honestly instead of guessing', (_what, text) => {
		expect(() => parseYamlSubset(text)).toThrow(/not read by this node|Tabs|not closed|indentation|Unexpected|Expected/);
	});

	it('reads JSON texts (the Simple form sends JSON) like JSON.parse, except floats PyYAML would take as strings', () => {
		const data = { config: { name: 'j', process: [{ lr: 0.0001, list: [1, 'two', null, true, 'a: b'], empty: {}, none: [] }] } };
		for (const text of [JSON.stringify(data), JSON.stringify(data, null, 2), JSON.stringify(data, null, '\t').replace(/\t/g, '    ')]) {
			expect(parseYamlSubset(text)).toEqual(JSON.parse(text));
		}
		// why the Simple form writes 1.0e-7: a YAML 1.1 reader takes JSON.stringify's 1e-7 as a string
		expect(parseYamlSubset(JSON.stringify({ lr: 1e-7 }))).toEqual({ lr: '1e-7' });
		expect(parseYamlSubset('{"lr": 1.0e-7}')).toEqual({ lr: 1e-7 });
	});
});
