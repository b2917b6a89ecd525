/** Finding the http(s) URLs in a service answer, each with its JSON path. */
import type { IDataObject } from 'n8n-workflow';

export interface FoundUrl {
	/** JSON path inside the searched value, e.g. `output.images[0]`. */
	path: string;
	url: string;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function isHttpUrl(text: string): boolean {
	if (!/^https?:\/\//i.test(text)) return false;
	try {
		const url = new URL(text);
		return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
	} catch {
		return false;
	}
}

/** Every http(s) URL anywhere in `value`, depth-first, with its JSON path rooted at `rootPath`. Identical
 * URLs are listed once (at their first path). */
export function collectUrls(value: unknown, rootPath: string): FoundUrl[] {
	const found: FoundUrl[] = [];
	const seen = new Set<string>();
	const visiting = new Set<unknown>();
	const walk = (v: unknown, path: string, depth: number) => {
		if (depth > 64) return;
		if (typeof v === 'string') {
			const text = v.trim();
			if (isHttpUrl(text) && !seen.has(text)) {
				seen.add(text);
				found.push({ path, url: text });
			}
			return;
		}
		if (typeof v !== 'object' || v === null || visiting.has(v)) return;
		visiting.add(v);
		if (Array.isArray(v)) {
			v.forEach((entry, i) => walk(entry, `${path}[${i}]`, depth + 1));
		} else {
			for (const [key, entry] of Object.entries(v as IDataObject)) {
				const segment = IDENTIFIER.test(key) ? (path ? `.${key}` : key) : `[${JSON.stringify(key)}]`;
				walk(entry, `${path}${segment}`, depth + 1);
			}
		}
		visiting.delete(v);
	};
	walk(value, rootPath, 0);
	return found;
}
