/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * Ready for n8n's verification: the publish workflow (provenance on a version tag, through the one local
 * script every step of which runs here too), the licence, and what `npm pack` ships.
 */
import { existsSync, readFileSync } from 'fs';
import { join } from 'path';
import { parse } from 'yaml';

import * as h from '../../scripts/e2e/n8n';
import { packList, unexpectedFiles } from '../../scripts/pack-files';

interface Step {
	name?: string;
	uses?: string;
	run?: string;
	with?: Record<string, unknown>;
	env?: Record<string, string>;
}
interface Workflow {
	on: { push?: { tags?: string[]; branches?: string[] }; pull_request?: unknown };
	permissions?: Record<string, string>;
	jobs: Record<string, { permissions?: Record<string, string>; steps: Step[] }>;
}

const root = h.ROOT;
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
	main?: string;
	license: string;
	version: string;
	files?: string[];
	scripts: Record<string, string>;
	n8n: { nodes: string[]; credentials: string[] };
};
const workflow = (name: string) => parse(readFileSync(join(root, '.github', 'workflows', name), 'utf8')) as Workflow;
const steps = (wf: Workflow) => Object.values(wf.jobs).flatMap((job) => job.steps);
const runs = (wf: Workflow) => steps(wf).flatMap((s) => (s.run ? [s.run.trim()] : []));

describe('publish workflow (.github/workflows/publish.yml)', () => {
	const wf = workflow('publish.yml');

	it('runs on version tags only', () => {
		expect(wf.on.push?.tags).toEqual(['v*']);
		expect(wf.on.push?.branches).toBeUndefined();
		expect(wf.on.pull_request).toBeUndefined();
	});

	it('may mint the OIDC token provenance needs, and only read the repository', () => {
		expect(wf.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
		for (const job of Object.values(wf.jobs)) expect(job.permissions).toBeUndefined();
	});

	it('sets up Node 24 against the npm registry, installs exactly the lockfile, then runs the local release check', () => {
		const setup = steps(wf).find((s) => s.uses?.startsWith('actions/setup-node@'));
		expect(setup?.with).toMatchObject({ 'node-version': 24, 'registry-url': 'https://registry.npmjs.org' });
		expect(runs(wf)).toEqual(['npm ci', 'npm run release:check', 'npm publish --provenance --access public']);
	});

	it('publishes with provenance, authenticated by the NPM_TOKEN secret', () => {
		const publish = steps(wf).find((s) => s.run?.startsWith('npm publish'));
		expect(publish?.run).toContain('--provenance');
		expect(publish?.env).toEqual({ NODE_AUTH_TOKEN: '${{ secrets.NPM_TOKEN }}' });
	});

	it('calls a release check that exists and covers build, lint, formatting, the scanner, typecheck, import cycles, tests and the pack list', () => {
		expect(pkg.scripts['release:check']).toBe('scripts/node24.sh node scripts/release-check.js');
		const script = readFileSync(join(root, 'scripts', 'release-check.js'), 'utf8');
		expect(script).toContain("['build', 'lint', 'format:check', 'scan', 'typecheck', 'cycles', 'test']");
		expect(pkg.scripts['format:check']).toMatch(/^prettier --check /);
		expect(pkg.scripts.cycles).toBe('node scripts/check-cycles.js');
		expect(pkg.scripts.scan).toBe('scripts/node24.sh node scripts/scan-package.js');
		expect(script).toContain('unexpectedFiles(files)');
	});

	it('is mirrored by the CI workflow on pushes and pull requests', () => {
		const ci = workflow('ci.yml');
		expect(ci.on.pull_request).not.toBeUndefined();
		expect(runs(ci)).toEqual(['npm ci', 'npm run release:check']);
		expect(ci.permissions).toEqual({ contents: 'read' });
	});
});

describe('package contents', () => {
	it('has an MIT LICENSE naming RunComfy, as package.json declares', () => {
		expect(pkg.license).toBe('MIT');
		const license = readFileSync(join(root, 'LICENSE'), 'utf8');
		expect(license).toMatch(/^MIT License\n\nCopyright \(c\) 2026 RunComfy\n/);
	});

	it('has no "main" (n8n loads the files its n8n section lists) and a CHANGELOG for this version', () => {
		expect(pkg).not.toHaveProperty('main');
		expect(readFileSync(join(root, 'CHANGELOG.md'), 'utf8')).toContain(`## [${pkg.version}]`);
		expect(pkg.files).toEqual(expect.arrayContaining(['dist', 'CHANGELOG.md']));
	});

	it(
		'packs only the compiled nodes and credential with their assets, package.json, README, LICENSE and CHANGELOG',
		async () => {
			await h.ensureBuilt();
			const { files } = packList();
			expect(unexpectedFiles(files)).toEqual([]);
			expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md']));
			expect(files).toEqual(expect.arrayContaining([...pkg.n8n.nodes, ...pkg.n8n.credentials]));
			expect(files.filter((f) => /\.(map|d\.ts)$/.test(f) || /^dist\/(test|sandbox|bench|scripts)\//.test(f))).toEqual([]);
			expect(files.some((f) => f.endsWith('.svg'))).toBe(true);
		},
		5 * 60 * 1000,
	);

	it('would reject maps, declarations and test files if they were shipped', () => {
		expect(
			unexpectedFiles(['dist/nodes/A/A.node.js.map', 'dist/nodes/A/A.node.d.ts', 'dist/test/x.test.js', 'sandbox/index.js', 'index.js']),
		).toEqual(['dist/nodes/A/A.node.js.map', 'dist/nodes/A/A.node.d.ts', 'dist/test/x.test.js', 'sandbox/index.js', 'index.js']);
		expect(unexpectedFiles(['dist/nodes/A/A.node.js', 'dist/nodes/A/A.node.json', 'dist/icons/x.svg', 'LICENSE'])).toEqual([]);
	});

	it('keeps the built output free of maps and declarations (tsconfig.build.json)', () => {
		const build = JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8')) as { compilerOptions: Record<string, unknown> };
		expect(build.compilerOptions).toMatchObject({ declaration: false, sourceMap: false });
		expect(existsSync(join(root, 'LICENSE'))).toBe(true);
	});
});
