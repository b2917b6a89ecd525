#!/usr/bin/env node
// The npm registry reachable from this project's machines lacks the non-Linux builds of unrs-resolver's
// platform bindings (a transitive dev dependency of n8n's lint tooling). `npm install` then leaves them out of
// package-lock.json, and `npm ci` refuses a lock file that lacks an optional dependency. This adds the missing
// entries with their platform fields, so `npm ci` accepts the lock and skips them on Linux (as it would with
// the full registry). Run it after `npm install` changes the lock file.
const fs = require('fs');
const path = require('path');

const lockPath = path.join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(lockPath, 'utf8'));
const parent = lock.packages['node_modules/unrs-resolver'];
if (!parent) process.exit(0);
const platformOf = (name) => {
	const [, os, cpu, abi] = /resolver-binding-([a-z0-9]+)-([a-z0-9]+)(?:-([a-z]+))?$/.exec(name) ?? [];
	const entry = { os: [os], cpu: [cpu === 'arm' ? 'arm' : cpu] };
	if (os === 'linux') entry.libc = [abi && abi.startsWith('musl') ? 'musl' : 'glibc'];
	return entry;
};
let added = 0;
for (const [name, version] of Object.entries(parent.optionalDependencies ?? {})) {
	const key = `node_modules/${name}`;
	if (lock.packages[key]) continue;
	lock.packages[key] = { version, cpu: platformOf(name).cpu, dev: true, ...platformOf(name), license: 'MIT', optional: true };
	added++;
}
const sorted = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
lock.packages = sorted;
fs.writeFileSync(lockPath, JSON.stringify(lock, null, 2) + '\n');
console.log(`complete-lockfile: added ${added} optional platform entries`);
