'use strict';
/**
 * Fault injection with a seeded PRNG. One roll per eligible request decides: drop, 5xx, 429, slow or none.
 * Eligible: API requests (not /__sandbox, not the file host unless `pathPrefixes` names its paths), narrowed by
 * `pathPrefixes` and `methods` when given. Not rolled: `acceptedErrorCode` (server.js) marks every accepted
 * paid POST and dataset create/upload answer.
 */

/** mulberry32: small deterministic PRNG. */
function mulberry32(seed) {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

class FaultInjector {
	constructor() {
		this.configure({});
	}

	configure(faults) {
		this.faults = { ...(faults || {}) };
		this.random = mulberry32(this.faults.seed ?? 1);
	}

	/** @returns {null | 'drop' | '5xx' | '429' | 'slow'} */
	roll(api, path, method) {
		const f = this.faults;
		const total = (f.rateDrop || 0) + (f.rate5xx || 0) + (f.rate429 || 0) + (f.rateSlow || 0);
		if (total <= 0) return null;
		if (Array.isArray(f.methods) && f.methods.length > 0 && !f.methods.includes(method)) return null;
		if (Array.isArray(f.pathPrefixes) && f.pathPrefixes.length > 0) {
			if (!f.pathPrefixes.some((p) => path.startsWith(p))) return null;
		} else if (api === 'files' || api === 'foreign') {
			return null;
		}
		const r = this.random();
		let edge = f.rateDrop || 0;
		if (r < edge) return 'drop';
		edge += f.rate5xx || 0;
		if (r < edge) return '5xx';
		edge += f.rate429 || 0;
		if (r < edge) return '429';
		edge += f.rateSlow || 0;
		if (r < edge) return 'slow';
		return null;
	}

	get timing() {
		return this.faults.paidFaultTiming || 'before';
	}

	get slowMs() {
		return this.faults.slowMs ?? 2000;
	}

	get retryAfterSeconds() {
		return this.faults.retryAfterSeconds ?? 1;
	}
}

module.exports = { FaultInjector, mulberry32 };
