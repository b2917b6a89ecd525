import type { IExecuteFunctions } from 'n8n-workflow';

/**
 * The same context, except that its requests are not tied to the execution's cancel signal. Used only for
 * the cancel requests sent after the user pressed Stop: the transport refuses to start a request once the
 * signal has aborted, but those cancels must still reach the service (as the CLI does on Ctrl-C).
 */
export function detachedFromStop(ctx: IExecuteFunctions): IExecuteFunctions {
	return new Proxy(ctx, {
		get(target, property) {
			if (property === 'getExecutionCancelSignal') return () => undefined;
			const value: unknown = Reflect.get(target, property, target);
			return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
		},
	});
}
