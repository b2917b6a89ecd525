/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals */
/**
 * A scripted HTTP server on loopback for fetch tests: routes are functions, every connection and request is
 * recorded (with its headers), and a test can await the moment the client hung up on a request.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'http';
import type { AddressInfo, Socket } from 'net';

export interface Hit {
	url: string;
	headers: IncomingHttpHeaders;
	/** Bytes of body written so far. */
	sent: number;
	/** Resolves when the client closed the connection before the response was complete. */
	hungUp: Promise<void>;
	/** True once `hungUp` resolved. */
	closedEarly: boolean;
}

export type Route = (req: IncomingMessage, res: ServerResponse, hit: Hit) => void;

export class LoopbackHost {
	private server!: Server;

	readonly hits: Hit[] = [];

	connections = 0;

	private readonly sockets = new Set<Socket>();

	private readonly timers = new Set<ReturnType<typeof setInterval>>();

	constructor(
		private readonly routes: Record<string, Route>,
		private readonly host = '127.0.0.1',
	) {}

	get port(): number {
		return (this.server.address() as AddressInfo).port;
	}

	get base(): string {
		return `http://${this.host}:${this.port}`;
	}

	url(path: string): string {
		return `${this.base}${path}`;
	}

	async start(): Promise<this> {
		this.server = createServer((req, res) => {
			let resolveHungUp!: () => void;
			const hit: Hit = {
				url: req.url ?? '/',
				headers: req.headers,
				sent: 0,
				hungUp: new Promise((r) => (resolveHungUp = r)),
				closedEarly: false,
			};
			this.hits.push(hit);
			res.on('close', () => {
				if (res.writableFinished) return;
				hit.closedEarly = true;
				resolveHungUp();
			});
			const path = (req.url ?? '/').split('?')[0];
			const route =
				this.routes[path] ??
				Object.entries(this.routes).find(([prefix]) => prefix.endsWith('*') && path.startsWith(prefix.slice(0, -1)))?.[1];
			if (!route) {
				res.writeHead(404, { 'Content-Length': 0 });
				res.end();
				return;
			}
			route(req, res, hit);
		});
		this.server.on('connection', (socket) => {
			this.connections++;
			this.sockets.add(socket);
			socket.on('close', () => this.sockets.delete(socket));
		});
		await new Promise<void>((resolve) => this.server.listen(0, this.host, resolve));
		return this;
	}

	/** A repeating server-side action (e.g. trickling a body), stopped with the server. */
	every(ms: number, fn: () => void): () => void {
		const timer = setInterval(fn, ms);
		this.timers.add(timer);
		return () => {
			clearInterval(timer);
			this.timers.delete(timer);
		};
	}

	reset(): void {
		this.hits.length = 0;
		this.connections = 0;
	}

	async stop(): Promise<void> {
		for (const timer of this.timers) clearInterval(timer);
		for (const socket of this.sockets) socket.destroy();
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
	}
}

/** Streams `total` bytes with backpressure, counting them on the hit; stops when the client goes away. */
export function streamBytes(res: ServerResponse, hit: Hit, total: number, headers: Record<string, string | number> = {}): void {
	res.writeHead(200, { 'Content-Type': 'application/octet-stream', ...headers });
	const chunk = Buffer.alloc(64 * 1024, 7);
	let stopped = false;
	res.on('close', () => (stopped = true));
	const pump = () => {
		while (!stopped && hit.sent < total) {
			const n = Math.min(chunk.length, total - hit.sent);
			hit.sent += n;
			if (!res.write(n === chunk.length ? chunk : chunk.subarray(0, n))) {
				res.once('drain', pump);
				return;
			}
		}
		if (!stopped) res.end();
	};
	pump();
}
