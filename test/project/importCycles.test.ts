/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions */
/**
 * No import cycle in nodes/ (scripts/check-cycles.js, run by .ci/run and release:check), and the check finds
 * one when there is one, a type-only import included.
 */
import { spawnSync } from 'child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';

const ROOT = join(__dirname, '..', '..');
const SCRIPT = join(ROOT, 'scripts', 'check-cycles.js');

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { graphOf } = require('../../scripts/check-cycles.js') as { graphOf(dir: string): Map<string, string[]> };

const check = (dir?: string) => spawnSync(process.execPath, dir ? [SCRIPT, dir] : [SCRIPT], { cwd: ROOT, encoding: 'utf8' });

describe('import cycles', () => {
	it('nodes/ has none', () => {
		const res = check();
		expect(res.stderr).toBe('');
		expect(res.stdout).toMatch(/no import cycle in nodes/);
		expect(res.status).toBe(0);
	});

	it("the job core's batch module is a leaf: it imports none of the steps, only the definitions", () => {
		const jobs = join(ROOT, 'nodes', 'shared', 'jobs');
		const imported = (graphOf(join(ROOT, 'nodes')).get(join(jobs, 'batch.ts')) ?? [])
			.filter((file) => file.startsWith(jobs))
			.map((file) => file.slice(jobs.length + 1));
		expect(imported.filter((file) => !['kind.ts', 'lastSteps.ts', 'memory.ts', 'options.ts', 'texts.ts'].includes(file))).toEqual([]);
	});

	describe('on a fixture', () => {
		let dir: string;
		beforeEach(() => {
			dir = mkdtempSync(join(tmpdir(), 'cycles-'));
			mkdirSync(join(dir, 'steps'));
		});
		afterEach(() => rmSync(dir, { recursive: true, force: true }));

		it('finds a cycle through a type-only import and an index, and fails', () => {
			writeFileSync(join(dir, 'flow.ts'), "import { submit } from './steps';\nexport const run = () => submit();\n");
			writeFileSync(join(dir, 'steps', 'index.ts'), "export { submit } from './submit';\n");
			writeFileSync(
				join(dir, 'steps', 'submit.ts'),
				"import type {\n\tBatch,\n} from '../batch';\nexport const submit = (b?: Batch) => b;\n",
			);
			writeFileSync(join(dir, 'batch.ts'), "import type { run } from './flow';\nexport type Batch = typeof run;\n");
			const res = check(dir);
			expect(res.status).toBe(1);
			expect(res.stderr).toContain('1 import cycle(s)');
			expect(res.stderr).toContain('batch.ts → flow.ts → steps/index.ts → steps/submit.ts → batch.ts');
		});

		it('passes a tree', () => {
			writeFileSync(join(dir, 'flow.ts'), "import { submit } from './steps/submit';\nexport const run = () => submit();\n");
			writeFileSync(join(dir, 'steps', 'submit.ts'), "import type { Batch } from '../batch';\nexport const submit = (b?: Batch) => b;\n");
			writeFileSync(join(dir, 'batch.ts'), 'export type Batch = number;\n');
			const res = check(dir);
			expect(res.status).toBe(0);
			expect(res.stdout).toContain('no import cycle');
		});
	});
});
