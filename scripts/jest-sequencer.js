'use strict';
/**
 * Jest's own order, except that the suites driving a real n8n (test/e2e, queue mode included) come last: on a
 * fresh machine `npm test` provisions n8n (and Chromium, Redis, PostgreSQL) in the background meanwhile
 * (scripts/test-prerequisites.js), so both workers run the in-process suites instead of waiting for it. Among
 * those, the suites on n8n 1.x come last: its install follows the pinned n8n's.
 */
const Sequencer = require(require.resolve('@jest/test-sequencer', { paths: [require.resolve('jest')] })).default;

const REAL_N8N = /[\\/]test[\\/]e2e[\\/]/;
const { N8N_1X_SUITES: N8N_1X } = require('./test-prerequisites');

const rank = (t) => (!REAL_N8N.test(t.path) ? 0 : N8N_1X.test(t.path) ? 2 : 1);

class RealN8nSuitesLast extends Sequencer {
	sort(tests) {
		const sorted = super.sort(tests);
		return [0, 1, 2].flatMap((r) => sorted.filter((t) => rank(t) === r));
	}
}

module.exports = RealN8nSuitesLast;
