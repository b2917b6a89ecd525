/** @type {import('jest').Config} */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test', '<rootDir>/sandbox'],
	testMatch: ['**/*.test.ts', '**/*.test.js'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
	testTimeout: 60000,
	maxWorkers: 2,
	testSequencer: '<rootDir>/scripts/jest-sequencer.js',
};
