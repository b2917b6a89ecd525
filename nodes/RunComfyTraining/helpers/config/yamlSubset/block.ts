/** The block layer of the YAML-subset reader: indentation-based mappings, sequences and block scalars. */
import { readInlineCollection } from './flow';
import { YamlSubsetError, findMappingColon, isBlankLine, isSeqEntry, readQuoted, resolvePlain, setKey, stripPlainComment } from './scalars';

/** Reads one document line by line; each method consumes the lines of the node it returns. */
export class BlockReader {
	private pos = 0;

	private readonly lines: string[];

	private readonly end: number;

	constructor(source: string) {
		const all = source.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
		let start = 0;
		// directives and the first document marker
		while (start < all.length && (isBlankLine(all[start]) || all[start].startsWith('%'))) start++;
		if (start < all.length && /^---(\s+#.*)?\s*$/.test(all[start])) start++;
		else if (start < all.length && /^---\s/.test(all[start])) {
			throw new YamlSubsetError('Content on the "---" line is not read by this node', start + 1);
		}
		let end = start;
		while (end < all.length && !/^(---|\.\.\.)(\s.*)?$/.test(all[end])) end++;
		this.lines = all;
		this.pos = start;
		this.end = end;
	}

	read(): unknown {
		const value = this.block(0);
		const next = this.nextContent();
		if (next >= 0) throw new YamlSubsetError('Unexpected content', next + 1);
		return value;
	}

	private indentOf(index: number): number {
		const line = this.lines[index];
		const m = /^( *)/.exec(line);
		const indent = m ? m[1].length : 0;
		if (line[indent] === '\t') throw new YamlSubsetError('Tabs cannot indent YAML', index + 1);
		return indent;
	}

	private nextContent(): number {
		while (this.pos < this.end && isBlankLine(this.lines[this.pos])) this.pos++;
		return this.pos < this.end ? this.pos : -1;
	}

	private block(minIndent: number): unknown {
		const i = this.nextContent();
		if (i < 0) return null;
		const indent = this.indentOf(i);
		if (indent < minIndent) return null;
		const content = this.lines[i].slice(indent);
		if (isSeqEntry(content)) return this.sequence(indent);
		if (findMappingColon(content) >= 0) return this.mapping(indent);
		const text = this.lines[i].slice(indent);
		this.pos = i + 1;
		return this.inlineValue(text, indent - 1, i);
	}

	/** The next content line of the block at `indent` (its index, its text after the indentation); none at the block's end. */
	private nextEntry(indent: number): { i: number; content: string } | undefined {
		const i = this.nextContent();
		if (i < 0) return undefined;
		const lineIndent = this.indentOf(i);
		if (lineIndent < indent) return undefined;
		if (lineIndent > indent) throw new YamlSubsetError('Unexpected indentation', i + 1);
		return { i, content: this.lines[i].slice(indent) };
	}

	private mapping(indent: number): Record<string, unknown> {
		const out: Record<string, unknown> = {};
		for (;;) {
			const entry = this.nextEntry(indent);
			if (!entry) break;
			const { i, content } = entry;
			if (isSeqEntry(content)) throw new YamlSubsetError('A list item where a key was expected', i + 1);
			const colon = findMappingColon(content);
			if (colon < 0) throw new YamlSubsetError('Expected "key: value"', i + 1);
			const keyText = content.slice(0, colon).trim();
			if (keyText.startsWith('?')) throw new YamlSubsetError('Complex keys (?) are not read by this node', i + 1);
			const key =
				keyText.startsWith('"') || keyText.startsWith("'") ? readQuoted(keyText, 0, i + 1).value : String(resolvePlain(keyText) ?? 'null');
			this.pos = i + 1;
			setKey(out, key, this.inlineValue(content.slice(colon + 1), indent, i, true));
		}
		return out;
	}

	private sequence(indent: number): unknown[] {
		const out: unknown[] = [];
		for (;;) {
			const entry = this.nextEntry(indent);
			if (!entry) break;
			const { i, content } = entry;
			if (!isSeqEntry(content)) break;
			const after = content.slice(1);
			const rest = after.replace(/^[ \t]+/, '');
			const column = indent + 1 + (after.length - rest.length);
			if (rest === '' || rest.startsWith('#')) {
				this.pos = i + 1;
				out.push(this.inlineValue('', indent, i));
			} else if (isSeqEntry(rest) || findMappingColon(rest) >= 0) {
				// compact nested collection: "- key: value" / "- - x" → re-read the line with the dash as indentation
				this.lines[i] = ' '.repeat(column) + rest;
				this.pos = i;
				out.push(this.block(column));
			} else {
				this.pos = i + 1;
				out.push(this.inlineValue(rest, indent, i));
			}
		}
		return out;
	}

	/** The value written after `key:` or `- ` on line `lineIndex` (`raw` is the text after the indicator). */
	private inlineValue(raw: string, parentIndent: number, lineIndex: number, isMapValue = false): unknown {
		let text = raw.replace(/^[ \t]+/, '');
		const lineNo = lineIndex + 1;
		// node properties: anchors are dropped, tags must be the standard ones (!!str keeps a plain scalar a string)
		let asString = false;
		for (;;) {
			const prop = /^([&!][^\s]*)(\s+|$)/.exec(text);
			if (!prop) break;
			if (prop[1].startsWith('!') && !/^!!(str|int|float|bool|null|map|seq)$/.test(prop[1])) {
				throw new YamlSubsetError(`Tag ${prop[1]} is not read by this node`, lineNo);
			}
			if (prop[1] === '!!str') asString = true;
			text = text.slice(prop[0].length);
		}
		if (text === '' || text.startsWith('#')) {
			const i = this.nextContent();
			if (i < 0) return null;
			const indent = this.indentOf(i);
			if (indent > parentIndent) return this.block(indent);
			if (isMapValue && indent === parentIndent && isSeqEntry(this.lines[i].slice(indent))) return this.sequence(indent);
			return null;
		}
		const first = text[0];
		if (first === '*') throw new YamlSubsetError('Aliases (*name) are not read by this node', lineNo);
		if (first === '|' || first === '>') return this.blockScalar(text, parentIndent, lineNo);
		if (first === '"' || first === "'" || first === '[' || first === '{') {
			// may continue on the following lines: feed more lines until the value closes
			let source = text;
			for (;;) {
				const attempt = readInlineCollection(source, lineNo);
				if ('value' in attempt) return attempt.value;
				const failure = attempt.error;
				const unfinished = failure instanceof YamlSubsetError && /not closed|Expected "," or/.test(failure.message) && this.pos < this.end;
				if (!unfinished) throw failure;
				source += `\n${this.lines[this.pos]}`;
				this.pos++;
			}
		}
		// plain scalar, possibly continued on more-indented lines
		let value = stripPlainComment(text);
		if (findMappingColon(text) >= 0) throw new YamlSubsetError('A nested mapping must start on its own line', lineNo);
		for (;;) {
			const from = this.pos;
			const i = this.nextContent();
			if (i < 0) break;
			const indent = this.indentOf(i);
			if (indent <= parentIndent) break;
			// a comment line ends a plain scalar; blank lines inside it become line breaks
			const between = this.lines.slice(from, i);
			if (between.some((l) => l.trim() !== '')) break;
			const content = this.lines[i].slice(indent);
			if (findMappingColon(content) >= 0 || isSeqEntry(content)) {
				throw new YamlSubsetError('Unexpected indentation', i + 1);
			}
			value = between.length
				? `${value}${'\n'.repeat(between.length)}${stripPlainComment(content)}`
				: `${value} ${stripPlainComment(content)}`;
			this.pos = i + 1;
		}
		return asString ? value : resolvePlain(value);
	}

	private blockScalar(header: string, parentIndent: number, lineNo: number): string {
		const m = /^([|>])([1-9]?)([+-]?)([1-9]?)\s*(#.*)?$/.exec(header);
		if (!m) throw new YamlSubsetError('Unreadable block scalar header', lineNo);
		const literal = m[1] === '|';
		const chomp = m[3];
		const explicit = Number(m[2] || m[4] || 0);
		const body: string[] = [];
		let indent = explicit ? parentIndent + explicit : -1;
		while (this.pos < this.end) {
			const line = this.lines[this.pos];
			if (line.trim() === '') {
				body.push('');
				this.pos++;
				continue;
			}
			const lineIndent = /^( *)/.exec(line)![1].length;
			if (indent < 0) indent = lineIndent;
			if (lineIndent < indent || lineIndent <= parentIndent) break;
			body.push(line.slice(indent));
			this.pos++;
		}
		let trailing = 0;
		while (body.length && body[body.length - 1] === '') {
			body.pop();
			trailing++;
		}
		let text: string;
		if (literal) {
			text = body.join('\n');
		} else {
			text = '';
			for (let k = 0; k < body.length; k++) {
				const line = body[k];
				if (k === 0) text = line;
				else if (line === '') text += '\n';
				else if (body[k - 1] === '' || line.startsWith(' ') || body[k - 1].startsWith(' '))
					text += (text.endsWith('\n') ? '' : '\n') + line;
				else text += ` ${line}`;
			}
		}
		if (body.length === 0) return '';
		if (chomp === '-') return text;
		if (chomp === '+') return `${text}\n${'\n'.repeat(trailing)}`;
		return `${text}\n`;
	}
}
