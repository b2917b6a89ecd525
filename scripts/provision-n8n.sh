#!/usr/bin/env bash
# Installs the pinned n8n once into a cache outside the clone, keyed by version, and prints its home.
# Run through scripts/node24.sh: the Node on PATH is the one that runs n8n, and native modules are built for it.
#
# The cache is marked ready (.ready) only when n8n@version is installed, its native modules `sqlite3` and
# `isolated-vm` load in this Node, and `n8n --version` answers. Every call re-checks a ready cache cheaply
# (loads both modules, well under a second); one that is marked ready but broken is rebuilt, with one line
# saying so.
#
# n8n is installed with --ignore-scripts because several of its install scripts fetch binaries from the
# internet; then sqlite3 is built from source against Node 24's headers (a C++ tool chain is installed when
# missing, see scripts/lib/system-packages.sh) and isolated-vm takes the prebuild it ships. npm runs without
# any inherited npm setting (scripts/lib/clean-npm.sh), so `npm test`'s ignore-scripts cannot reach it.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib/clean-npm.sh
source "$here/lib/clean-npm.sh"

version="${N8N_VERSION:-2.41.1}"
cache="${RUNCOMFY_CACHE_DIR:-$HOME/.cache/n8n-nodes-runcomfy}"
home="$cache/n8n-$version"

log() { echo "[n8n] $*" >&2; }
die() { echo "[n8n] ERROR: $*" >&2; exit 1; }

[[ "$(node --version 2>/dev/null)" == v24.* ]] || die "needs Node 24 on PATH: run it as scripts/node24.sh bash $0"
node_home="$(dirname "$(dirname "$(command -v node)")")"

# The cheap check: prints what is wrong with the install; nothing when n8n@version is there and both
# native modules load in this Node.
install_problem() {
	[[ -d "$home/node_modules" ]] || { echo "n8n is not installed"; return 0; }
	(cd "$home" && node -e '
		const problems = [];
		try {
			const found = require("n8n/package.json").version;
			if (found !== process.argv[1]) problems.push(`n8n ${found} is installed instead of ${process.argv[1]}`);
		} catch {
			problems.push("n8n is not installed");
		}
		for (const name of ["sqlite3", "isolated-vm"]) {
			try {
				require(name);
			} catch (error) {
				problems.push(`${name} does not load: ${String(error.message).split("\n")[0]}`);
			}
		}
		if (problems.length) console.log(problems.join("; "));
	' "$version" 2>&1) || echo "node could not check the install"
}

# The full check before .ready is written: the cheap one, then the CLI itself.
ready_problem() {
	local problem answer
	problem="$(install_problem)"
	if [[ -n "$problem" ]]; then echo "$problem"; return 0; fi
	answer="$(cd "$home" && N8N_USER_FOLDER="$home/.version-check" node node_modules/n8n/bin/n8n --version 2>&1 | tail -n 1 || true)"
	[[ "$answer" == "$version" ]] || echo "n8n --version answered '${answer:0:300}'"
}

sqlite3_version() { node -p 'require(process.argv[1] + "/package.json").version' "$1" 2>/dev/null || true; }

# The build folder of the same sqlite3 in another ready n8n of the cache (built for this Node), if any.
built_sqlite3() {
	local wanted other
	wanted="$(sqlite3_version "$home/node_modules/sqlite3")"
	[[ -n "$wanted" ]] || return 0
	for other in "$cache"/n8n-*/; do
		other="${other%/}"
		[[ "$other" != "$home" && -f "$other/.ready" && -f "$other/node_modules/sqlite3/build/Release/node_sqlite3.node" ]] || continue
		[[ "$(sqlite3_version "$other/node_modules/sqlite3")" == "$wanted" ]] && { echo "$other/node_modules/sqlite3/build"; return 0; }
	done
}

installed_version() {
	(cd "$home" && node -p 'require("n8n/package.json").version' 2>/dev/null) || true
}

if [[ -f "$home/.ready" && -z "$(install_problem)" ]]; then
	echo "$home"
	exit 0
fi

mkdir -p "$home"
# One installer at a time (parallel test workers, the demo): the others wait, then find it ready.
if command -v flock >/dev/null 2>&1; then
	exec 9>"$cache/n8n-$version.lock"
	flock 9
fi
if [[ -f "$home/.ready" ]]; then
	problem="$(install_problem)"
	if [[ -z "$problem" ]]; then
		echo "$home"
		exit 0
	fi
	log "$home is marked ready but broken ($problem): rebuilding it"
	rm -f "$home/.ready"
fi

# sqlite3 is compiled from source: make, g++ and python3 (node-gyp) must be there.
missing_tools=()
for tool in make g++ python3; do command -v "$tool" >/dev/null 2>&1 || missing_tools+=("$tool"); done
if [[ ${#missing_tools[@]} -gt 0 ]]; then
	bash "$here/lib/system-packages.sh" install "${missing_tools[@]}" || exit 1
fi

cd "$home"
# n8n-nodes-base 1.x depends on an xlsx tarball hosted outside the npm registry: take the registry's copy.
if [[ "$version" == 1.* ]]; then
	echo '{"name":"n8n-runtime","private":true,"overrides":{"xlsx":"0.18.5"}}' > package.json
else
	[[ -f package.json ]] || echo '{"name":"n8n-runtime","private":true}' > package.json
fi
for attempt in 1 2; do
	fresh=false
	if [[ "$(installed_version)" != "$version" ]]; then
		log "installing n8n@$version into $home (first run: several minutes)"
		without_npm_env npm install --ignore-scripts --no-audit --no-fund --loglevel=error "n8n@$version" >&2
		fresh=true
	fi
	# Compiling sqlite3 takes minutes: take the build of another n8n in the cache when its sqlite3 is the same.
	rebuild=(sqlite3 isolated-vm)
	if [[ ! -f node_modules/sqlite3/build/Release/node_sqlite3.node ]] && built="$(built_sqlite3)" && [[ -n "$built" ]]; then
		log "taking sqlite3's build from $built"
		cp -R "$built" node_modules/sqlite3/build
		rebuild=(isolated-vm)
	fi
	log "building ${rebuild[*]} for Node $(node --version)"
	without_npm_env npm_config_nodedir="$node_home" npm_config_build_from_source=sqlite3 \
		npm rebuild "${rebuild[@]}" --ignore-scripts=false --no-audit --no-fund --loglevel=error >&2
	problem="$(ready_problem)"
	if [[ -n "$problem" && "${rebuild[*]}" == isolated-vm ]]; then
		log "the copied sqlite3 build does not work ($problem): building sqlite3"
		rm -rf node_modules/sqlite3/build
		without_npm_env npm_config_nodedir="$node_home" npm_config_build_from_source=sqlite3 \
			npm rebuild sqlite3 --ignore-scripts=false --no-audit --no-fund --loglevel=error >&2
		problem="$(ready_problem)"
	fi
	[[ -z "$problem" ]] && break
	if [[ "$fresh" == true || "$attempt" == 2 ]]; then
		die "n8n@$version in $home does not work after installing it: $problem"
	fi
	log "still broken after rebuilding ($problem): reinstalling n8n@$version from scratch"
	rm -rf node_modules package-lock.json
done
touch .ready
echo "$home"
