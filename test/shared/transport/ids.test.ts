import { NodeOperationError, UserError } from 'n8n-workflow';

import { encodeId, encodeModelId, encodeProxyPath } from '../../../nodes/shared/transport';
import { testNode } from '../../helpers/testNode';

const node = testNode();

describe('encodeModelId', () => {
	it('keeps the slashes and encodes each segment', () => {
		expect(encodeModelId('blackforestlabs/flux-1-kontext/pro/edit')).toBe('blackforestlabs/flux-1-kontext/pro/edit');
		expect(encodeModelId('pub/fam ily/v+1')).toBe('pub/fam%20ily/v%2B1');
		expect(encodeModelId('pub/ünï/x%y')).toBe('pub/%C3%BCn%C3%AF/x%25y');
	});

	it('trims surrounding spaces and leading/trailing slashes (as the MCP server does)', () => {
		expect(encodeModelId('  /bytedance/seedream-4/text-to-image/  ')).toBe('bytedance/seedream-4/text-to-image');
		expect(encodeModelId('a/b//')).toBe('a/b');
	});

	it.each([
		['', 'is empty'],
		['   ', 'is empty'],
		['///', 'is empty'],
		['a//b', 'empty segment'],
		['a/./b', '"."'],
		['a/../b', '".."'],
		['..', '".."'],
		['a/b?x=1', '"?"'],
		['a/b#frag', '"#"'],
		['a\\b', '"\\"'],
		['a/b\nc', 'control character'],
		['a /b', 'spaces around a segment'],
	])('refuses %j (%s) with the fix in the description', (id, words) => {
		let thrown: unknown;
		try {
			encodeModelId(id, node, 3);
		} catch (error) {
			thrown = error;
		}
		expect(thrown).toBeInstanceOf(NodeOperationError);
		const e = thrown as NodeOperationError;
		expect(e.message).toContain(words);
		expect(e.description).toMatch(/exactly as listed by Get Many Models/);
		expect(e.context.itemIndex).toBe(3);
	});

	it('throws a UserError with the same fix when no node is given', () => {
		expect(() => encodeModelId('a//b')).toThrow(UserError);
		try {
			encodeModelId('a//b');
		} catch (error) {
			expect((error as UserError).description).toMatch(/Get Many Models/);
		}
	});

	it('refuses non-string ids', () => {
		expect(() => encodeModelId(undefined as unknown as string, node)).toThrow('The model id is missing');
		expect(() => encodeModelId({} as unknown as string, node)).toThrow('The model id is missing');
	});
});

describe('encodeId', () => {
	it('encodes one segment and trims spaces', () => {
		expect(encodeId(' 3f2c-11 ', 'request id')).toBe('3f2c-11');
		expect(encodeId('a b+c', 'job id')).toBe('a%20b%2Bc');
	});

	it.each([['a/b'], ['/a'], ['a/'], ['.'], ['..'], ['a?b'], ['a#b'], ['a\\b'], [''], ['  ']])('refuses %j', (id) => {
		expect(() => encodeId(id, 'deployment id', node)).toThrow(NodeOperationError);
	});

	it('names the id in the message', () => {
		expect(() => encodeId('x/y', 'dataset id', node)).toThrow('The dataset id "x/y" contains "/"');
		expect(() => encodeId('', 'request id', node)).toThrow('The request id is empty');
	});
});

describe('encodeProxyPath', () => {
	it('strips the leading slash, keeps segments and splits off the query', () => {
		expect(encodeProxyPath('/api/free')).toEqual({ path: 'api/free', query: undefined });
		expect(encodeProxyPath('api/history?max_items=1')).toEqual({ path: 'api/history', query: 'max_items=1' });
		expect(encodeProxyPath('api/view/a b.png')).toEqual({ path: 'api/view/a%20b.png', query: undefined });
	});

	it.each([['api/../prod/v2/balance'], ['api/%2e%2e/x'], ['api//free'], [''], ['/'], ['api/free#x']])('refuses %j', (p) => {
		expect(() => encodeProxyPath(p, node)).toThrow(NodeOperationError);
	});
});
