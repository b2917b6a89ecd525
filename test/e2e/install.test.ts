/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals */
/**
 * The packed tarball installed the way each route in README's Installation section installs it, then run by
 * the real n8n: the nodes must load and work with the HOST's n8n-workflow. A second copy of n8n-workflow
 * beside the package would be loaded instead of n8n's own (instanceof checks on n8n's error classes, and
 * anything version-dependent, then break silently).
 *
 * - the UI installer's layout (n8n's community-packages service: tarball extracted into
 *   `~/.n8n/nodes/node_modules/<name>`, peer/dev/optional dependencies stripped, `npm install` inside);
 * - README's `npm install` line in `~/.n8n/nodes`, as written there;
 * - README's Dockerfile `RUN` line, run as a shell script with /home/node moved to a temporary folder.
 *
 * npm runs offline (a no-dependency package needs nothing from a registry; a peer npm would fetch fails),
 * without the npm settings `npm test` exports.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

import { startSandbox } from '../../sandbox';
import type { Sandbox } from '../../sandbox';
import * as h from '../../scripts/e2e/n8n';
import type { CredentialJson, UserFolder } from '../../scripts/e2e/n8n';

const TEST_TIMEOUT = 6 * 60 * 1000;
const README = fs.readFileSync(path.join(h.ROOT, 'README.md'), 'utf8');

let sandbox: Sandbox;
let tarball: string;
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'runcomfy-install-'));

/** The environment a user's shell has: none of the npm_config_* that `npm test` exports, npm offline. */
function userShellEnv(home: string): Record<string, string> {
	const env: Record<string, string> = {};
	for (const [name, value] of Object.entries(process.env)) {
		if (value === undefined || /^(npm_|init_cwd$)/i.test(name)) continue;
		env[name] = value;
	}
	return {
		...env,
		HOME: home,
		npm_config_offline: 'true',
		npm_config_cache: path.join(scratch, 'npm-cache'),
		npm_config_update_notifier: 'false',
	};
}

async function sh(script: string, cwd: string, home: string): Promise<void> {
	const res = await h.run('sh', ['-ec', script], { cwd, env: userShellEnv(home), timeoutMs: 3 * 60 * 1000 });
	if (res.code !== 0) throw new Error(`"${script}" exited ${res.code}:\n${res.stdout.slice(-2000)}\n${res.stderr.slice(-3000)}`);
}

/** The one line of README that matches `pattern`, trimmed. */
function readmeLine(pattern: RegExp): string {
	const lines = README.split('\n').filter((l) => pattern.test(l));
	if (lines.length !== 1) throw new Error(`README.md should have exactly one line matching ${pattern}, has ${lines.length}`);
	return lines[0].trim();
}

/** The README's `npm install n8n-nodes-runcomfy` aimed at the local tarball instead of the registry. */
const fromTarball = (command: string): string => command.replace(/npm install n8n-nodes-runcomfy\b/, `npm install ${tarball}`);

/** A user folder whose package is removed, so that an install route can put it back its own way. */
function emptyUserFolder(): UserFolder {
	const uf = h.createUserFolder();
	fs.rmSync(path.join(uf.n8nDir, 'nodes'), { recursive: true, force: true });
	return uf;
}

/** Every n8n-workflow below ~/.n8n/nodes (there must be none: the host's is the one to use). */
function workflowCopies(uf: UserFolder): string[] {
	const nodesDir = path.join(uf.n8nDir, 'nodes');
	if (!fs.existsSync(nodesDir)) return [];
	return fs
		.readdirSync(nodesDir, { recursive: true })
		.map(String)
		.filter((p) => p.split(path.sep).slice(-2).join('/') === 'node_modules/n8n-workflow');
}

