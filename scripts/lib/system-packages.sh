#!/usr/bin/env bash
# Installs Debian packages the tests or the demo need (Chromium for the editor tests, a C++ tool chain to
# build sqlite3 for n8n, Redis and PostgreSQL for queue mode):
#
#   scripts/lib/system-packages.sh install PACKAGE...
#
# As root (or with password-less sudo) it runs apt-get; otherwise it prints ONE line naming the command to
# run and exits 1, so the caller fails with that line instead of a puzzling error later. Concurrent callers
# (parallel jest workers) take turns on a lock and apt-get waits for other users of dpkg.
set -euo pipefail

if [[ "${1:-}" != install || $# -lt 2 ]]; then
	echo "usage: $0 install PACKAGE..." >&2
	exit 64
fi
shift
packages=("$@")

if ! command -v apt-get >/dev/null 2>&1; then
	echo "[setup] missing ${packages[*]} and there is no apt-get here: install ${packages[*]} with this system's package manager" >&2
	exit 1
fi
if [[ "$(id -u)" == 0 ]]; then
	as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
	as_root=(sudo -n)
else
	echo "[setup] missing ${packages[*]}: run \`sudo apt-get install -y ${packages[*]}\` (or run this as root, which installs them)" >&2
	exit 1
fi

lock="${TMPDIR:-/tmp}/runcomfy-apt.lock"
exec 9>"$lock"
if command -v flock >/dev/null 2>&1; then flock 9; fi
# Someone else may have installed them while we waited for the lock.
missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "[setup] installing ${missing[*]} from the Debian archive (apt-get update, then install)" >&2
apt_opts=(-o DPkg::Lock::Timeout=600 -qq)
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" update >&2
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" install -y --no-install-recommends "${missing[@]}" >&2
