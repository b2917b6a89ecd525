'use strict';
/**
 * Jest's own order, except that the suites driving a real n8n (test/e2e, queue mode included) come last: on a
 * fresh machine `npm test` provisions n8n (and Chromium, Redis, PostgreSQL) in the background meanwhile
 * (scripts/test-prerequisites.js), so both workers run the in-process suites instead of waiting for it.
 */
const Sequencer = require(require.resolve('@jest/test-sequencer', { paths: [require.resolve('jest')] })).default;

const REAL_N8N = /[\\/]test[\\/]e2e[\\/]/;

class RealN8nSuitesLast extends Sequencer {
	sort(tests) {
		const sorted = super.sort(tests);
		return [...sorted.filter((t) => !REAL_N8N.test(t.path)), ...sorted.filter((t) => REAL_N8N.test(t.path))];
	}
}

module.exports = RealN8nSuitesLast;
