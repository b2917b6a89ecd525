/**
 * RUNCOMFY_TEST_PHASE (set by scripts/run-tests.js) selects the in-process suites ("unit") or the real-n8n ones
 * ("e2e"); unset, jest runs both, the real-n8n ones last (scripts/jest-sequencer.js).
 */
const phase = process.env.RUNCOMFY_TEST_PHASE;
const E2E = '/test/e2e/';

/** @type {import('jest').Config} */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test', '<rootDir>/sandbox'],
	testMatch: ['**/*.test.ts', '**/*.test.js'],
	testPathIgnorePatterns: ['/node_modules/', ...(phase === 'unit' ? [E2E] : phase === 'e2e' ? [`^(?!.*${E2E})`] : [])],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
	testTimeout: 60000,
	// The real-n8n suites spend much of their time waiting on n8n and the sandbox: a third one keeps both cores busy.
	maxWorkers: phase === 'e2e' ? 3 : 2,
	testSequencer: '<rootDir>/scripts/jest-sequencer.js',
};
