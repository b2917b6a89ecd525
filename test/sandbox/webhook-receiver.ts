/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * A webhook receiver on 127.0.0.1 for the sandbox's deliveries: records each POST and answers with the status
 * the test chooses, or never ('hang', to make the sandbox time out). Not a test file itself.
 */
import http from 'http';
import type { AddressInfo } from 'net';

export interface Delivery {
	path: string;
	query: Record<string, string>;
	headers: http.IncomingHttpHeaders;
	// eslint-disable-next-line @typescript-eslint/no-explicit-any
	body: any;
}

/** The HTTP status to answer with, or 'hang' for no answer at all. */
export type Answer = (delivery: Delivery, index: number) => number | 'hang';

export interface Receiver {
	/** `http://127.0.0.1:<port><path>` */
	url(path: string): string;
	deliveries: Delivery[];
	answerWith(answer: Answer): void;
	close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
	const deliveries: Delivery[] = [];
	const hanging: http.ServerResponse[] = [];
	let answer: Answer = () => 200;
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			const url = new URL(req.url ?? '/', 'http://receiver.invalid');
			const text = Buffer.concat(chunks).toString('utf8');
			const delivery = {
				path: url.pathname,
				query: Object.fromEntries(url.searchParams),
				headers: req.headers,
				body: text ? JSON.parse(text) : null,
			};
			deliveries.push(delivery);
			const reply = answer(delivery, deliveries.length - 1);
			if (reply === 'hang') {
				hanging.push(res);
				return;
			}
			res.writeHead(reply, { 'Content-Type': 'application/json' }).end('{"ok":true}');
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const port = (server.address() as AddressInfo).port;
	return {
		url: (path) => `http://127.0.0.1:${port}${path}`,
		deliveries,
		answerWith(next) {
			answer = next;
		},
		async close() {
			for (const res of hanging) res.destroy();
			server.closeAllConnections();
			await new Promise<void>((resolve) => server.close(() => resolve()));
		},
	};
}
