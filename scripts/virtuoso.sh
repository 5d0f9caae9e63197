#!/usr/bin/env bash
# Installs (if needed), starts, stops and reports a throw-away Virtuoso 7 on loopback, the real
# SPARQL store the remote-store tests and CI run against.
#
#   bash scripts/virtuoso.sh start    # prints `export SPARQL_ENDPOINT=...` on stdout, logs on stderr
#   bash scripts/virtuoso.sh stop
#   bash scripts/virtuoso.sh status   # exit 0 when running (and prints the export line), 3 when not
#
#   eval "$(bash scripts/virtuoso.sh start)"   # sets SPARQL_ENDPOINT in the calling shell
#
# Environment:
#   VIRTUOSO_DIR        database, config, log and pid files   (default /tmp/sm-virtuoso)
#   VIRTUOSO_HTTP_PORT  SPARQL/HTTP port; without it the first free port from 8890 up is used
#   VIRTUOSO_SQL_PORT   ISQL port; without it the first free port from 1111 up is used
#   VIRTUOSO_FRESH=1    wipe the database before starting
#
# Facts this relies on (Virtuoso 7.2.5 from Debian's virtuoso-opensource-7-bin):
# - The -bin package alone is enough: the server creates an empty database from this ini.
# - `virtuoso-t +wait` daemonizes and returns once the server is initialised; `+foreground` would
#   block. The lock file holds `VIRT_PID=<pid>`.
# - Anonymous SPARQL runs as the SQL user "SPARQL", which may not update until
#   `GRANT SPARQL_UPDATE TO "SPARQL"`. Nothing else was needed here for INSERT DATA, DELETE/INSERT
#   WHERE, long literals (6,000 characters) or blank nodes in INSERT templates.
# - MaxSortedTopRows is raised so that paged dumps (ORDER BY ... OFFSET n) past 10,000 rows work.
set -euo pipefail

DIR="${VIRTUOSO_DIR:-/tmp/sm-virtuoso}"
READY_TIMEOUT_S=60

log() { printf 'virtuoso.sh: %s\n' "$*" >&2; }
# shellcheck source=scripts/loopback-lib.sh
source "$(dirname "$0")/loopback-lib.sh"

server_pid() {
  [[ -f "$DIR/virtuoso.lck" ]] || return 1
  local pid
  pid=$(sed -n 's/^VIRT_PID=//p' "$DIR/virtuoso.lck")
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

endpoint_line() {
  # shellcheck source=/dev/null
  source "$DIR/ports.env"
  echo "export SPARQL_ENDPOINT=http://$HOST:$HTTP_PORT/sparql"
}

install_if_missing() {
  command -v virtuoso-t >/dev/null && command -v isql-vt >/dev/null && return 0
  apt_install virtuoso-opensource-7-bin
}

write_ini() {
  cat >"$DIR/virtuoso.ini" <<EOF
[Database]
DatabaseFile = $DIR/virtuoso.db
ErrorLogFile = $DIR/virtuoso.log
LockFile = $DIR/virtuoso.lck
TransactionFile = $DIR/virtuoso.trx
xa_persistent_file = $DIR/virtuoso.pxa
ErrorLogLevel = 7
FileExtend = 200
MaxCheckpointRemap = 2000
Striping = 0
TempStorage = TempDatabase

[TempDatabase]
DatabaseFile = $DIR/virtuoso-temp.db
TransactionFile = $DIR/virtuoso-temp.trx
MaxCheckpointRemap = 2000
Striping = 0

[Parameters]
ServerPort = $HOST:$SQL_PORT
DisableUnixSocket = 1
ServerThreads = 20
CheckpointInterval = 60
NumberOfBuffers = 20000
MaxDirtyBuffers = 15000
MaxSortedTopRows = 1000000
DefaultIsolation = 8
DirsAllowed = ., $DIR

[HTTPServer]
ServerPort = $HOST:$HTTP_PORT
ServerRoot = $DIR
ServerThreads = 20
MaxClientConnections = 40
EnabledDavVSP = 0

[Client]
SQL_PREFETCH_ROWS = 100

[SPARQL]
ResultSetMaxRows = 1000000
MaxQueryExecutionTime = 120
MaxQueryCostEstimationTime = 0
EOF
}

isql() { isql-vt "$HOST:$SQL_PORT" dba dba "exec=$1" >&2; }

wait_ready() {
  local deadline=$((SECONDS + READY_TIMEOUT_S))
  local url="http://$HOST:$HTTP_PORT/sparql?query=ASK%7B%7D"
  until curl -fsS -m 5 -o /dev/null "$url" 2>/dev/null; do
    if ((SECONDS >= deadline)); then
      log "not ready after ${READY_TIMEOUT_S}s; last log lines:"; tail -n 20 "$DIR/virtuoso.log" >&2 || true
      return 1
    fi
    sleep 0.5
  done
}

cmd_start() {
  if server_pid >/dev/null; then
    log "already running (pid $(server_pid))"
    endpoint_line
    return 0
  fi
  install_if_missing
  command -v curl >/dev/null || { log "curl is needed to probe the server"; return 1; }
  if [[ "${VIRTUOSO_FRESH:-0}" == 1 ]]; then rm -rf "$DIR"; fi
  mkdir -p "$DIR"
  HTTP_PORT="${VIRTUOSO_HTTP_PORT:-$(free_port 8890)}"
  SQL_PORT="${VIRTUOSO_SQL_PORT:-$(free_port 1111)}"
  printf 'HTTP_PORT=%s\nSQL_PORT=%s\n' "$HTTP_PORT" "$SQL_PORT" >"$DIR/ports.env"
  write_ini
  rm -f "$DIR/virtuoso.lck"
  log "starting in $DIR (HTTP $HOST:$HTTP_PORT, SQL $HOST:$SQL_PORT)"
  (cd "$DIR" && timeout "$READY_TIMEOUT_S" virtuoso-t +configfile "$DIR/virtuoso.ini" +wait) >&2 || {
    log "virtuoso-t failed to start; last log lines:"; tail -n 20 "$DIR/virtuoso.log" >&2 || true
    return 1
  }
  wait_ready
  isql 'GRANT SPARQL_UPDATE TO "SPARQL";'
  log "ready (pid $(server_pid))"
  endpoint_line
}

cmd_stop() {
  local pid
  if ! pid=$(server_pid); then log "not running"; return 0; fi
  terminate "$pid" 30
}

cmd_status() {
  local pid
  if pid=$(server_pid); then
    log "running (pid $pid, dir $DIR)"
    endpoint_line
  else
    log "not running (dir $DIR)"
    return 3
  fi
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
