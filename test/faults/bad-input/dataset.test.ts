/**
 * The bad-input table (runner and rules: ./table.ts). Dataset: upload sources, ids and names, and every numeric option.
 */
import type { FixtureName, Row } from './table';
import { LOCAL_FILE_FIX, dataset, noRequests, noWrites, useBadInputTable } from './table';
import { numericFixtures, numericRows } from './numbers';

const ROWS: Row[] = [
	// Dataset
	{
		name: 'upload from a local path',
		node: 'dataset',
		parameters: (fx) => dataset('uploadFromUrl', fx.readyDataset.id, { url: '/tmp/x.png' }),
		error: /Cannot upload from "\/tmp\/x\.png": "\/tmp\/x\.png" is not a URL but a local path/,
		fix: LOCAL_FILE_FIX,
		check: noWrites,
	},
	{
		name: 'upload from a file:// URL',
		node: 'dataset',
		parameters: (fx) => dataset('uploadFromUrl', fx.readyDataset.id, { url: 'file:///etc/passwd' }),
		error: /The URL is a local file; only public http\(s\) URLs can be uploaded/,
		fix: LOCAL_FILE_FIX,
		check: noWrites,
	},
	{
		name: 'upload from a data: URI',
		node: 'dataset',
		parameters: (fx) => dataset('uploadFromUrl', fx.readyDataset.id, { url: 'data:image/png;base64,iVBORw0KGgo=' }),
		error: /The URL is a data: URI; only public http\(s\) URLs can be uploaded/,
		fix: /Give a public http\(s\) URL/,
		check: noWrites,
	},
	{
		name: 'oversize file for the direct upload (160 MB from a URL)',
		node: 'dataset',
		inputItems: (sb) => [{ json: { url: `${sb.urls.files}/files/gen/${160 * 1024 * 1024}/big.png` } }],
		parameters: (fx) => dataset('uploadFromUrl', fx.readyDataset.id, { url: '={{ $json.url }}' }),
		error: /is larger than 150 MB \(167772160 bytes declared\)/,
		fix: /use Upload File: larger files go through a signed upload URL/,
		check: (log) => expect(log.filter((e) => e.api === 'trainer' && e.method === 'POST')).toEqual([]),
	},
	{
		name: 'upload file from an item without binary data',
		node: 'dataset',
		parameters: (fx) => dataset('uploadFile', fx.readyDataset.id, { binaryPropertyName: 'data' }),
		error: /expects the node's input data to contain a binary file 'data'/,
		fix: /previous node outputs a binary file/,
		check: (log) => expect(log.filter((e) => e.method === 'POST')).toEqual([]),
	},
	{
		name: 'dataset id "a/../../b" (path injection)',
		node: 'dataset',
		parameters: dataset('getStatus', 'a/../../b'),
		error: /The dataset id "a\/\.\.\/\.\.\/b" contains "\/"/,
		fix: /Use the dataset id exactly as the service returned it/,
		check: noRequests,
	},
	{
		name: 'dataset id with "?" on Delete',
		node: 'dataset',
		parameters: dataset('delete', 'abc?force=1'),
		error: /The dataset id "abc\?force=1" contains "\?"/,
		fix: /Use the dataset id exactly as the service returned it/,
		check: noRequests,
	},
	{
		name: 'unknown dataset id',
		node: 'dataset',
		parameters: dataset('getStatus', 'ds-does-not-exist'),
		error: /404 \(40401 DATASET_NOT_FOUND\)/,
		fix: /No dataset "ds-does-not-exist" was found\. Check the dataset id \(Dataset → Get Many lists them\)/,
	},
	{
		name: 'dataset name with characters the service refuses',
		node: 'dataset',
		parameters: { resource: 'dataset', operation: 'create', name: 'my dataset!' },
		error: /422 \(42201\).*name must be/,
		fix: /These inputs were rejected: name: .*Fix them and run again/,
		check: (log) => expect(log.filter((e) => e.method === 'POST' && e.status < 400)).toEqual([]),
	},
	{
		name: 'dataset name that is already taken',
		node: 'dataset',
		parameters: (fx) => ({ resource: 'dataset', operation: 'create', name: fx.readyDataset.name }),
		error: /409 \(40901 DATASET_NAME_CONFLICT\)/,
		fix: /Choose another name, or use the existing resource/,
	},
	...numericRows('dataset'),
];

useBadInputTable(ROWS, [...new Set<FixtureName>(['readyDataset', ...numericFixtures('dataset')])]);
