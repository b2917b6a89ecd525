/* eslint-disable @n8n/community-nodes/no-restricted-globals */
/**
 * Failure handling of the shared transport against the sandbox over loopback: stopping the execution during a
 * retry wait, before anything is sent, and while a paid submit or a read is on the wire.
 */
import { NodeOperationError } from 'n8n-workflow';

import { getModelRequestStatus, submitModelRun } from '../../../nodes/shared/transport';
import { withExecuteContext } from '../../helpers/engine';
import { FLUX, apiCalls, useFailureSandbox } from './failures-setup';

const { sb, credentials } = useFailureSandbox();

describe('stopping the execution', () => {
	it('stops waiting for a retry when the execution is stopped, and sends nothing more', async () => {
		sb.configure({ faults: { rate429: 1, retryAfterSeconds: 8, pathPrefixes: ['/v1/requests/'] } });
		let stop: (() => void) | undefined;
		let error: unknown;
		try {
			await withExecuteContext({ credentials: credentials(), onStart: (s) => (stop = s) }, async (ctx) => {
				const pending = getModelRequestStatus(ctx, 'rid-1');
				pending.catch(() => undefined);
				// Wait (without timers) until the sandbox answered the first 429, then press Stop.
				while (!apiCalls(sb).some((e) => e.status === 429)) await new Promise((resolve) => setImmediate(resolve));
				stop?.();
				return await pending;
			});
		} catch (e) {
			error = e;
		}
		expect(error).toBeInstanceOf(NodeOperationError);
		expect((error as Error).message).toMatch(/execution was stopped/);
		expect(apiCalls(sb)).toHaveLength(1);
	});

	it('sends nothing when the execution was already stopped', async () => {
		let error: unknown;
		try {
			await withExecuteContext(
				{ credentials: credentials(), onStart: (stop) => stop() },
				async (ctx) => await submitModelRun(ctx, FLUX, { prompt: 'x' }),
			);
		} catch (e) {
			error = e;
		}
		expect((error as Error).message).toMatch(/execution was stopped/);
		// Nothing went out, so nothing can have been accepted.
		expect((error as NodeOperationError).description).toBe('Nothing else was sent.');
		expect(apiCalls(sb)).toHaveLength(0);
	});

	it('a paid submit on the wire is not cut off by Stop: it ends with its answer (the run id is not lost)', async () => {
		// The run is created at once, its answer comes 600 ms later; Stop is pressed in between.
		sb.configure({ faults: { rateSlow: 1, slowMs: 600, paidFaultTiming: 'after', methods: ['POST'], pathPrefixes: ['/v1/models/'] } });
		let stop: (() => void) | undefined;
		let stopped = false;
		const handle = await withExecuteContext({ credentials: credentials(), onStart: (s) => (stop = s) }, async (ctx) => {
			const pending = submitModelRun(ctx, FLUX, { prompt: 'x' });
			pending.catch(() => undefined);
			while (!apiCalls(sb).some((e) => e.createdId)) await new Promise((resolve) => setImmediate(resolve));
			stop?.();
			stopped = ctx.getExecutionCancelSignal()?.aborted === true;
			return await pending;
		});
		expect(stopped).toBe(true);
		const [submit] = apiCalls(sb);
		expect(handle.request_id).toBe(submit.createdId);
		expect(submit.status).toBe(200);
	});

	it('a read on the wire is cut off by Stop', async () => {
		sb.configure({ faults: { rateSlow: 1, slowMs: 5000, pathPrefixes: ['/v1/requests/'] } });
		let stop: (() => void) | undefined;
		let error: unknown;
		try {
			await withExecuteContext({ credentials: credentials(), onStart: (s) => (stop = s) }, async (ctx) => {
				const pending = getModelRequestStatus(ctx, 'rid-1');
				pending.catch(() => undefined);
				while (apiCalls(sb).length === 0) await new Promise((resolve) => setImmediate(resolve));
				stop?.();
				return await pending;
			});
		} catch (e) {
			error = e;
		}
		expect((error as Error).message).toMatch(/execution was stopped/);
		expect(apiCalls(sb)[0].status).toBe(0);
	});
});
