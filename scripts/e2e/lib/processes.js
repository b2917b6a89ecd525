'use strict';
/**
 * Child processes of the real-n8n harness: each runs in its own process group, is tracked, and dies with
 * this process (exit or SIGINT/SIGTERM/SIGHUP). Also free ports and an HTTP status probe.
 */
const fs = require('fs');
const { spawn } = require('child_process');
const http = require('http');
const net = require('net');
const os = require('os');
const path = require('path');

const { ROOT } = require('./constants');

const children = new Set();

function killGroup(child, signal) {
	if (!child.pid || child.exitCode !== null || child.signalCode !== null) return;
	try {
		process.kill(-child.pid, signal);
	} catch {
		try {
			child.kill(signal);
		} catch {
			/* already gone */
		}
	}
}

process.on('exit', () => {
	for (const child of children) killGroup(child, 'SIGKILL');
});
/** Kills every n8n (or other) process this module started. */
function killAll(signal = 'SIGKILL') {
	for (const child of children) killGroup(child, signal);
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
	const onSignal = () => {
		// Someone else handles the signal (the demo stops n8n gracefully): leave it to them.
		if (process.listenerCount(signal) > 1) return;
		killAll('SIGKILL');
		process.exit(128 + (os.constants.signals[signal] || 1));
	};
	process.on(signal, onSignal);
}

function track(child) {
	children.add(child);
	child.once('exit', () => children.delete(child));
	return child;
}

/**
 * Spawns a command in its own process group, collects its output. Resolves with
 * { code, signal, stdout, stderr } (never rejects on a non-zero exit; rejects on timeout).
 */
function run(command, args, { cwd = ROOT, env = process.env, timeoutMs = 10 * 60 * 1000, onStderr } = {}) {
	return new Promise((resolve, reject) => {
		const child = track(spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] }));
		let stdout = '';
		let stderr = '';
		child.stdout.setEncoding('utf8');
		child.stderr.setEncoding('utf8');
		child.stdout.on('data', (d) => {
			stdout += d;
		});
		child.stderr.on('data', (d) => {
			stderr += d;
			if (onStderr) onStderr(d);
		});
		const timer = setTimeout(() => {
			killGroup(child, 'SIGKILL');
			const err = new Error(`${path.basename(command)} ${args.join(' ')} timed out after ${timeoutMs} ms`);
			err.stdout = stdout;
			err.stderr = stderr;
			reject(err);
		}, timeoutMs);
		child.on('error', (err) => {
			clearTimeout(timer);
			reject(err);
		});
		child.on('close', (code, signal) => {
			clearTimeout(timer);
			resolve({ code, signal, stdout, stderr });
		});
	});
}

function defaultLog(msg) {
	process.stderr.write(`${msg}\n`);
}

/** Ports `freePort` handed out in this process. */
const handedOut = new Set();

/** The first port the OS hands out by itself (outgoing connections, listening on port 0): Linux's default 32768. */
function ephemeralStart() {
	try {
		const first = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
		return Number.isInteger(first) && first > 1024 ? first : 32768;
	} catch {
		return 32768;
	}
}

/**
 * A free loopback TCP port for a child to listen on. The port is free when asked for but only bound later, when
 * the child starts (seconds for n8n), so it is taken from below the OS's ephemeral range, which neither outgoing
 * connections nor another ask for port 0 can take meanwhile, and never one this process handed out before. (A
 * port from the OS's own choice once went to something else before a queue-mode worker bound it: the worker
 * exited, "Port … is already in use".)
 */
async function freePort() {
	const top = ephemeralStart();
	const bottom = Math.max(1025, top - 12000);
	for (;;) {
		const port = bottom + Math.floor(Math.random() * (top - bottom));
		if (handedOut.has(port)) continue;
		handedOut.add(port);
		if (await portIsFree(port)) return port;
	}
}

/** True when nothing listens on 127.0.0.1:port. */
function portIsFree(port) {
	return new Promise((resolve) => {
		const srv = net.createServer();
		srv.unref();
		srv.once('error', () => resolve(false));
		srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
	});
}

function tail(s, n = 6000) {
	return s.length > n ? `...${s.slice(-n)}` : s;
}

/**
 * Keeps the last ~1 MB of a detached child's output (echoed to stderr when asked, with an optional prefix)
 * and stops its whole process group: SIGTERM, then SIGKILL after 15 s. Returns { logs(), exited, stop() }.
 */
function supervise(child, { echo = false, prefix = '' } = {}) {
	let output = '';
	const onData = (d) => {
		output += d;
		if (output.length > 2e6) output = output.slice(-1e6);
		if (echo) process.stderr.write(`${prefix}${d}`);
	};
	child.stdout.setEncoding('utf8');
	child.stderr.setEncoding('utf8');
	child.stdout.on('data', onData);
	child.stderr.on('data', onData);
	const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
	const stop = async () => {
		if (child.exitCode !== null || child.signalCode !== null) return;
		killGroup(child, 'SIGTERM');
		const t = setTimeout(() => killGroup(child, 'SIGKILL'), 15000);
		await exited;
		clearTimeout(t);
	};
	return { logs: () => output, exited, stop };
}

function httpStatus(url) {
	return new Promise((resolve) => {
		const req = http.get(url, (res) => {
			res.resume();
			resolve(res.statusCode);
		});
		req.setTimeout(2000, () => req.destroy());
		req.on('error', () => resolve(0));
	});
}

module.exports = { killGroup, killAll, track, run, supervise, httpStatus, defaultLog, freePort, portIsFree, tail };
