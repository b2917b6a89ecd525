#!/usr/bin/env bash
# Redis and PostgreSQL on loopback for n8n queue mode (the queue-mode test, docs/queue-mode.md).
#
#   scripts/queue/services.sh install  install Debian's redis-server/postgresql if missing (nothing else)
#   scripts/queue/services.sh start    install Debian's redis-server/postgresql if missing, start both with
#                                      private data under $QUEUE_STATE_DIR, create the n8n role + database,
#                                      print the n8n environment (KEY=VALUE lines) on stdout
#   scripts/queue/services.sh env      print that environment again (no side effects)
#   scripts/queue/services.sh status   exit 0 when both answer
#   scripts/queue/services.sh stop     stop both (data stays until `stop --purge`)
#
# Idempotent: `start` on running services only re-checks them. Non-default ports, loopback only, no
# persistence for Redis, nothing of the system's own redis/postgres services is touched.
#
# Knobs (environment): QUEUE_STATE_DIR (default /tmp/runcomfy-queue-services), QUEUE_REDIS_PORT (6390),
# QUEUE_PG_PORT (5440), QUEUE_PG_DB (n8n), QUEUE_PG_USER (n8n), QUEUE_PG_PASSWORD (n8n-queue-test).
# When run as root, PostgreSQL runs as the `postgres` user the Debian package creates (it refuses root).
set -euo pipefail

STATE_DIR="${QUEUE_STATE_DIR:-/tmp/runcomfy-queue-services}"
REDIS_PORT="${QUEUE_REDIS_PORT:-6390}"
PG_PORT="${QUEUE_PG_PORT:-5440}"
PG_DB="${QUEUE_PG_DB:-n8n}"
PG_USER="${QUEUE_PG_USER:-n8n}"
PG_PASSWORD="${QUEUE_PG_PASSWORD:-n8n-queue-test}"

REDIS_DIR="$STATE_DIR/redis"
PG_DATA="$STATE_DIR/pgdata"
PG_SOCK="$STATE_DIR/pgsock"
PG_LOG="$STATE_DIR/postgres.log"

log() { echo "[queue-services] $*" >&2; }
die() { echo "[queue-services] ERROR: $*" >&2; exit 1; }

is_root() { [[ "$(id -u)" == 0 ]]; }

pg_bindir() {
	local d
	d="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
	if [[ -n "$d" && -x "$d/pg_ctl" ]]; then echo "$d"; return 0; fi
	if command -v pg_ctl >/dev/null 2>&1; then dirname "$(command -v pg_ctl)"; return 0; fi
	return 1
}

# Runs a PostgreSQL binary as the user that owns the cluster.
as_pg() {
	if is_root; then runuser -u postgres -- "$@"; else "$@"; fi
}

