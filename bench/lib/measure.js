'use strict';
/** Measuring helpers: peak RSS (the kernel's VmHWM, reset per measurement), an RSS sampler, CPU time, formats. */
const fs = require('fs');
const os = require('os');
const v8 = require('v8');
const vm = require('vm');

/** `gc()` without starting node with --expose-gc. */
let gcFn;
function gc() {
	if (!gcFn) {
		v8.setFlagsFromString('--expose-gc');
		gcFn = vm.runInNewContext('gc');
	}
	gcFn();
	gcFn();
}

function procStatus() {
	const text = fs.readFileSync('/proc/self/status', 'utf8');
	const kb = (key) => {
		const m = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text);
		return m ? Number(m[1]) * 1024 : NaN;
	};
	return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/** Resets the kernel's peak-RSS counter (VmHWM) to the current RSS ("echo 5 > /proc/self/clear_refs"). */
function resetPeak() {
	try {
		fs.writeFileSync('/proc/self/clear_refs', '5');
		return true;
	} catch {
		return false;
	}
}

/**
 * Peak memory of `fn()`: exact peak RSS from VmHWM (reset before; when the kernel does not allow the reset,
 * the sampler's maximum is used), plus a 10 ms RSS/heap sampler for the curve.
 * `reset()` passed to fn lets it restart the measurement at a later point (e.g. when a node starts).
 */
async function measurePeak(fn) {
	gc();
	let base = procStatus().rss;
	let baseHeap = process.memoryUsage().heapUsed;
	let canReset = resetPeak();
	let maxRss = base;
	let maxHeap = baseHeap;
	let maxExternal = 0;
	const timer = setInterval(() => {
		const m = process.memoryUsage();
		maxRss = Math.max(maxRss, m.rss);
		maxHeap = Math.max(maxHeap, m.heapUsed);
		maxExternal = Math.max(maxExternal, m.external + m.arrayBuffers);
	}, 10);
	const reset = () => {
		const m = process.memoryUsage();
		base = procStatus().rss;
		baseHeap = m.heapUsed;
		maxRss = base;
		maxHeap = baseHeap;
		maxExternal = m.external + m.arrayBuffers;
		canReset = resetPeak();
	};
	const started = Date.now();
	let value;
	try {
		value = await fn(reset);
	} finally {
		clearInterval(timer);
	}
	const ms = Date.now() - started;
	const hwm = procStatus().hwm;
	const peak = canReset ? Math.max(hwm, maxRss) : maxRss;
	return {
		value,
		ms,
		baseRss: base,
		peakRss: peak,
		growth: peak - base,
		heapGrowth: maxHeap - baseHeap,
		source: canReset ? 'VmHWM' : 'sampled',
	};
}

function cpuMs(usage) {
	return (usage.user + usage.system) / 1000;
}

function machine() {
	const cpus = os.cpus();
	return {
		nproc: os.availableParallelism ? os.availableParallelism() : cpus.length,
		cpuModel: cpus[0] ? cpus[0].model.trim() : 'unknown',
		memory: os.totalmem(),
		node: process.version,
		platform: `${os.type()} ${os.release()} ${os.arch()}`,
	};
}

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const fmtS = (ms) => `${(ms / 1000).toFixed(2)} s`;
/** A request count: whole numbers as they are, averages to one decimal. */
const fmtReq = (x) => (Number.isInteger(x) ? String(x) : x.toFixed(1));
const pct = (a, b) => `${((100 * a) / b).toFixed(1)} %`;
const fmtMiB = (bytes) => `${(bytes / MiB).toFixed(0)} MiB`;
const fmtBytes = (bytes) =>
	bytes >= GiB ? `${(bytes / GiB).toFixed(bytes % GiB ? 2 : 0)} GiB` : bytes >= MiB ? `${(bytes / MiB).toFixed(0)} MiB` : `${bytes} bytes`;
/** The q-quantile (0..1) of the finite values, interpolated linearly; NaN when there are none. */
const quantile = (xs, q) => {
	const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
	if (!s.length) return NaN;
	const pos = (s.length - 1) * q;
	const i = Math.floor(pos);
	return i + 1 < s.length ? s[i] + (s[i + 1] - s[i]) * (pos - i) : s[i];
};

const median = (xs) => {
	const s = [...xs].sort((a, b) => a - b);
	const m = Math.floor(s.length / 2);
	return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

module.exports = { gc, measurePeak, cpuMs, machine, fmtS, fmtReq, fmtMiB, fmtBytes, pct, median, quantile, MiB, GiB };
