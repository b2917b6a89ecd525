/**
 * File names and types of fetched files: the one MIME table, names from URLs and from Content-Disposition
 * (RFC 6266 / RFC 5987), names made safe, and sizes written for people.
 */

const MAX_FILE_NAME_LENGTH = 200;

/** Types by extension (the CLI's dataset guesses plus the output kinds the services produce). */
const MIME_BY_EXTENSION: Record<string, string> = {
	png: 'image/png',
	jpg: 'image/jpeg',
	jpeg: 'image/jpeg',
	webp: 'image/webp',
	gif: 'image/gif',
	bmp: 'image/bmp',
	tif: 'image/tiff',
	tiff: 'image/tiff',
	avif: 'image/avif',
	svg: 'image/svg+xml',
	mp4: 'video/mp4',
	webm: 'video/webm',
	mov: 'video/quicktime',
	mkv: 'video/x-matroska',
	avi: 'video/x-msvideo',
	wav: 'audio/wav',
	mp3: 'audio/mpeg',
	flac: 'audio/flac',
	ogg: 'audio/ogg',
	m4a: 'audio/mp4',
	safetensors: 'application/octet-stream',
	ckpt: 'application/octet-stream',
	bin: 'application/octet-stream',
	yaml: 'application/yaml',
	yml: 'application/yaml',
	txt: 'text/plain',
	json: 'application/json',
	zip: 'application/zip',
};

/** The extension a type gets when the name has none (the first extension listed for it, plus aliases). */
const EXTENSION_BY_MIME: Record<string, string> = {
	...Object.fromEntries(
		Object.entries(MIME_BY_EXTENSION)
			.filter(([, mime]) => mime !== 'application/octet-stream')
			.reverse()
			.map(([ext, mime]) => [mime, ext]),
	),
	'image/jpeg': 'jpg',
	'image/jpg': 'jpg',
	'image/tiff': 'tiff',
	'application/yaml': 'yaml',
	'application/x-yaml': 'yaml',
	'text/yaml': 'yaml',
	'audio/x-wav': 'wav',
	'audio/wave': 'wav',
	'audio/mp3': 'mp3',
	'audio/x-flac': 'flac',
};

const GENERIC_TYPES = new Set(['application/octet-stream', 'binary/octet-stream']);

export const extensionOf = (name: string): string | undefined => {
	const m = /\.([A-Za-z0-9]{1,12})$/.exec(name);
	return m ? m[1].toLowerCase() : undefined;
};

/** MIME type from Content-Type (parameters stripped), else from the file extension, else octet-stream. */
export function mimeTypeFor(contentType: unknown, fileName: string): string {
	const fromHeader = typeof contentType === 'string' ? contentType.split(';')[0].trim().toLowerCase() : '';
	if (fromHeader && !GENERIC_TYPES.has(fromHeader)) return fromHeader;
	const ext = extensionOf(fileName);
	if (ext && MIME_BY_EXTENSION[ext]) return MIME_BY_EXTENSION[ext];
	return fromHeader || 'application/octet-stream';
}

/** `name` with the extension its type implies, when it has none. */
export function withExtension(name: string, mimeType: string): string {
	if (extensionOf(name)) return name;
	const ext = EXTENSION_BY_MIME[mimeType];
	return ext ? `${name}.${ext}` : name;
}

/** No path separators, no control characters, no leading dots, at most ~200 characters (extension kept). */
export function sanitizeFileName(name: string): string {
	let clean = name
		.replace(/\p{Cc}/gu, '')
		.replace(/[/\\:*?"<>|]/g, '_')
		.trim()
		.replace(/^\.+/, '')
		.trim();
	if (clean === '' || /^[._\s]*$/.test(clean)) return '';
	if (clean.length > MAX_FILE_NAME_LENGTH) {
		const ext = extensionOf(clean);
		const suffix = ext ? `.${ext}` : '';
		clean = clean.slice(0, MAX_FILE_NAME_LENGTH - suffix.length) + suffix;
	}
	return clean;
}

/** Percent-decodes `text`; undefined when it is not valid percent-encoding of UTF-8 (never throws). */
function percentDecode(text: string, charset: 'utf-8' | 'latin1'): string | undefined {
	const bytes: number[] = [];
	for (let i = 0; i < text.length; i++) {
		const ch = text[i];
		if (ch === '%') {
			const hex = text.slice(i + 1, i + 3);
			if (!/^[0-9a-fA-F]{2}$/.test(hex)) return undefined;
			bytes.push(parseInt(hex, 16));
			i += 2;
		} else {
			const code = ch.charCodeAt(0);
			if (code > 0x7f) return undefined; // RFC 5987 values are ASCII; anything else is malformed
			bytes.push(code);
		}
	}
	if (charset === 'latin1') return Buffer.from(bytes).toString('latin1');
	try {
		return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes));
	} catch {
		return undefined;
	}
}

