# Sourced by scripts/node24.sh and scripts/provision-n8n.sh.
#
# Under `npm run …` / `npm test`, npm exports its whole configuration to the script as npm_config_*
# (for this project that includes .npmrc's ignore-scripts=true), plus npm_lifecycle_*/npm_package_*.
# A nested `npm install`/`npm rebuild` would obey those: the rebuild of n8n's native modules then does
# nothing and still reports success. So nested npm runs through `without_npm_env`, which drops every
# inherited npm setting; the caller passes the few it needs explicitly (NAME=VALUE before the command,
# as with env(1)). Everything else (PATH, HOME, proxies, NODE_EXTRA_CA_CERTS, …) is kept.
#
#   without_npm_env npm_config_nodedir="$node_home" npm rebuild sqlite3 --ignore-scripts=false
without_npm_env() {
	local -a drop=()
	local name
	while IFS= read -r name; do
		case "${name,,}" in
			npm_config_* | npm_lifecycle_* | npm_package_* | npm_command | npm_execpath | npm_node_execpath | init_cwd)
				drop+=(-u "$name")
				;;
		esac
	done < <(compgen -e)
	env "${drop[@]}" "$@"
}
