/** The flow layer of the YAML-subset reader: `[a, "b", {c: d}]` and quoted scalars written inline. */
import { YamlSubsetError, readQuoted, resolvePlain, setKey } from './scalars';

/** Minimal flow-collection reader (`[a, "b", {c: d}]`). */
class FlowReader {
	i = 0;

	constructor(
		private readonly text: string,
		private readonly lineNo: number,
	) {}

	private skip(): void {
		while (this.i < this.text.length) {
			const c = this.text[this.i];
			if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
				this.i++;
			} else if (c === '#' && (this.i === 0 || /\s/.test(this.text[this.i - 1]))) {
				while (this.i < this.text.length && this.text[this.i] !== '\n') this.i++;
			} else {
				return;
			}
		}
	}

	value(): unknown {
		this.skip();
		const c = this.text[this.i];
		if (c === '[') return this.seq();
		if (c === '{') return this.map();
		if (c === '"' || c === "'") {
			const q = readQuoted(this.text, this.i, this.lineNo);
			this.i = q.end;
			return q.value;
		}
		if (c === '*') throw new YamlSubsetError('Aliases (*name) are not read by this node', this.lineNo);
		const start = this.i;
		while (this.i < this.text.length) {
			const ch = this.text[this.i];
			if (ch === ',' || ch === ']' || ch === '}') break;
			if (ch === ':' && /[\s,\]}]/.test(this.text[this.i + 1] ?? ' ')) break;
			if (ch === '#' && /\s/.test(this.text[this.i - 1] ?? '')) break;
			this.i++;
		}
		// a plain scalar may continue over lines: fold them (one line break → space, each empty line → newline)
		const lines = this.text
			.slice(start, this.i)
			.split('\n')
			.map((l) => l.trim());
		while (lines.length && lines[lines.length - 1] === '') lines.pop();
		let folded = '';
		for (const line of lines) {
			if (line === '') folded += '\n';
			else folded += folded === '' || folded.endsWith('\n') ? line : ` ${line}`;
		}
		return resolvePlain(folded);
	}

	private seq(): unknown[] {
		const out: unknown[] = [];
		this.i++;
		for (;;) {
			this.skip();
			if (this.text[this.i] === ']') {
				this.i++;
				return out;
			}
			out.push(this.value());
			this.skip();
			if (this.text[this.i] === ',') this.i++;
			else if (this.text[this.i] !== ']') throw new YamlSubsetError('Expected "," or "]" in a flow sequence', this.lineNo);
		}
	}

	private map(): Record<string, unknown> {
		const out: Record<string, unknown> = {};
		this.i++;
		for (;;) {
			this.skip();
			if (this.text[this.i] === '}') {
				this.i++;
				return out;
			}
			const key = this.value();
			this.skip();
			let value: unknown = null;
			if (this.text[this.i] === ':') {
				this.i++;
				this.skip();
				value = this.text[this.i] === ',' || this.text[this.i] === '}' ? null : this.value();
			}
			setKey(out, String(key), value);
			this.skip();
			if (this.text[this.i] === ',') this.i++;
			else if (this.text[this.i] !== '}') throw new YamlSubsetError('Expected "," or "}" in a flow mapping', this.lineNo);
		}
	}

	rest(): string {
		return this.text.slice(this.i);
	}
}

/** A quoted scalar or flow collection written inline, with nothing but a comment after it. */
export function readInlineCollection(source: string, lineNo: number): { value: unknown } | { error: unknown } {
	try {
		let value: unknown;
		let rest: string;
		if (source[0] === '"' || source[0] === "'") {
			const q = readQuoted(source, 0, lineNo);
			value = q.value;
			rest = source.slice(q.end);
		} else {
			const reader = new FlowReader(source, lineNo);
			value = reader.value();
			rest = reader.rest();
		}
		if (rest.trim() !== '' && !rest.trim().startsWith('#')) {
			return { error: new YamlSubsetError('Unexpected text after a value', lineNo) };
		}
		return { value };
	} catch (error) {
		return { error };
	}
}
