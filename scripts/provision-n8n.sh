#!/usr/bin/env bash
# Installs a pinned real n8n once into a cache outside the clone, keyed by version, and prints its home.
# Run through scripts/node24.sh (n8n 2.36+ needs Node 24; native addons build against its headers).
# n8n is installed with --ignore-scripts because several of its install scripts fetch binaries from the
# internet; the two native modules the CLI needs (sqlite3, isolated-vm) are rebuilt afterwards.
set -euo pipefail
version="${N8N_VERSION:-2.41.1}"
cache="${RUNCOMFY_CACHE_DIR:-$HOME/.cache/n8n-nodes-runcomfy}"
home="$cache/n8n-$version"
if [[ -f "$home/.ready" ]]; then echo "$home"; exit 0; fi
mkdir -p "$home"
# One installer at a time (parallel test workers, the demo): the others wait, then find it ready.
if command -v flock >/dev/null 2>&1; then
  exec 9>"$cache/n8n-$version.lock"
  flock 9
  if [[ -f "$home/.ready" ]]; then echo "$home"; exit 0; fi
fi
cd "$home"
[[ -f package.json ]] || echo '{"name":"n8n-runtime","private":true}' > package.json
echo "[n8n] installing n8n@$version into $home (first run: several minutes)" >&2
npm install --ignore-scripts --no-audit --no-fund --loglevel=error "n8n@$version" >&2
echo "[n8n] building sqlite3 and isolated-vm against Node $(node --version)" >&2
npm rebuild sqlite3 isolated-vm --loglevel=error >&2
node_modules/.bin/n8n --version >&2
touch .ready
echo "$home"
