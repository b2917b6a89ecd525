/**
 * A multipart/form-data body with one file part, streamed from a byte stream: the file is never held in
 * memory. With a known size the body has an exact Content-Length (and a file that turns out longer or shorter
 * breaks the body instead of sending a wrong file); without one it goes chunked.
 */
import type { ByteStream } from './http';

/** `Readable.from`, reached through the source's own class (nodes may not import 'stream'). */
interface StreamClass {
	from(source: AsyncIterable<unknown>, options?: { objectMode?: boolean }): ByteStream;
}

export interface MultipartBody {
	body: ByteStream;
	/** `multipart/form-data; boundary=...` */
	contentType: string;
	/** The exact body length, when the file size is known. */
	contentLength?: number;
}

/** Quotes a form-data name the way browsers do (HTML spec): `"`, CR and LF percent-encoded, UTF-8 kept. */
const quoted = (text: string): string => `"${text.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}"`;

export function multipartFileBody(
	source: ByteStream,
	part: { field: string; fileName: string; contentType: string },
	sizeBytes?: number,
): MultipartBody {
	const boundary = `----n8n-runcomfy-${crypto.randomUUID().replace(/-/g, '')}`;
	const head = Buffer.from(
		`--${boundary}\r\nContent-Disposition: form-data; name=${quoted(part.field)}; filename=${quoted(part.fileName)}\r\n` +
			`Content-Type: ${part.contentType.replace(/[\r\n]/g, '')}\r\n\r\n`,
	);
	const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
	const streamClass = source.constructor as unknown as Partial<StreamClass>;
	if (typeof streamClass.from !== 'function') throw new TypeError('The file stream cannot be re-streamed');

	async function* parts(): AsyncGenerator<Buffer> {
		yield head;
		let sent = 0;
		for await (const chunk of source as AsyncIterable<Buffer | string>) {
			const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
			sent += bytes.length;
			if (sizeBytes !== undefined && sent > sizeBytes) {
				throw new Error(`The file is longer than the ${sizeBytes} bytes it declared`);
			}
			yield bytes;
		}
		if (sizeBytes !== undefined && sent !== sizeBytes) {
			throw new Error(`The file ended after ${sent} of the ${sizeBytes} bytes it declared`);
		}
		yield tail;
	}

	return {
		body: streamClass.from.call(source.constructor, parts(), { objectMode: false }),
		contentType: `multipart/form-data; boundary=${boundary}`,
		contentLength: sizeBytes === undefined ? undefined : head.length + sizeBytes + tail.length,
	};
}
