/**
 * The bad-input table (runner and rules: ./table.ts). Trigger ("Fetch test event"): watched ids, and every numeric option.
 */
import type { INodeParameters } from 'n8n-workflow';

import type { FixtureName, Row } from './table';
import { noRequests, useBadInputTable } from './table';
import { numericFixtures, numericRows } from './numbers';

const trigger = (requestIds: string): INodeParameters => ({ event: 'request', requestType: 'model', requestIds });

const ROWS: Row[] = [
	// Trigger ("Fetch test event")
	{
		name: 'trigger watching a request id "../x"',
		node: 'trigger',
		parameters: trigger('../x'),
		error: /The request id "\.\.\/x" contains "\/"/,
		fix: /Use the request id exactly as the service returned it/,
		check: noRequests,
	},
	{
		name: 'trigger watching a request id that does not exist',
		node: 'trigger',
		parameters: trigger('6d2c1f8e-0000-4000-8000-000000000002'),
		error: /404 \(404001 ResourceNotFound\)/,
		fix: /Check the request id: it must come from a model run/,
	},
	{
		name: 'trigger with a wrong token',
		node: 'trigger',
		parameters: trigger('6d2c1f8e-0000-4000-8000-000000000000'),
		credentials: { accessToken: 'dummy-wrong-token-456' },
		error: /401 \(401001 Unauthorized\)/,
		fix: /RunComfy did not accept the access token/,
	},
	...numericRows('trigger'),
];

useBadInputTable(ROWS, [...new Set<FixtureName>([...numericFixtures('trigger')])]);
