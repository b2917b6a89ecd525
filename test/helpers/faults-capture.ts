/* eslint-disable @n8n/community-nodes/no-restricted-imports, no-console */
/**
 * Captures what would be written to logs while nodes run in the harness: every call of n8n's own Logger (the
 * one n8n-core's node contexts expose as `this.logger` and LoggerProxy forwards to; the harness keeps it
 * silent, so lines are recorded here instead of printed) and every console call. Used by the token scan.
 */
import { createRequire } from 'module';

import { getService } from './engine-runtime';

export interface CapturedLine {
	source: 'n8n-logger' | 'console';
	level: string;
	message: unknown;
	metadata?: unknown;
}

type LogFn = (this: unknown, level: string, message: unknown, metadata?: unknown) => void;

/**
 * Starts capturing; returns the lines (a live array) and a function that stops capturing. Call after the
 * engine runtime is up (e.g. after the first runNode or `getRuntime()`), so the Logger singleton exists.
 */
export function captureLogs(): { lines: CapturedLine[]; stop: () => void } {
	const lines: CapturedLine[] = [];
	// The Logger class n8n-core itself resolves (its nested @n8n/backend-common), and its DI singleton.
	const requireFromCore = createRequire(require.resolve('n8n-core'));
	const { Logger } = requireFromCore('@n8n/backend-common') as { Logger: abstract new (...args: never[]) => unknown };
	getService(Logger);
	const proto = Logger.prototype as { log: LogFn };
	const original = proto.log;
	proto.log = function (this: unknown, level: string, message: unknown, metadata?: unknown) {
		lines.push({ source: 'n8n-logger', level, message, metadata });
		return original.call(this, level, message, metadata);
	};
	const methods = ['log', 'info', 'warn', 'error', 'debug'] as const;
	const saved = methods.map((m) => console[m]);
	for (const m of methods) {
		console[m] = (...args: unknown[]) => {
			lines.push({ source: 'console', level: m, message: args });
		};
	}
	return {
		lines,
		stop: () => {
			proto.log = original;
			methods.forEach((m, i) => {
				console[m] = saved[i];
			});
		},
	};
}
