/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals */
/**
 * The docs stay readable in one sitting: README, the user docs (docs/*.md and docs/nodes/*.md; maintainer notes
 * live in docs/dev/ and CONTRIBUTING.md) and BENCHMARKS.md (detail tables live in bench/results/) keep to their
 * byte budgets.
 */
import { readdirSync, statSync } from 'fs';
import { join } from 'path';

const ROOT = join(__dirname, '..', '..');
const KB = 1024;

const bytes = (file: string) => statSync(join(ROOT, file)).size;
const markdownIn = (dir: string) =>
	readdirSync(join(ROOT, dir))
		.filter((f) => f.endsWith('.md'))
		.map((f) => `${dir}/${f}`);

describe('documentation size budgets', () => {
	it('README.md is at most 8 KB', () => {
		expect(bytes('README.md')).toBeLessThanOrEqual(8 * KB);
	});

	it('the user docs (docs/*.md and docs/nodes/*.md) are at most 100 KB together', () => {
		const files = [...markdownIn('docs'), ...markdownIn('docs/nodes')];
		expect(files.length).toBeGreaterThan(5);
		const total = files.reduce((sum, f) => sum + bytes(f), 0);
		expect(total).toBeLessThanOrEqual(100 * KB);
	});

	it('BENCHMARKS.md is at most 15 KB', () => {
		expect(bytes('BENCHMARKS.md')).toBeLessThanOrEqual(15 * KB);
	});
});
