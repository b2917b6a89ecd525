/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals */
/**
 * `npm test` prepares only what the selected suites need (scripts/test-prerequisites.js), and jest runs the
 * real-n8n suites last (scripts/jest-sequencer.js) so both workers have work while n8n is provisioned.
 */
import { join } from 'path';

import { ROOT } from '../../scripts/e2e/n8n';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { pathPatterns, prerequisitesFor } = require('../../scripts/test-prerequisites') as {
	pathPatterns(args: string[]): string[];
	prerequisitesFor(args: string[]): { n8n: boolean; chromium: boolean; queueServices: boolean };
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const RealN8nSuitesLast = require('../../scripts/jest-sequencer') as new () => {
	sort(tests: Array<{ path: string; context: unknown }>): Array<{ path: string }>;
};

describe('test prerequisites', () => {
	it('are all prepared for the whole suite', () => {
		expect(prerequisitesFor([])).toEqual({ n8n: true, chromium: true, queueServices: true, n8n1x: true });
		// -t filters test names, not files: still the whole suite.
		expect(prerequisitesFor(['-t', 'unit only', '--runInBand'])).toEqual({ n8n: true, chromium: true, queueServices: true, n8n1x: true });
	});

	it('follow the selected paths', () => {
		expect(prerequisitesFor(['test/shared', 'test/RunComfyModel'])).toEqual({
			n8n: false,
			chromium: false,
			queueServices: false,
			n8n1x: false,
		});
		expect(prerequisitesFor(['test/e2e/engine'])).toEqual({ n8n: true, chromium: false, queueServices: false, n8n1x: false });
		expect(prerequisitesFor(['test/e2e'])).toEqual({ n8n: true, chromium: true, queueServices: true, n8n1x: true });
		expect(prerequisitesFor(['test/e2e/trigger'])).toEqual({ n8n: true, chromium: false, queueServices: false, n8n1x: false });
		expect(prerequisitesFor(['editor'])).toEqual({ n8n: true, chromium: true, queueServices: false, n8n1x: false });
		expect(prerequisitesFor(['test/e2e/queue'])).toEqual({ n8n: true, chromium: false, queueServices: true, n8n1x: false });
		expect(prerequisitesFor(['test/e2e/versions'])).toEqual({ n8n: true, chromium: false, queueServices: false, n8n1x: true });
		expect(prerequisitesFor(['retry-execution'])).toEqual({ n8n: true, chromium: false, queueServices: false, n8n1x: true });
		expect(prerequisitesFor(['--testPathPattern=queue-mode'])).toEqual({ n8n: true, chromium: false, queueServices: true, n8n1x: false });
	});

	it('take path patterns, not option values, from jest arguments', () => {
		expect(pathPatterns(['test/a', '-t', 'name', '--maxWorkers', '1', '--ci', 'b'])).toEqual(['test/a', 'b']);
	});
});

describe('jest sequencer', () => {
	it('runs the real-n8n suites (test/e2e, queue mode included) after every in-process suite, those on n8n 1.x last', () => {
		const context = { config: { cache: false, rootDir: ROOT }, hasteFS: { getSize: () => 1000 } };
		const files = [
			'test/e2e/versions.test.ts',
			'test/e2e/editor.test.ts',
			'test/shared/wait/engine.test.ts',
			'test/e2e/queue/queue-mode.test.ts',
			'sandbox/x.test.js',
			'test/e2e/engine.test.ts',
			'test/e2e/retry-execution.test.ts',
		];
		const sorted = new RealN8nSuitesLast()
			.sort(files.map((f) => ({ path: join(ROOT, f), context })))
			.map((t) => t.path.slice(ROOT.length + 1));
		expect(sorted.slice(0, 2).sort()).toEqual(['sandbox/x.test.js', 'test/shared/wait/engine.test.ts']);
		expect(sorted.slice(2, 5).sort()).toEqual(['test/e2e/editor.test.ts', 'test/e2e/engine.test.ts', 'test/e2e/queue/queue-mode.test.ts']);
		// The suites that also run on n8n 1.x last: that n8n is installed after the pinned one.
		expect(sorted.slice(5).sort()).toEqual(['test/e2e/retry-execution.test.ts', 'test/e2e/versions.test.ts']);
	});
});

describe('npm test phases (jest.config.js, RUNCOMFY_TEST_PHASE)', () => {
	const ignoredIn = (phase: string | undefined, file: string): boolean => {
		const saved = process.env.RUNCOMFY_TEST_PHASE;
		if (phase === undefined) delete process.env.RUNCOMFY_TEST_PHASE;
		else process.env.RUNCOMFY_TEST_PHASE = phase;
		try {
			let config: { testPathIgnorePatterns: string[] } = { testPathIgnorePatterns: [] };
			jest.isolateModules(() => {
				// eslint-disable-next-line @typescript-eslint/no-require-imports
				config = require('../../jest.config.js') as typeof config;
			});
			return config.testPathIgnorePatterns.some((p) => new RegExp(p).test(join(ROOT, file)));
		} finally {
			if (saved === undefined) delete process.env.RUNCOMFY_TEST_PHASE;
			else process.env.RUNCOMFY_TEST_PHASE = saved;
		}
	};
	const files = ['test/e2e/engine.test.ts', 'test/e2e/queue/queue-mode.test.ts', 'test/shared/wait/engine.test.ts', 'sandbox/x.test.js'];

	it('unit runs every suite outside test/e2e, e2e only those inside, together every suite', () => {
		expect(files.filter((f) => !ignoredIn('unit', f))).toEqual(['test/shared/wait/engine.test.ts', 'sandbox/x.test.js']);
		expect(files.filter((f) => !ignoredIn('e2e', f))).toEqual(['test/e2e/engine.test.ts', 'test/e2e/queue/queue-mode.test.ts']);
		expect(files.filter((f) => !ignoredIn(undefined, f))).toEqual(files);
	});
});