/** Runs the continue-on-fail example: a NodeApiError of the package handled by n8n's own Continue on Fail. */
async function runsWithHostN8n(uf: UserFolder): Promise<void> {
	const installed = JSON.parse(fs.readFileSync(path.join(uf.n8nDir, 'nodes', 'node_modules', h.PACKAGE_NAME, 'package.json'), 'utf8'));
	expect(installed.name).toBe(h.PACKAGE_NAME);
	expect(
		fs.existsSync(path.join(uf.n8nDir, 'nodes', 'node_modules', h.PACKAGE_NAME, 'dist', 'nodes', 'RunComfyModel', 'RunComfyModel.node.js')),
	).toBe(true);
	expect(workflowCopies(uf)).toEqual([]);

	const credential: CredentialJson = await h.importCredential(uf, h.sandboxCredential(sandbox));
	const wf = await h.importWorkflow(uf, path.join(h.ROOT, 'examples', 'continue-on-fail.json'), { credential });
	const res = await h.execute(uf, wf.id, { timeoutMs: 4 * 60 * 1000 });
	const out = `${res.stdout.slice(-3000)}\n${res.stderr.slice(-2000)}`;
	expect(out).not.toMatch(/Unrecognized node type|is not known/i);
	expect(res.run?.status).toBe('success');
	const items = h.nodeItems(res.run, 'Run Model') ?? [];
	expect(items).toHaveLength(2);
	expect(items[0].json.status).toBe('succeeded');
	// n8n's Continue on Fail turned the package's error into an item: the error is n8n's own class.
	expect(String(items[1].json.error)).toMatch(/failed/i);
	expect(items[1].json.request_id).toBeTruthy();
}

beforeAll(async () => {
	await h.ensureN8n();
	await h.ensureBuilt();
	sandbox = await startSandbox({ runDurationMs: 300, queueMs: 50 });
	const packed = await h.run('npm', ['pack', '--pack-destination', scratch, '--silent'], { cwd: h.ROOT, env: userShellEnv(os.homedir()) });
	if (packed.code !== 0) throw new Error(`npm pack failed:\n${packed.stderr}`);
	tarball = path.join(scratch, packed.stdout.trim().split('\n').pop() as string);
	expect(fs.existsSync(tarball)).toBe(true);
}, TEST_TIMEOUT);

afterAll(async () => {
	await sandbox?.close();
	fs.rmSync(scratch, { recursive: true, force: true });
});

describe('installed as README says, the package uses the host n8n-workflow', () => {
	it(
		"n8n's UI installer layout",
		async () => {
			const uf = emptyUserFolder();
			try {
				const pkgDir = path.join(uf.n8nDir, 'nodes', 'node_modules', h.PACKAGE_NAME);
				fs.mkdirSync(pkgDir, { recursive: true });
				await sh(`tar -xzf '${tarball}' -C '${pkgDir}' --strip-components=1`, uf.dir, uf.dir);
				const manifestPath = path.join(pkgDir, 'package.json');
				const manifest = JSON.parse(fs.readFileSync(manifestPath, 'utf8'));
				for (const field of ['devDependencies', 'peerDependencies', 'optionalDependencies']) delete manifest[field];
				fs.writeFileSync(manifestPath, JSON.stringify(manifest, null, 2));
				await sh(
					'npm install --audit=false --fund=false --bin-links=false --install-strategy=shallow --ignore-scripts=true --package-lock=false',
					pkgDir,
					uf.dir,
				);
				await runsWithHostN8n(uf);
			} finally {
				uf.cleanup();
			}
		},
		TEST_TIMEOUT,
	);

	it(
		'README: npm install in ~/.n8n/nodes',
		async () => {
			const uf = emptyUserFolder();
			try {
				const line = readmeLine(/cd ~\/\.n8n\/nodes && npm install/);
				// The user folder stands in for ~ (HOME), so "~/.n8n" is the private n8n folder.
				await sh(`mkdir -p ~/.n8n/nodes && ${fromTarball(line)}`, uf.dir, uf.dir);
				await runsWithHostN8n(uf);
			} finally {
				uf.cleanup();
			}
		},
		TEST_TIMEOUT,
	);

	it(
		"README: the Dockerfile's RUN line",
		async () => {
			const uf = emptyUserFolder();
			try {
				const line = readmeLine(/^\s*RUN .*npm install/).replace(/^RUN\s+/, '');
				await sh(fromTarball(line).replace(/\/home\/node/g, uf.dir), uf.dir, uf.dir);
				await runsWithHostN8n(uf);
			} finally {
				uf.cleanup();
			}
		},
		TEST_TIMEOUT,
	);
});