install_missing() {
	local need=()
	command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
	pg_bindir >/dev/null 2>&1 || need+=(postgresql)
	[[ ${#need[@]} -eq 0 ]] && return 0
	# As root (or with password-less sudo) apt-get installs them; otherwise one line names the command.
	# No service start from the packages' maintainer scripts matters here: ours run on private ports.
	bash "$(dirname "${BASH_SOURCE[0]}")/../lib/system-packages.sh" install "${need[@]}" || exit 1
	command -v redis-server >/dev/null 2>&1 || die "redis-server still missing after apt-get install"
	pg_bindir >/dev/null 2>&1 || die "PostgreSQL binaries still missing after apt-get install"
}

redis_up() { redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null | grep -q PONG; }

start_redis() {
	if redis_up; then log "redis already answers on 127.0.0.1:$REDIS_PORT"; return 0; fi
	mkdir -p "$REDIS_DIR"
	log "starting redis-server on 127.0.0.1:$REDIS_PORT"
	redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --protected-mode yes --save '' --appendonly no \
		--dir "$REDIS_DIR" --daemonize yes --pidfile "$REDIS_DIR/redis.pid" --logfile "$REDIS_DIR/redis.log" >&2
	for _ in $(seq 1 100); do redis_up && return 0; sleep 0.1; done
	tail -n 30 "$REDIS_DIR/redis.log" >&2 || true
	die "redis-server did not answer on port $REDIS_PORT"
}

pg_up() { as_pg "$BIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" >/dev/null 2>&1; }

start_postgres() {
	BIN="$(pg_bindir)" || die "no PostgreSQL binaries found"
	if is_root && ! id postgres >/dev/null 2>&1; then die "running as root but there is no postgres user to run PostgreSQL as"; fi
	mkdir -p "$STATE_DIR"
	chmod 755 "$STATE_DIR"
	if [[ ! -f "$PG_DATA/PG_VERSION" ]]; then
		log "initdb into $PG_DATA"
		rm -rf "$PG_DATA"
		mkdir -p "$PG_DATA" "$PG_SOCK"
		if is_root; then chown postgres:postgres "$PG_DATA" "$PG_SOCK"; fi
		chmod 700 "$PG_DATA"
		as_pg "$BIN/initdb" -D "$PG_DATA" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
			--encoding=UTF8 --locale=C >"$STATE_DIR/initdb.log" 2>&1 || { cat "$STATE_DIR/initdb.log" >&2; die "initdb failed"; }
	fi
	mkdir -p "$PG_SOCK"
	if is_root; then chown postgres:postgres "$PG_SOCK"; touch "$PG_LOG"; chown postgres:postgres "$PG_LOG"; fi
	if as_pg "$BIN/pg_ctl" -D "$PG_DATA" status >/dev/null 2>&1; then
		log "PostgreSQL already running from $PG_DATA"
	else
		log "starting PostgreSQL on 127.0.0.1:$PG_PORT"
		as_pg "$BIN/pg_ctl" -D "$PG_DATA" -l "$PG_LOG" -w -t 60 \
			-o "-p $PG_PORT -c listen_addresses=127.0.0.1 -k $PG_SOCK -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=100" \
			start >&2 || { tail -n 30 "$PG_LOG" >&2; die "PostgreSQL did not start"; }
	fi
	for _ in $(seq 1 100); do pg_up && break; sleep 0.1; done
	pg_up || die "PostgreSQL does not answer on port $PG_PORT"
	local psql=("$BIN/psql" -h "$PG_SOCK" -p "$PG_PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 -qtA)
	if [[ "$(as_pg "${psql[@]}" -c "SELECT 1 FROM pg_roles WHERE rolname='$PG_USER'")" != 1 ]]; then
		log "creating role $PG_USER"
		as_pg "${psql[@]}" -c "CREATE ROLE \"$PG_USER\" LOGIN PASSWORD '$PG_PASSWORD'" >&2
	fi
	if [[ "$(as_pg "${psql[@]}" -c "SELECT 1 FROM pg_database WHERE datname='$PG_DB'")" != 1 ]]; then
		log "creating database $PG_DB"
		as_pg "${psql[@]}" -c "CREATE DATABASE \"$PG_DB\" OWNER \"$PG_USER\"" >&2
	fi
}

print_env() {
	cat <<EOF
EXECUTIONS_MODE=queue
QUEUE_BULL_REDIS_HOST=127.0.0.1
QUEUE_BULL_REDIS_PORT=$REDIS_PORT
DB_TYPE=postgresdb
DB_POSTGRESDB_HOST=127.0.0.1
DB_POSTGRESDB_PORT=$PG_PORT
DB_POSTGRESDB_DATABASE=$PG_DB
DB_POSTGRESDB_USER=$PG_USER
DB_POSTGRESDB_PASSWORD=$PG_PASSWORD
EOF
}

stop_all() {
	local purge="${1:-}"
	if [[ -f "$REDIS_DIR/redis.pid" ]]; then
		local pid
		pid="$(cat "$REDIS_DIR/redis.pid" 2>/dev/null || true)"
		if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
			log "stopping redis-server (pid $pid)"
			redis-cli -h 127.0.0.1 -p "$REDIS_PORT" shutdown nosave >/dev/null 2>&1 || kill "$pid" 2>/dev/null || true
			for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		fi
	fi
	if [[ -f "$PG_DATA/PG_VERSION" ]] && BIN="$(pg_bindir)"; then
		if as_pg "$BIN/pg_ctl" -D "$PG_DATA" status >/dev/null 2>&1; then
			log "stopping PostgreSQL ($PG_DATA)"
			as_pg "$BIN/pg_ctl" -D "$PG_DATA" -m fast -w -t 60 stop >&2 || true
		fi
	fi
	if [[ "$purge" == "--purge" ]]; then
		log "removing $STATE_DIR"
		rm -rf "$STATE_DIR"
	fi
}

case "${1:-}" in
	install)
		install_missing
		;;
	start)
		install_missing
		mkdir -p "$STATE_DIR"
		start_redis
		start_postgres
		print_env
		;;
	env)
		print_env
		;;
	status)
		BIN="$(pg_bindir)" || exit 1
		redis_up && pg_up
		;;
	stop)
		stop_all "${2:-}"
		;;
	*)
		echo "usage: $0 install|start|env|status|stop [--purge]" >&2
		exit 64
		;;
esac