/** The last path segment of the URL, decoded and made safe as a file name ('' when there is none). */
export function fileNameFromUrl(url: string): string {
	let pathname: string;
	try {
		pathname = new URL(url).pathname;
	} catch {
		return '';
	}
	const segment = pathname.split('/').filter(Boolean).pop() ?? '';
	return sanitizeFileName(percentDecode(segment, 'utf-8') ?? segment);
}

/** The parameters of a header value like `attachment; a=b; c="d e"` (names lower-cased, first one wins). */
function headerParameters(value: string): Map<string, string> {
	const params = new Map<string, string>();
	let i = value.indexOf(';');
	if (i < 0) return params;
	i++;
	while (i < value.length) {
		while (i < value.length && /[\s;]/.test(value[i])) i++;
		const eq = value.indexOf('=', i);
		const semi = value.indexOf(';', i);
		if (eq < 0 || (semi >= 0 && semi < eq)) {
			i = semi < 0 ? value.length : semi + 1; // a parameter without a value: skip it
			continue;
		}
		const name = value.slice(i, eq).trim().toLowerCase();
		i = eq + 1;
		while (i < value.length && value[i] === ' ') i++;
		let parsed = '';
		if (value[i] === '"') {
			i++;
			while (i < value.length && value[i] !== '"') {
				if (value[i] === '\\' && i + 1 < value.length) i++;
				parsed += value[i];
				i++;
			}
			i++; // the closing quote (or the end)
		} else {
			const end = value.indexOf(';', i);
			parsed = value.slice(i, end < 0 ? value.length : end).trim();
			i = end < 0 ? value.length : end;
		}
		if (name && !params.has(name)) params.set(name, parsed);
	}
	return params;
}

/** An RFC 5987 ext-value (`UTF-8'en'na%C3%AFve.png`), decoded; undefined when malformed or in another charset. */
function decodeExtendedValue(value: string): string | undefined {
	const m = /^([^']*)'[^']*'(.*)$/.exec(value.trim());
	if (!m) return undefined;
	const charset = m[1].trim().toLowerCase();
	if (charset === 'utf-8' || charset === '') return percentDecode(m[2], 'utf-8');
	if (charset === 'iso-8859-1') return percentDecode(m[2], 'latin1');
	return undefined;
}

/**
 * The file name a Content-Disposition header gives, made safe (RFC 6266): `filename*` (RFC 5987, percent-
 * encoded with a charset) wins over `filename`, which is taken as written. A malformed value is ignored, never
 * thrown. Undefined when there is no usable name.
 */
export function fileNameFromContentDisposition(header: string | undefined): string | undefined {
	if (!header) return undefined;
	const params = headerParameters(header);
	const extended = params.get('filename*');
	const decoded = extended === undefined ? undefined : decodeExtendedValue(extended);
	const candidates = [decoded, params.get('filename')];
	for (const candidate of candidates) {
		const safe = candidate === undefined ? '' : sanitizeFileName(candidate);
		if (safe) return safe;
	}
	return undefined;
}

/** `2 GiB`, `3.1 GiB`, `512 MiB`, `900 KiB`, `12 bytes`. */
export function formatBytes(bytes: number): string {
	const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
	let value = bytes;
	let unit = 0;
	while (value >= 1024 && unit < units.length - 1) {
		value /= 1024;
		unit++;
	}
	if (unit === 0) return `${bytes} bytes`;
	const rounded = Math.round(value * 10) / 10;
	return `${Number.isInteger(rounded) ? rounded.toFixed(0) : rounded.toFixed(1)} ${units[unit]}`;
}
