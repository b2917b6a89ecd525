/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * A guard for tests of hostile URLs: while it is on, every outgoing TCP connection of this process is
 * recorded, and any that is not to loopback (127.0.0.0/8, ::1, localhost) is refused before it is made. So a
 * test that checks "refused before connecting" cannot reach an internal or public address even when the code
 * under test regresses; it fails on the recorded attempt instead.
 *
 * Stand-ins: a connection to a host listed in `standIns` (a name or an address) is recorded under that host and
 * sent to a loopback port instead, so a test can play "the internet" (or what a name answers when the
 * connection resolves it) with loopback servers.
 */
import net from 'net';

export interface ConnectAttempt {
	host: string;
	port: number;
}

export interface NetGuard {
	/** Every connection attempt while the guard was on (loopback ones included). */
	attempts: ConnectAttempt[];
	/** The attempts to anything but loopback and the stand-ins (all refused). */
	offMachine(): ConnectAttempt[];
	/** Attempts to this loopback port. */
	to(port: number): ConnectAttempt[];
	restore(): void;
}

const isLoopback = (host: string): boolean => {
	const h = host.replace(/^\[|\]$/g, '').toLowerCase();
	return h === 'localhost' || h === '::1' || h === '::ffff:127.0.0.1' || /^127\.\d+\.\d+\.\d+$/.test(h);
};

/** Reads host and port from the many ways `socket.connect` is called (options object, normalized array, args). */
function targetOf(args: unknown[]): ConnectAttempt | undefined {
	let options: unknown = args[0];
	if (Array.isArray(options)) options = options[0]; // net's normalized [options, callback] form
	if (typeof options === 'object' && options !== null) {
		const o = options as { host?: string; port?: number | string; path?: string };
		if (o.path) return undefined; // a Unix socket, not the network
		return { host: o.host ?? 'localhost', port: Number(o.port) };
	}
	if (typeof options === 'number' || typeof options === 'string') {
		if (typeof options === 'string' && !/^\d+$/.test(options)) return undefined; // a Unix socket path
		return { host: typeof args[1] === 'string' ? args[1] : 'localhost', port: Number(options) };
	}
	return undefined;
}

/** Points a connect call at 127.0.0.1:`port` (options objects are changed in place, the normalized array kept). */
function redirectTo(args: unknown[], port: number): unknown[] {
	const options: unknown = Array.isArray(args[0]) ? args[0][0] : args[0];
	if (typeof options === 'object' && options !== null) {
		Object.assign(options, { host: '127.0.0.1', port });
		return args;
	}
	return [port, '127.0.0.1', ...args.slice(typeof args[1] === 'string' ? 2 : 1)];
}

export function guardConnections(standIns: Record<string, number> = {}): NetGuard {
	const attempts: ConnectAttempt[] = [];
	const original = net.Socket.prototype.connect;
	const standInOf = (host: string): number | undefined => {
		const key = host.replace(/^\[|\]$/g, '').toLowerCase();
		return Object.hasOwn(standIns, key) ? standIns[key] : undefined;
	};
	const patched = function (this: net.Socket, ...args: unknown[]) {
		const target = targetOf(args);
		if (target) {
			attempts.push(target);
			const standIn = standInOf(target.host);
			if (standIn !== undefined) {
				args = redirectTo(args, standIn);
			} else if (!isLoopback(target.host)) {
				const refusal = Object.assign(new Error(`test guard: no connection to ${target.host}:${target.port}`), { code: 'ECONNREFUSED' });
				queueMicrotask(() => this.destroy(refusal));
				return this;
			}
		}
		return (original as (...a: unknown[]) => net.Socket).apply(this, args);
	};
	net.Socket.prototype.connect = patched as unknown as typeof original;
	return {
		attempts,
		offMachine: () => attempts.filter((a) => !isLoopback(a.host) && standInOf(a.host) === undefined),
		to: (port) => attempts.filter((a) => a.port === port && isLoopback(a.host)),
		restore: () => {
			net.Socket.prototype.connect = original;
		},
	};
}
