/** A stand-in for a sandbox opened later (in a `beforeAll` hook); light: no engine is loaded with it. */
import type { Sandbox } from '../../sandbox';

/**
 * A Sandbox that stands for the one `current()` returns when it is used (for suites that open theirs in a
 * `beforeAll` hook); using it before that throws.
 */
export function lazySandbox(current: () => Sandbox | undefined): Sandbox {
	const sb = (): Sandbox => {
		const opened = current();
		if (!opened) throw new Error('The sandbox is opened in beforeAll: use it inside tests and hooks only');
		return opened;
	};
	return {
		get urls() {
			return sb().urls;
		},
		get token() {
			return sb().token;
		},
		get stable() {
			return sb().stable;
		},
		configure: (next) => sb().configure(next),
		reset: (next) => sb().reset(next),
		log: (sinceSeq) => sb().log(sinceSeq),
		clearLog: () => sb().clearLog(),
		state: () => sb().state(),
		close: async () => await sb().close(),
	};
}
