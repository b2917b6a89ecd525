/**
 * RUNCOMFY_TEST_PHASE (set by scripts/run-tests.js) selects the in-process suites ("unit") or the real-n8n ones
 * ("e2e"); unset, jest runs both, the real-n8n ones last (scripts/jest-sequencer.js).
 */
const phase = process.env.RUNCOMFY_TEST_PHASE;
const E2E = '/test/e2e/';

/** @type {import('jest').Config} */
module.exports = {
	preset: 'ts-jest',
	// The in-process suites run with an ordinary global object (see the file); the real-n8n ones as jest ships.
	testEnvironment: phase === 'e2e' ? 'node' : '<rootDir>/scripts/jest-environment.js',
	roots: ['<rootDir>/test', '<rootDir>/sandbox'],
	testMatch: ['**/*.test.ts', '**/*.test.js'],
	testPathIgnorePatterns: ['/node_modules/', ...(phase === 'unit' ? [E2E] : phase === 'e2e' ? [`^(?!.*${E2E})`] : [])],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
	testTimeout: 60000,
	// Two, as many as cores: with a third, a queue-mode restart under load outlasted its test's wait.
	maxWorkers: 2,
	testSequencer: '<rootDir>/scripts/jest-sequencer.js',
};
