/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * A loopback proxy in front of one origin that counts the request body bytes it passes on, as they arrive.
 * Streaming tests use it to see where the sender stood when the receiver got its bytes: a sender that holds the
 * whole file first has read all of it before the first byte arrives; a streaming one cannot be further ahead
 * than the buffers in between. Causal, so it holds on a loaded machine (no memory or time threshold).
 */
import { createServer, request, type OutgoingHttpHeaders } from 'http';
import type { AddressInfo } from 'net';

export interface MeteredRequest {
	method: string;
	url: string;
	/** Request body bytes received so far. */
	received: number;
}

export interface MeteringProxy {
	url: string;
	requests: MeteredRequest[];
	close(): Promise<void>;
}

export interface MeteringOptions {
	/** Called on every body chunk, after `received` counted it. */
	onBody?: (request: MeteredRequest) => void;
	/** Rewrites each response body (as text), e.g. to route the URLs it hands out through another proxy. */
	rewrite?: (body: string) => string;
}

export async function startMeteringProxy(target: string, options: MeteringOptions = {}): Promise<MeteringProxy> {
	const requests: MeteredRequest[] = [];
	const server = createServer((req, res) => {
		const metered: MeteredRequest = { method: req.method ?? 'GET', url: req.url ?? '/', received: 0 };
		requests.push(metered);
		const upstream = request(
			new URL(metered.url, target),
			{ method: req.method, headers: { ...req.headers, host: new URL(target).host } },
			(answer) => {
				const rewrite = options.rewrite;
				if (!rewrite) {
					res.writeHead(answer.statusCode ?? 502, answer.headers);
					answer.pipe(res);
					return;
				}
				const chunks: Buffer[] = [];
				answer.on('data', (chunk: Buffer) => chunks.push(chunk));
				answer.on('end', () => {
					const body = Buffer.from(rewrite(Buffer.concat(chunks).toString()));
					const headers: OutgoingHttpHeaders = { ...answer.headers, 'content-length': body.length };
					delete headers['transfer-encoding'];
					res.writeHead(answer.statusCode ?? 502, headers);
					res.end(body);
				});
			},
		);
		upstream.on('error', () => res.destroy());
		req.on('data', (chunk: Buffer) => {
			metered.received += chunk.length;
			options.onBody?.(metered);
		});
		// the sender hung up mid-body: pass that on, as the receiver would see it without the proxy
		req.on('close', () => {
			if (!req.complete) upstream.destroy();
		});
		req.pipe(upstream);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return {
		url: `http://127.0.0.1:${port}`,
		requests,
		close: async () => {
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
