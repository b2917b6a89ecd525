/**
 * One owner for retrying a failed status request: the wait engine. Its polls go out once each (transport
 * `retry: 'never'`), and the engine repeats a failed one on its own schedule, as many times in a row as the
 * transport's retry policy allows any request; a plain Get Status keeps the transport's retries.
 * Proven from the sandbox's request log.
 */
import { getRetryPolicy } from '../../nodes/shared/transport';
import { runNode } from '../helpers/engine';
import { FAST_WAIT, MODELS, credentialsFor, isStatus, node, requestIdOf, runParams, useSandbox } from './setup';

describe('Model → Run: failed status polls are retried by the wait engine alone', () => {
	const sb = useSandbox({ runDurationMs: 30, queueMs: 0 });
	afterEach(() => sb.configure({ faults: { rate5xx: 0, rate429: 0 } }));

	it('every status request failing: the run is polled maxAttempts times in all, then its item fails with its request id', async () => {
		// Every GET under /v1/requests/ answers 500; learning off, so only status requests are sent.
		sb.configure({ faults: { rate5xx: 1, pathPrefixes: ['/v1/requests/'], methods: ['GET'] } });
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			continueOnFail: true,
			inputItems: [{ json: {} }],
			parameters: runParams(
				MODELS.flash,
				{ prompt: 'a lighthouse' },
				{ downloadOutputs: false, waitOptions: { ...FAST_WAIT, learnRunTimes: false } },
			),
		});
		const json = result.items[0].json;
		const id = String(json.request_id);
		expect(json.error).toEqual(expect.any(String));
		const statuses = sb.log().filter((e) => isStatus(e) && requestIdOf(e) === id);
		expect(statuses).toHaveLength(getRetryPolicy().maxAttempts);
	});

	it('Get Status, a single call, keeps the transport retries', async () => {
		const run = await runNode({
			node,
			credentials: credentialsFor(sb),
			inputItems: [{ json: {} }],
			parameters: runParams(MODELS.flash, { prompt: 'a lighthouse' }, { downloadOutputs: false, waitForCompletion: false }),
		});
		const id = String(run.items[0].json.request_id);
		sb.configure({ faults: { rate5xx: 1, pathPrefixes: ['/v1/requests/'], methods: ['GET'] } });
		const status = await runNode({
			node,
			credentials: credentialsFor(sb),
			continueOnFail: true,
			inputItems: [{ json: {} }],
			parameters: { resource: 'model', operation: 'getStatus', requestId: id },
		});
		expect(status.items[0].json.error).toEqual(expect.any(String));
		expect(sb.log().filter((e) => isStatus(e) && requestIdOf(e) === id)).toHaveLength(getRetryPolicy().maxAttempts);
	});
});
