/**
 * The scalar layer of the YAML-subset reader: the error it throws, YAML 1.1 plain-scalar resolution (as PyYAML,
 * which ai-toolkit uses, reads it), quoted scalars, and the small line tests the block and flow readers share.
 */
export class YamlSubsetError extends Error {
	constructor(
		message: string,
		readonly line?: number,
	) {
		super(line ? `${message} (line ${line})` : message);
		this.name = 'YamlSubsetError';
	}
}

const MERGE_KEY = '<<';

/** YAML 1.1 plain scalar resolution (as PyYAML, which ai-toolkit uses, reads it). */
export function resolvePlain(text: string): unknown {
	if (text === '' || text === '~' || /^(null|Null|NULL)$/.test(text)) return null;
	if (/^(true|True|TRUE|yes|Yes|YES|on|On|ON)$/.test(text)) return true;
	if (/^(false|False|FALSE|no|No|NO|off|Off|OFF)$/.test(text)) return false;
	if (/^[-+]?(0|[1-9][0-9_]*)$/.test(text)) return Number(text.replace(/_/g, ''));
	if (/^[-+]?([0-9][0-9_]*)?\.[0-9_]*([eE][-+][0-9]+)?$/.test(text) && /[0-9]/.test(text)) {
		return Number(text.replace(/_/g, ''));
	}
	if (/^[-+]?\.(inf|Inf|INF)$/.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
	if (/^\.(nan|NaN|NAN)$/.test(text)) return NaN;
	return text;
}

const DOUBLE_ESCAPES: Record<string, string> = {
	'0': '\0',
	a: '\x07',
	b: '\b',
	t: '\t',
	'\t': '\t',
	n: '\n',
	v: '\v',
	f: '\f',
	r: '\r',
	e: '\x1b',
	' ': ' ',
	'"': '"',
	'/': '/',
	'\\': '\\',
	N: '\u0085',
	_: '\u00a0',
	L: '\u2028',
	P: '\u2029',
};

/** Reads a quoted scalar starting at `text[start]`; returns the value and the index after the closing quote. */
export function readQuoted(text: string, start: number, lineNo: number): { value: string; end: number } {
	const quote = text[start];
	let out = '';
	let i = start + 1;
	while (i < text.length) {
		const c = text[i];
		if (c === '\n') {
			// line folding inside a multi-line quoted scalar: trim around the break; one break → space, n breaks → n-1 newlines
			out = out.replace(/[ \t]+$/, '');
			let breaks = 0;
			while (i < text.length && /[\n \t]/.test(text[i])) {
				if (text[i] === '\n') breaks++;
				i++;
			}
			out += breaks === 1 ? ' ' : '\n'.repeat(breaks - 1);
			continue;
		}
		if (quote === "'") {
			if (c === "'") {
				if (text[i + 1] === "'") {
					out += "'";
					i += 2;
					continue;
				}
				return { value: out, end: i + 1 };
			}
			out += c;
			i++;
			continue;
		}
		if (c === '"') return { value: out, end: i + 1 };
		if (c === '\\') {
			const e = text[i + 1];
			if (e === undefined) throw new YamlSubsetError('A quoted string is not closed', lineNo);
			if (e === '\n') {
				// escaped line break: join without a space, skip leading blanks of the next line
				i += 2;
				while (text[i] === ' ' || text[i] === '\t') i++;
				continue;
			}
			const hexLength = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
			if (hexLength) {
				const hex = text.slice(i + 2, i + 2 + hexLength);
				if (!new RegExp(`^[0-9a-fA-F]{${hexLength}}$`).test(hex)) {
					throw new YamlSubsetError(`Bad \\${e} escape in a double-quoted string`, lineNo);
				}
				out += String.fromCodePoint(parseInt(hex, 16));
				i += 2 + hexLength;
				continue;
			}
			if (!(e in DOUBLE_ESCAPES)) throw new YamlSubsetError(`Unknown escape \\${e} in a double-quoted string`, lineNo);
			out += DOUBLE_ESCAPES[e];
			i += 2;
			continue;
		}
		out += c;
		i++;
	}
	throw new YamlSubsetError('A quoted string is not closed', lineNo);
}

/** Index of the `:` that ends a block mapping key in `content`, or -1 (outside quotes and flow brackets). */
export function findMappingColon(content: string): number {
	let i = 0;
	if (content[0] === '"' || content[0] === "'") {
		try {
			i = readQuoted(content, 0, 0).end;
		} catch {
			return -1;
		}
		while (content[i] === ' ' || content[i] === '\t') i++;
		return content[i] === ':' && (i + 1 === content.length || /[ \t]/.test(content[i + 1])) ? i : -1;
	}
	if (content[0] === '[' || content[0] === '{' || content[0] === '#') return -1;
	for (; i < content.length; i++) {
		const c = content[i];
		if (c === '#' && i > 0 && /[ \t]/.test(content[i - 1])) return -1;
		if (c === ':' && (i + 1 === content.length || /[ \t]/.test(content[i + 1]))) return i;
	}
	return -1;
}

/** Removes a trailing ` # comment` from a plain (unquoted) value. */
export function stripPlainComment(text: string): string {
	const m = /(^|[ \t])#/.exec(text);
	return (m ? text.slice(0, m.index) : text).trim();
}

export const isSeqEntry = (content: string): boolean => content === '-' || content.startsWith('- ') || content.startsWith('-\t');

/** Sets a key without touching the prototype (a "__proto__" key stays data); merge keys are refused. */
export function setKey(target: Record<string, unknown>, key: string, value: unknown): void {
	if (key === MERGE_KEY) {
		throw new YamlSubsetError('Merge keys (<<) are not read by this node');
	}
	Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A line with nothing but blanks or a comment. */
export function isBlankLine(line: string): boolean {
	const t = line.trim();
	return t === '' || t.startsWith('#');
}
